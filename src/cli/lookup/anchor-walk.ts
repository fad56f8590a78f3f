/**
 * Walking a range of messages forward by anchor, as Zulip's anchor-based endpoints are walked (GET /messages,
 * POST /messages/flags/narrow): the first batch starts at the given anchor, each later one just after the
 * last message the previous batch reached, until a batch says it reached the newest message.
 */

/** Where a batch ended: the last message ID it reached (null: none), and whether that was the newest. */
export interface BatchEnd {
  lastId: number | null;
  foundNewest: boolean;
}

/**
 * The batches from `anchor` on: `fetch(anchor, includeAnchor)` sends one; `endOf` says where it ended. The
 * walk stops after a batch that reached the newest message or no message at all.
 */
export async function* walkForward<R>(
  anchor: string,
  fetch: (anchor: string, includeAnchor: boolean) => Promise<R>,
  endOf: (batch: R) => BatchEnd,
): AsyncGenerator<R> {
  let at = anchor;
  let includeAnchor = true;
  for (;;) {
    const batch = await fetch(at, includeAnchor);
    yield batch;
    const { lastId, foundNewest } = endOf(batch);
    if (foundNewest || lastId === null) return;
    at = String(lastId);
    includeAnchor = false;
  }
}
