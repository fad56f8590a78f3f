/** The errors of API calls that must fail, as the tests compare them. */
import { ApiError } from '../../src/api/errors.js';

/** The ApiError that `call` fails with; anything else it throws, or its success, fails the test. */
export async function failure(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('the call succeeded');
}

const flat = (e: ApiError) => ({ msg: e.msg, code: e.code, status: e.status });

/** msg, code and status of the error `call` fails with, to compare whole with `toEqual` (see `bad`). */
export async function flatFailure(call: Promise<unknown>): Promise<Record<string, unknown>> {
  return flat(await failure(call));
}

/** As `flatFailure`, with the code-specific fields of the error too (`errors`, `sent_invitations` ...). */
export async function flatFailureWithExtra(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const e = await failure(call);
  return { ...flat(e), ...e.extra };
}

/** The flattened 400 BAD_REQUEST with this message. */
export const bad = (msg: string) => ({ msg, code: 'BAD_REQUEST', status: 400 });
