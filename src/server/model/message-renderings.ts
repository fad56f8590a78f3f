/**
 * `GET /messages` from kept renderings (rendered-cache.ts): a message's wire form without its flags, as
 * everyone sees it, made once and given again while its row, its reactions and edits, its sender's and
 * recipients' rows, its channel and the organization's settings are unchanged. Each request still reads which
 * messages its narrow holds and the caller's flags on them; only the messages without a rendering that holds
 * are read whole.
 */
import type { FetchedMessage } from '../../api/operations/messages.js';
import { withJson } from '../../api/rendered-list.js';
import { changeLog } from '../store/changes.js';
import type { Db } from '../store/db.js';
import type { MessageRow } from './message-access.js';
import { madeOf, messageRenderingsOf, NO_FLAGS_TAIL, renderingKey, scoped } from './message-rendering-cache.js';
import { messagesToWire, wireFlags, type WireOptions } from './messages.js';
import type { Flagged } from './narrow.js';

/**
 * The messages `found` (ID order, each with the viewer's flags: narrow.ts fetchRange, flaggedInNarrow) in the
 * format of GET /messages, and their JSON (api/rendered-list.ts).
 */
export function keptFetchedMessages(db: Db, found: readonly Flagged[], opts: WireOptions, realmUrl: string): FetchedMessage[] {
  const cache = messageRenderingsOf(db);
  const at = changeLog(db).sync();
  const renderings = found.map(([id]) => cache.get(db, renderingKey(id, opts), realmUrl));
  const missing = found.filter((_, i) => renderings[i] === undefined).map(([id]) => id);
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
  const texts: string[] = [];
  // A caller's messages have few sets of flags between them: each is named and encoded once.
  const flagSets = new Map<number, { flags: string[]; json: string }>();
  found.forEach(([, flagBits], i) => {
    const rendering = renderings[i];
    if (!rendering) return;
    let set = flagSets.get(flagBits);
    if (!set) {
      const flags = wireFlags(flagBits);
      set = { flags, json: JSON.stringify(flags) };
      flagSets.set(flagBits, set);
    }
    // A copy of the kept value, whose `flags` is already its last key (scoped): the same shape for every message.
    const message = { ...rendering.value };
    message.flags = [...set.flags];
    messages.push(message);
    texts.push(`${rendering.json.slice(0, -NO_FLAGS_TAIL.length)}${set.json}}`);
  });
  return withJson(messages, texts.join(','));
}
