/**
 * What one API operation is, declared once: method, path template, parameters with wire types, who may
 * call it, the feature level it needs. The catalogue built from these drives the client's encoding, the
 * embedded server's routing, decoding and permission gate, `chatctl api` help and completions.
 */
import type { Schema, Typed } from './schema.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

export interface ParamDef<T = unknown> {
  readonly schema: Schema;
  readonly required: boolean;
  readonly default?: T;
  readonly in?: 'path';
  /** Other names the server reads for the same value (e.g. `subject` for `topic`). */
  readonly aliases?: readonly string[];
  readonly doc?: string;
  /** The feature level at which a Zulip server gained this parameter, in its oldest form (absent: always there). */
  readonly minFeatureLevel?: number;
  /**
   * How servers below a level take this parameter: another name, another value, or both. Every form whose
   * `before` is above the server's level applies, newest first. A value it cannot express throws
   * `NotAtLevel` (the client reports the form's `before` as the level needed).
   */
  readonly older?: readonly OlderParam<T>[];
  readonly _type?: T;
}

export interface OlderParam<T> {
  readonly before: number;
  readonly name?: string;
  /** A method, so that forms of a narrower parameter type fit a catalogue of any parameters. */
  value?(value: T): unknown;
}

/** Thrown by an older form that cannot express what was asked (`what` is how the request put it). */
export class NotAtLevel extends Error {
  constructor(readonly what: string) {
    super(`${what} is not available in this older form`);
    this.name = 'NotAtLevel';
  }
}

/**
 * Who may call an operation, as the gate in front of its handler. Finer rules (the bot's owner may edit
 * the bot, only owners touch the owner role ...) live in the handlers, as on a real server.
 * - `none`: no authentication is read (server_settings, fetch_api_key).
 * - `user`: any authenticated user or bot.
 * - `member`: not a guest (`Not allowed for guest users`).
 * - `admin` / `owner`: role decorators (`Must be an organization administrator|owner`).
 */
export type Access = 'none' | 'user' | 'member' | 'admin' | 'owner';

export interface OperationDecl {
  readonly name: string;
  readonly method: Method;
  /** Path below /api/v1, with `{param}` placeholders declared as path parameters. */
  readonly path: string;
  readonly summary: string;
  readonly access: Access;
  /** false: bots get `This endpoint does not accept bot requests.` */
  readonly bots?: boolean;
  readonly params: Readonly<Record<string, ParamDef>>;
  /** The feature level at which a Zulip server gained this operation (absent: always there). */
  readonly minFeatureLevel?: number;
  /**
   * A shape only servers before this feature level accept (a parameter or path since renamed). The client
   * sends it to such servers; the embedded server, at the current level, does not route it.
   */
  readonly before?: number;
  /** Safe to repeat after a failure (GET always is). */
  readonly idempotent?: boolean;
  /**
   * A GET whose answer is a function of the organization's stored state, the caller and the request alone
   * (it reads no clock and writes nothing): the embedded server gives it again while its store is unchanged
   * (server/answer-cache.ts).
   */
  readonly cacheable?: boolean;
  /** The request carries a file (multipart/form-data). */
  readonly upload?: boolean;
  /** Documented in the Zulip OpenAPI file under this path, for response validation. */
  readonly openapiPath?: string;
}

export interface Operation<P = unknown, R = unknown, DP = unknown> extends OperationDecl {
  /** Phantom types: what a caller passes, what comes back, what a handler receives. */
  readonly _params?: P;
  readonly _response?: R;
  readonly _decoded?: DP;
}

type Req<T> = ParamDef<T> & { readonly required: true };
type Opt<T> = ParamDef<T> & { readonly required: false };
type Def<T> = ParamDef<T> & { readonly required: false; readonly default: T };
type Extra<T> = Partial<Pick<ParamDef<NoInfer<T>>, 'doc' | 'aliases' | 'minFeatureLevel' | 'older'>>;

export const p = {
  req: <T>(t: Typed<T>, extra: Extra<T> = {}): Req<T> => ({
    schema: t.schema,
    required: true,
    ...extra,
  }),
  opt: <T>(t: Typed<T>, extra: Extra<T> = {}): Opt<T> => ({
    schema: t.schema,
    required: false,
    ...extra,
  }),
  /**
   * Optional on the wire; the handler always sees a value. A server too old for the parameter behaves as
   * if it were given its default, so the default is left out for such a server rather than refused.
   */
  def: <T>(t: Typed<T>, value: T, extra: Extra<T> = {}): Def<T> => ({
    schema: t.schema,
    required: false,
    default: value,
    ...extra,
  }),
  path: <T>(t: Typed<T>, doc?: string): Req<T> => ({ schema: t.schema, required: true, in: 'path', doc }),
};

export type ParamsOf<D> = D extends { params: infer P }
  ? { [K in keyof P as P[K] extends { required: true } ? K : never]: P[K] extends ParamDef<infer T> ? T : never } & {
      [K in keyof P as P[K] extends { required: true } ? never : K]?: P[K] extends ParamDef<infer T> ? T : never;
    }
  : never;

/** Parameters as a handler sees them: optional ones with a declared default are filled in. */
export type DecodedParamsOf<D> = D extends { params: infer P }
  ? {
      [K in keyof P as P[K] extends { required: true } | { default: unknown } ? K : never]: P[K] extends ParamDef<infer T> ? T : never;
    } & {
      [K in keyof P as P[K] extends { required: true } | { default: unknown } ? never : K]?: P[K] extends ParamDef<infer T> ? T : never;
    }
  : never;

export type ResponseOf<O> = O extends Operation<unknown, infer R> ? R : never;
export type HandlerParamsOf<O> = O extends Operation<unknown, unknown, infer DP> ? DP : never;
export type CallParamsOf<O> = O extends Operation<infer P> ? P : never;

/** Declares an operation whose success body (beyond result/msg) has type R. */
export const operation =
  <R>() =>
  <const D extends OperationDecl>(decl: D): D & Operation<ParamsOf<D>, R, DecodedParamsOf<D>> =>
    decl as D & Operation<ParamsOf<D>, R, DecodedParamsOf<D>>;

/** Path parameter names of a template, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** Fills a path template; every value is URI-encoded as one segment. */
export function fillPath(path: string, values: Record<string, unknown>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined || v === null) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(String(v));
  });
}
