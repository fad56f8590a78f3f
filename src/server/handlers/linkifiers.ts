import type { Binding } from '../context.js';

export const bindings: Binding[] = [];
