/** Sending, fetching, editing and flagging messages; edit history; rendering. */
import { ApiError, badRequest } from '../../api/errors.js';
import {
  getMessage,
  getMessageHistory,
  getMessages,
  renderMessage,
  sendMessage,
  updateMessage,
  updateMessageFlags,
  updateMessageFlagsForNarrow,
  type FetchedMessage,
} from '../../api/operations/messages.js';
import { bind, callerOf, type Handlers, type HandlerContext } from '../context.js';
import { getSetting } from '../model/realm.js';
import { accessMessage } from '../model/message-access.js';
import { editMessage } from '../model/message-edit.js';
import { updateFlags } from '../model/message-flags.js';
import { messageHistory } from '../model/message-history.js';
import { keptFetchedMessages } from '../model/message-renderings.js';
import * as messages from '../model/messages.js';
import {
  fetchRange,
  flaggedInNarrow,
  highlightHtml,
  highlightTopic,
  messagesInNarrow,
  narrowQuery,
  parseAnchor,
  parseNarrow,
  type Flagged,
  type NarrowQuery,
} from '../model/narrow.js';
import { renderMarkdown } from '../model/render.js';
import { changeLog } from '../store/changes.js';
import { afterMessageSent } from '../webhooks.js';

const MAX_MESSAGES_PER_FETCH = 5000;

/**
 * The messages of `ids` that match the narrow, with the caller's flags, in ID order; `flagged`: the same with
 * the caller's flags, when the narrow's range was read with them.
 */
function fetchedMessages(
  ctx: HandlerContext,
  q: NarrowQuery,
  ids: readonly number[],
  opts: { apply_markdown: boolean; client_gravatar: boolean; allow_empty_topic_name: boolean },
  keptAt: number | undefined,
  flagged?: readonly Flagged[],
): FetchedMessage[] {
  const wireOptions = { applyMarkdown: opts.apply_markdown, clientGravatar: opts.client_gravatar, allowEmptyTopicName: opts.allow_empty_topic_name };
  // A search's highlights are the request's own: those answers are made whole.
  if (keptAt !== undefined && !q.searchWords.length) {
    return keptFetchedMessages(ctx.db, flagged ?? flaggedInNarrow(ctx.db, q, ids), wireOptions, ctx.realmUrl, keptAt);
  }
  const rows = messagesInNarrow(ctx.db, q, ids);
  const wire = messages.messagesToWire(ctx.db, rows, wireOptions, ctx.realmUrl);
  return wire.map((m, i) => {
    const out: FetchedMessage = { ...m, flags: messages.wireFlags(rows[i]!.viewer_flags) };
    if (q.searchWords.length) {
      out.match_content = highlightHtml(rows[i]!.rendered_content, q.searchWords);
      out.match_subject = highlightTopic(m.subject, q.searchWords);
    }
    return out;
  });
}

const incompatible = (parameters: string[]): ApiError =>
  new ApiError(`Unsupported parameter combination: ${parameters.join(', ')}`, 'BAD_REQUEST', 400, { parameters });

