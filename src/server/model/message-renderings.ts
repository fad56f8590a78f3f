/**
 * `GET /messages` from kept renderings (rendered-cache.ts): a message's wire form without its flags, as
 * everyone sees it, made once and given again while its row, its reactions and edits, its sender's and
 * recipients' rows, its channel and the organization's settings are unchanged. Each request still reads which
 * messages its narrow holds and the caller's flags on them; only the messages without a rendering that holds
 * are read whole.
 */
import type { FetchedMessage } from '../../api/operations/messages.js';
import { withJson } from '../../api/rendered-list.js';
import type { Db } from '../store/db.js';
import type { MessageRow } from './message-access.js';
import { madeOf, messageRenderingsOf, NO_FLAGS_TAIL, renderingKey, scoped } from './message-rendering-cache.js';
import { messagesToWire, wireFlags, type WireOptions } from './messages.js';
import type { Flagged } from './narrow.js';
import type { Form, KeptRendering, Rendering } from './rendered-cache.js';

/**
 * The messages `found` (ID order, each with the viewer's flags: narrow.ts fetchRange, flaggedInNarrow) in the
 * format of GET /messages, and their JSON (api/rendered-list.ts); `at`: the change log's newest change, synced
 * in this (read) transaction.
 */
export function keptFetchedMessages(db: Db, found: readonly Flagged[], opts: WireOptions, realmUrl: string, at: number): FetchedMessage[] {
  const cache = messageRenderingsOf(db);
  const renderings: (KeptRendering<FetchedMessage> | Rendering<FetchedMessage> | undefined)[] = [];
  const missing: number[] = [];
  for (const [id] of found) {
    const kept = cache.get(db, renderingKey(id, opts), realmUrl);
    renderings.push(kept);
    if (!kept) missing.push(id);
  }
  if (missing.length) {
    const rows = db.prepare('SELECT * FROM messages WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id').all(JSON.stringify(missing)) as MessageRow[];
    const made = new Map(messagesToWire(db, rows, opts, realmUrl).map((value) => [value.id, value]));
    found.forEach(([id], i) => {
      const value = made.get(id);
      if (renderings[i] || !value) return;
      const rendering = scoped(value, realmUrl);
      renderings[i] = rendering;
      cache.set(renderingKey(id, opts), at, madeOf(value), rendering);
    });
  }
  const messages: FetchedMessage[] = [];
  let json = '';
  for (let i = 0; i < found.length; i++) {
    const rendering = renderings[i];
    if (!rendering) continue;
    const flagged = withFlags(rendering, found[i]![1]);
    messages.push(flagged.value);
    json += messages.length === 1 ? flagged.json : `,${flagged.json}`;
  }
  return withJson(messages, json);
}

/**
 * Each kept rendering as the callers with one set of flags on its message get it (value and JSON), by flag bits:
 * made once and given to every caller with those flags; the values are shared, as only `serve`, which writes
 * them as JSON, takes kept values. A message has few sets of flags among its readers (read, historical,
 * mentioned, starred ...): past MAX_FLAG_SETS a form is made for its request alone, as it is for a rendering
 * made for this request (not kept). Copying each message for each caller was half of what assembling an answer cost.
 */
const MAX_FLAG_SETS = 8;

function withFlags(rendering: KeptRendering<FetchedMessage> | Rendering<FetchedMessage>, flagBits: number): Rendering<FetchedMessage> {
  // A kept rendering has its forms (made the first time one is asked for); one made for this request has none.
  let forms: Form<FetchedMessage>[] | undefined;
  if ('forms' in rendering) {
    rendering.forms ??= [];
    forms = rendering.forms;
    for (const form of forms) if (form.bits === flagBits) return form;
  }
  // The kept value has `flags` as its last key already (scoped): the copy has its shape, and its JSON ends there.
  const value = { ...rendering.value };
  value.flags = wireFlags(flagBits);
  const form = { value, json: `${rendering.json.slice(0, -NO_FLAGS_TAIL.length)}${JSON.stringify(value.flags)}}`, bits: flagBits };
  if (forms && forms.length < MAX_FLAG_SETS) forms.push(form);
  return form;
}
