/**
 * A request's parameters as its operation declares them: from the path's captures, the body and the query
 * string, decoded by their schemas; and Django's bound on how many a request may send, checked before the
 * credentials are.
 */
import { ApiError, badRequest } from '../api/errors.js';
import { LIMITS } from '../api/limits.js';
import { NotAtLevel, type Operation, type ParamDef } from '../api/operation.js';
import { decodeWire } from '../api/schema.js';
import type { WireRequest } from '../api/wire.js';
import { paramsAtLevel } from '../api/param-levels.js';
import type { Hit } from './routes.js';

/**
 * The parameters of a request that reached `hit`, as a server at feature level `level` reads them, and the wire
 * names it read (the others are reported ignored).
 */
export function requestParams(hit: Hit, req: WireRequest, level: number): { params: Record<string, unknown>; read: Set<string> } {
  const { op } = hit.route;
  const params: Record<string, unknown> = {};
  hit.route.names.forEach((name, i) => {
    params[name] = decodePathParam(op, name, decodePathSegment(hit.match[i + 1]!));
  });
  return { params, read: decodeParams(op, req, params, level) };
}

/**
 * A path segment percent-decoded; one that is not valid percent-encoded UTF-8 (`%zz`, a lone surrogate's
 * bytes) is taken as it stands, as Django leaves such a path, so it names nothing rather than failing.
 */
function decodePathSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function decodePathParam(op: Operation, name: string, raw: string): unknown {
  const def = op.params[name];
  if (def?.schema.t === 'int') return Number(raw);
  return raw;
}

/** Django's bound on parameters, for the body and the query string each (TooManyFieldsSent there). */
export function checkFieldCounts(req: WireRequest): void {
  for (const [where, fields] of [
    ['body', req.body],
    ['query string', req.query],
  ] as const) {
    if (fields.length > LIMITS.fields) {
      throw new ApiError(`Too many parameters in the ${where} (limit: ${LIMITS.fields})`, 'REQUEST_TOO_LARGE', 400);
    }
  }
}

/**
 * Fills `out` with the operation's parameters; returns the set of wire names it read. A parameter the server's
 * level lacks is not read (so it is reported ignored, as a Zulip server reports one it does not know) and has
 * its default; one it knows by another name is read under that name.
 */
function decodeParams(op: Operation, req: WireRequest, out: Record<string, unknown>, level: number): Set<string> {
  const read = new Set<string>();
  const lookup = (name: string): string | undefined => req.body.find(([k]) => k === name)?.[1] ?? req.query.find(([k]) => k === name)?.[1];
  for (const { name, def, at } of paramsAtLevel(op, level)) {
    if (def.in === 'path') continue;
    if (!at) {
      if (def.default !== undefined) out[name] = defaultOf(def);
      continue;
    }
    const wireName = at.names[0]!;
    for (const n of at.names) read.add(n);
    let raw = lookup(wireName);
    for (let i = 1; i < at.names.length; i++) {
      const alias = at.names[i]!;
      const other = lookup(alias);
      if (other === undefined) continue;
      if (raw !== undefined) {
        throw new ApiError(`Can't decide between '${wireName}' and '${alias}' arguments`, 'REQUEST_CONFUSING_VAR', 400, {
          var_name1: wireName,
          var_name2: alias,
        });
      }
      raw = other;
    }
    const value = raw === undefined ? undefined : olderValue(at.value, decodeWire(def.schema, raw, wireName), wireName);
    if (value === undefined) {
      if (def.required) {
        throw new ApiError(`Missing '${wireName}' argument`, 'REQUEST_VARIABLE_MISSING', 400, { var_name: wireName });
      }
      if (def.default !== undefined) out[name] = defaultOf(def);
      continue;
    }
    out[name] = value;
  }
  return read;
}

/**
 * A parameter's default, for one request: a list or an object is the handler's to change, so each request gets
 * its own copy; a string, number or boolean is given as it is (a copy of each default cost GET /messages, with
 * seven of them, more than reading its parameters).
 */
const defaultOf = (def: ParamDef): unknown => (typeof def.default === 'object' && def.default !== null ? structuredClone(def.default) : def.default);

/** A value as a server of an older level takes it; one that level has no way to say is refused as an invalid value. */
function olderValue(take: ((v: unknown) => unknown) | undefined, value: unknown, wireName: string): unknown {
  if (!take) return value;
  try {
    return take(value);
  } catch (e) {
    if (e instanceof NotAtLevel) throw badRequest(`Invalid ${wireName}`);
    throw e;
  }
}
