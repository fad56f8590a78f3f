/** Outgoing webhooks: notifying outgoing-webhook bots of messages that trigger them. */
import type { HandlerContext } from './context.js';

/**
 * Called by message send, inside its transaction, once the message is stored. Schedules (ctx.defer) the
 * POST to each triggered bot's URL, so the sender's request never waits for it.
 */
export function afterMessageSent(_ctx: HandlerContext, _messageId: number): void {}
