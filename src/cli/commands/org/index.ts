/** `chatctl org`: the organization as code (export, validate, schema, plan, drift, apply, mirror, rehearse). */
import { applyCommand } from './apply.js';
import { exportCommand } from './export.js';
import { mirrorCommand } from './mirror.js';
import { driftCommand, planCommand } from './plan.js';
import { rehearseCommand } from './rehearse.js';
import { schemaCommand, validateCommand } from './validate.js';

export const commands = [exportCommand, validateCommand, schemaCommand, planCommand, driftCommand, applyCommand, mirrorCommand, rehearseCommand];