export const handlers: Handlers<'messages'> = {
  sendMessage: bind(sendMessage, (ctx, p) => {
    const answer = messages.sendMessageAnswer(ctx, callerOf(ctx), {
      type: p.type,
      to: p.to,
      topic: p.topic,
      content: p.content,
      readBySender: p.read_by_sender,
      client: messages.clientName(ctx.userAgent),
    });
    afterMessageSent(ctx, answer.id);
    return answer;
  }),

  getMessages: bind(getMessages, (ctx, p) => {
    const user = callerOf(ctx);
    if (p.message_ids !== undefined) {
      if (p.anchor !== undefined) throw incompatible(['anchor', 'message_ids']);
      if (p.num_before || p.num_after) throw incompatible(['num_before', 'num_after', 'message_ids']);
    }
    const anchor = p.message_ids === undefined ? parseAnchor(p.anchor) : undefined;
    const requested = p.message_ids ? p.message_ids.length : p.num_before + p.num_after;
    if (requested > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    if (p.num_before > 0 && p.num_after > 0 && !p.include_anchor) throw badRequest('The anchor can only be excluded at an end of the range');
    // Kept values (channels, renderings) are given only to who writes the answer as JSON (serve), as of the
    // change log read first in this transaction.
    const keptAt = ctx.rendersJson ? changeLog(ctx.db).sync() : undefined;
    const q = narrowQuery(ctx.db, user, parseNarrow(p.narrow), keptAt);
    if (anchor === undefined) {
      return { messages: fetchedMessages(ctx, q, p.message_ids!, p, keptAt), history_limited: false };
    }
    const range = fetchRange(ctx.db, user, q, { anchor, includeAnchor: p.include_anchor, numBefore: p.num_before, numAfter: p.num_after });
    return {
      messages: fetchedMessages(ctx, q, range.ids, p, keptAt, range.flagged),
      anchor: range.anchor,
      found_anchor: range.foundAnchor,
      found_oldest: range.foundOldest,
      found_newest: range.foundNewest,
      history_limited: false,
    };
  }),

  getMessage: bind(getMessage, (ctx, p) => {
    const user = callerOf(ctx);
    const row = accessMessage(ctx.db, user, p.message_id);
    const [wire] = messages.messagesToWire(
      ctx.db,
      [row],
      { applyMarkdown: p.apply_markdown, clientGravatar: false, allowEmptyTopicName: p.allow_empty_topic_name },
      ctx.realmUrl,
    );
    return { raw_content: row.content, message: { ...wire!, flags: messages.viewerFlags(ctx.db, user, row.id) } };
  }),

  updateMessage: bind(updateMessage, (ctx, p) => {
    const detached = editMessage(ctx, callerOf(ctx), {
      messageId: p.message_id,
      content: p.content,
      topic: p.topic,
      streamId: p.stream_id,
      propagateMode: p.propagate_mode,
    });
    return { detached_uploads: detached };
  }),

  getMessageHistory: bind(getMessageHistory, (ctx, p) => {
    if (!getSetting(ctx.db, 'allow_edit_history')) throw badRequest('Message edit history is disabled in this organization');
    const message = accessMessage(ctx.db, callerOf(ctx), p.message_id);
    return { message_history: messageHistory(ctx.db, message, p.allow_empty_topic_name) };
  }),

  updateMessageFlags: bind(updateMessageFlags, (ctx, p) => {
    const change = updateFlags(ctx, callerOf(ctx), p.op, p.flag, p.messages);
    // The request's own list, as a Zulip server answers for old clients' sake.
    return change.ignoredChannels ? { messages: p.messages, ignored_because_not_subscribed_channels: change.ignoredChannels } : { messages: p.messages };
  }),

  updateMessageFlagsForNarrow: bind(updateMessageFlagsForNarrow, (ctx, p) => {
    const user = callerOf(ctx);
    const anchor = parseAnchor(p.anchor);
    if (p.num_before > 0 && p.num_after > 0 && !p.include_anchor) throw badRequest('The anchor can only be excluded at an end of the range');
    // Large ranges are cut, not refused, to bound the transaction.
    const numBefore = Math.min(p.num_before, Math.max(MAX_MESSAGES_PER_FETCH - p.num_after, MAX_MESSAGES_PER_FETCH / 2));
    const numAfter = Math.min(p.num_after, MAX_MESSAGES_PER_FETCH - numBefore);
    const q = narrowQuery(ctx.db, user, parseNarrow(p.narrow));
    const range = fetchRange(ctx.db, user, q, { anchor, includeAnchor: p.include_anchor, numBefore, numAfter });
    const change = updateFlags(ctx, user, p.op, p.flag, range.ids);
    const result = {
      processed_count: range.ids.length,
      updated_count: change.changed.length,
      first_processed_id: range.ids[0] ?? null,
      last_processed_id: range.ids.at(-1) ?? null,
      found_oldest: range.foundOldest,
      found_newest: range.foundNewest,
    };
    return change.ignoredChannels ? { ...result, ignored_because_not_subscribed_channels: change.ignoredChannels } : result;
  }),

  renderMessage: bind(renderMessage, (ctx, p) => ({ rendered: renderMarkdown(ctx.db, p.content, { senderId: callerOf(ctx).id }).html })),
};
