/** Every handler of the embedded implementation, bound to its catalogue operation. */
import type { Binding } from '../context.js';
import { serverHandlers } from './server.js';
import { userHandlers } from './users.js';

export const bindings: readonly Binding[] = [...serverHandlers, ...userHandlers];
