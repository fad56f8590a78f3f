/** `chatctl users`: one module per verb, loaded together when argv names the noun (commands/index.ts). */
import { createCommand } from './create.js';
import { deactivateCommand } from './deactivate.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { reactivateCommand } from './reactivate.js';
import { updateCommand } from './update.js';

export const commands = [listCommand, getCommand, createCommand, updateCommand, deactivateCommand, reactivateCommand];
