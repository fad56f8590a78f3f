import type { CommandSpec } from '../command.js';

export const commands: CommandSpec[] = [];
