/**
 * The operation catalogue: every operation chatctl knows, collected from the per-area declarations.
 * The embedded router routes with it, the client encodes with it, `chatctl api` completes from it.
 */
import type { Operation } from './operation.js';
import * as server from './operations/server.js';
import * as users from './operations/users.js';

const isOperation = (v: unknown): v is Operation =>
  typeof v === 'object' && v !== null && 'method' in v && 'path' in v && 'access' in v;

const areas = { server, users };

export const catalogue: readonly Operation[] = Object.values(areas).flatMap((area) =>
  Object.values(area as Record<string, unknown>).filter(isOperation),
);

export const ops = { ...server, ...users };
