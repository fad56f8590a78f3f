/**
 * Older forms of whole operations: what a server below some feature level takes instead of the current
 * request (another path, another shape, or several requests where one does it now). Declared in the
 * catalogue beside the operation they stand for, with `declareOlder`; the client picks the form for the
 * server's level, so commands never choose request shapes. Renamed parameters and changed values are
 * declared on the parameter itself (`ParamDef.older`); this is for what a parameter cannot say.
 */
import type { CallParamsOf, Operation, ResponseOf } from './operation.js';
import type { ElementOf, ListKey } from './streamed-list.js';

/** One request of an older form. */
export interface OlderCall {
  readonly op: Operation;
  readonly params: Readonly<Record<string, unknown>>;
}

export interface OlderForm<M extends Operation> {
  /** Servers below this feature level get this form. */
  readonly before: number;
  /** The parameters that make a call need this form (absent: every call does). */
  readonly for?: readonly (keyof CallParamsOf<M> & string)[];
  /** Whether a call needs this form, where a parameter's value decides it (absent: `for` alone decides). */
  when?(params: CallParamsOf<M>): boolean;
  /** The requests that do at such a server what `M` does now, in order; may throw `NotAtLevel`. */
  calls(params: CallParamsOf<M>): OlderCall[];
  /**
   * The answer in `M`'s shape, from the first request's answer (absent: taken as it is); `fetch` makes a
   * further request where the older answer lacks something.
   */
  response?(body: Record<string, unknown>, params: CallParamsOf<M>, fetch: Fetch): Promise<Record<string, unknown>> | Record<string, unknown>;
  /**
   * Where the older answer differs only in holding more elements of one list: which of them to keep, one by
   * one, so that a list read as it comes (ChatClient.stream) can stay streamed. Applied before `response`.
   */
  readonly keep?: KeepOf<M>;
}

/** Which elements of a list of `M`'s answer to keep, given the call's parameters. */
type KeepOf<M extends Operation> = {
  [K in ListKey<ResponseOf<M>>]: { readonly key: K; elements(params: CallParamsOf<M>): (element: ElementOf<ResponseOf<M>[K]>) => boolean };
}[ListKey<ResponseOf<M>>];

/** A further request an older form's `response` may make, answered in the operation's success shape. */
export type Fetch = <O extends Operation>(op: O, params: CallParamsOf<O>) => Promise<ResponseOf<O>>;

/** One request of an older form, checked against its operation's parameters where it is written. */
export const olderCall = <O extends Operation>(op: O, params: CallParamsOf<O>): OlderCall => ({ op, params: params ?? {} });

/** An older form as the client uses it: parameters of whichever operation it stands for. */
export interface AnyOlderForm {
  readonly before: number;
  readonly for?: readonly string[];
  when?(params: Readonly<Record<string, unknown>>): boolean;
  calls(params: Record<string, unknown>): OlderCall[];
  response?(body: Record<string, unknown>, params: Record<string, unknown>, fetch: Fetch): Promise<Record<string, unknown>> | Record<string, unknown>;
  readonly keep?: { readonly key: string; elements(params: Record<string, unknown>): (element: unknown) => boolean };
}

const forms = new Map<Operation, AnyOlderForm[]>();

/**
 * Declares the older forms of `op`. The parameters a form receives are always a call of `op`, which is
 * what makes the erased signature below safe: only the client calls it, with `op`'s parameters.
 */
export function declareOlder<M extends Operation>(op: M, older: readonly OlderForm<M>[]): void {
  forms.set(
    op,
    older.map((f) => f as unknown as AnyOlderForm).sort((a, b) => a.before - b.before),
  );
}

const needed = (f: AnyOlderForm, params: Readonly<Record<string, unknown>>): boolean =>
  (f.for === undefined || f.for.some((name) => params[name] !== undefined)) && (f.when?.(params) ?? true);

/** The form of a call of `op` for a server at `level`: the oldest form whose `before` is above it, if any. */
export function olderFormFor(op: Operation, params: Readonly<Record<string, unknown>>, level: number): AnyOlderForm | undefined {
  return forms.get(op)?.find((f) => level < f.before && needed(f, params));
}

/** Whether some older form of `op` applies to a call with these parameters, at some level. */
export const hasOlderFormFor = (op: Operation, params: Readonly<Record<string, unknown>>): boolean => (forms.get(op) ?? []).some((f) => needed(f, params));

/** The level from which a server takes `param` of `op` as it is now, when an older form stands in for it below. */
export function levelOfParam(op: Operation, param: string): number | undefined {
  const befores = (forms.get(op) ?? []).filter((f) => f.for?.includes(param)).map((f) => f.before);
  return befores.length ? Math.max(...befores) : undefined;
}
