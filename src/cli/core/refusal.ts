/**
 * A refusal chatctl makes itself in the server's shape (400, BAD_REQUEST, as a Zulip server refuses an
 * unknown user): a reference that names nothing, a bulk row that cannot be sent. A script reads one shape
 * whichever side refused, and bulk rows report its code as they report the server's. Its exit kind is
 * declared where it is raised, never read back from its words.
 */
import { ApiError } from '../../api/errors.js';
import type { ExitKind } from '../../errors.js';

export class Refusal extends ApiError {
  constructor(
    msg: string,
    readonly kind: ExitKind = 'failure',
  ) {
    super(msg);
    this.name = 'Refusal';
  }
}

/** A reference that matches nothing chatctl looked up: exits 6, as the server's own "not found" does. */
export const unknownRef = (msg: string): Refusal => new Refusal(msg, 'notFound');

/** Whatever stopped a row before its request, as a refusal: the row fails alone (exit 1 when it is the only one). */
export const refusalOf = (e: unknown): Refusal => (e instanceof Refusal ? e : new Refusal(e instanceof Error ? e.message : String(e)));
