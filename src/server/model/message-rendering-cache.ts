/**
 * Where `serve` keeps messages' renderings (rendered-cache.ts), shared by what reads them (GET /messages:
 * message-renderings.ts) and what makes them first (a message just sent: messages.ts).
 */
import type { FetchedMessage, WireMessage } from '../../api/operations/messages.js';
import type { HandlerContext } from '../context.js';
import { changeLog, dependency, type Dependency } from '../store/changes.js';
import type { Db } from '../store/db.js';
import type { WireOptions } from './messages.js';
import { getSetting } from './realm.js';
import { leavesGravatarToClient } from './user-view.js';
import type { UserRow } from './users.js';
import { renderedCacheOf, type RenderedCache, type RenderedCacheLimits, type Rendering } from './rendered-cache.js';

/**
 * Messages' renderings kept per connection: a short message is about 700 characters of JSON. Each is kept as
 * GET /messages gives it, with an empty `flags` last (scoped), for the caller's flags to go in its place.
 */
const messageRenderings = new WeakMap<Db, RenderedCache<FetchedMessage>>();
export const MESSAGE_RENDERINGS: RenderedCacheLimits = { entries: 10_000, characters: 8 * 1024 * 1024 };

/** The renderings of messages kept for `db`. */
export const messageRenderingsOf = (db: Db): RenderedCache<FetchedMessage> => renderedCacheOf(messageRenderings, db, MESSAGE_RENDERINGS);

/**
 * Where a message's rendering is kept: it is the same whoever asks (messages.ts messagesToWire), and depends on
 * the rows it was made of and on how it was asked for.
 */
export const renderingKey = (id: number, opts: WireOptions): number =>
  id * 8 + (opts.clientGravatar ? 4 : 0) + (opts.applyMarkdown === false ? 0 : 2) + (opts.allowEmptyTopicName ? 1 : 0);

/**
 * A message's rendering with what it depends on besides its rows (a system bot's avatar is a file under the URL
 * the request came by), and an empty `flags` as its last key: each reader's copy of it then has the same shape,
 * its flags set in place (adding the key to a copy made V8 build a new hidden class for every message of every
 * answer), and its JSON ends in NO_FLAGS_TAIL, where the reader's flags go.
 */
export const scoped = (message: WireMessage, realmUrl: string): Rendering<FetchedMessage> => {
  const value: FetchedMessage = { ...message, flags: [] };
  return { value, json: JSON.stringify(value), ...(message.sender_realm_str ? { scope: realmUrl } : {}) };
};

/** How the JSON of a kept rendering ends: its empty flags, then the object's end. */
export const NO_FLAGS_TAIL = '[]}';

/**
 * Keeps the rendering of a message just sent (`message`, made for its events: HTML, avatar URLs given) once
 * its transaction has committed, as GET /messages asks for it by default (HTML, client_gravatar) and as the
 * events have it: the next reader of the conversation, to whom it is new, does not render it again.
 * `sender`: whether a client computing Gravatars computes theirs is messagesToWire's rule.
 */
export function keepSentMessage(
  db: Db,
  ctx: Pick<HandlerContext, 'realmUrl'> & Partial<Pick<HandlerContext, 'rendersJson' | 'defer'>>,
  message: WireMessage,
  sender: Pick<UserRow, 'is_bot' | 'is_system_bot'>,
): void {
  if (!ctx.rendersJson || !ctx.defer) return;
  const leftToClient = leavesGravatarToClient(getSetting(db, 'email_address_visibility'), sender);
  // In the sending transaction: the rendering is as of the changes it holds, its own included.
  const at = changeLog(db).newest();
  const made = madeOf(message);
  const given = scoped(message, ctx.realmUrl);
  // Asked for with client_gravatar, it differs only where the client computes the sender's Gravatar.
  const leftOut = leftToClient ? scoped({ ...message, avatar_url: null }, ctx.realmUrl) : given;
  ctx.defer(async () => {
    const cache = messageRenderingsOf(db);
    cache.set(renderingKey(message.id, { applyMarkdown: true, clientGravatar: false }), at, made, given);
    cache.set(renderingKey(message.id, { applyMarkdown: true, clientGravatar: true }), at, made, leftOut);
  });
}

/** The rows a message's rendering is made of. */
export function madeOf(m: WireMessage): Dependency[] {
  const made = [dependency('message', m.id), dependency('user', m.sender_id), dependency('realm', 0)];
  if (m.stream_id !== undefined) made.push(dependency('channel', m.stream_id));
  if (Array.isArray(m.display_recipient)) for (const u of m.display_recipient) made.push(dependency('user', u.id));
  return made;
}
