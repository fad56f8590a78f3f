/** `chatctl org`: the organization as code (export, validate, schema, plan, drift, apply). */
import { applyCommand } from './apply.js';
import { exportCommand } from './export.js';
import { driftCommand, planCommand } from './plan.js';
import { schemaCommand, validateCommand } from './validate.js';

export const commands = [exportCommand, validateCommand, schemaCommand, planCommand, driftCommand, applyCommand];
