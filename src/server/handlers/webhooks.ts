/**
 * What an outgoing-webhook bot receives, shown to the bot itself: the payload of its newest triggering
 * message, or, before any, a sample built the same way.
 */
import { badRequest } from '../../api/errors.js';
import { getOutgoingWebhookPayload, getZulipOutgoingWebhookPayload } from '../../api/operations/webhooks.js';
import { bind, callerOf, type Handlers, type HandlerContext } from '../context.js';
import { samplePayload, webhookMessage, webhookPayload } from '../outgoing/payload.js';
import { newestTrigger } from '../model/outgoing-triggers.js';

function payloadFor(ctx: HandlerContext) {
  const bot = callerOf(ctx);
  if (!bot.is_bot || bot.bot_type !== 3) throw badRequest('This endpoint is only available to outgoing webhook bots.');
  const newest = newestTrigger(ctx.db, bot.id);
  if (!newest) return samplePayload(ctx.db, bot, ctx.nowSeconds(), ctx.realmUrl);
  return webhookPayload(bot, webhookMessage(ctx.db, newest.messageId, ctx.realmUrl), newest.trigger);
}

export const handlers: Handlers<'webhooks'> = {
  getOutgoingWebhookPayload: bind(getOutgoingWebhookPayload, payloadFor),
  getZulipOutgoingWebhookPayload: bind(getZulipOutgoingWebhookPayload, payloadFor),
};
