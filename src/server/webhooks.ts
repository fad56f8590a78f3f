/** Outgoing webhooks: notifying outgoing-webhook bots of messages that trigger them. */
import type { HandlerContext } from './context.js';
import { deliver, prepareDelivery } from './outgoing/deliver.js';
import { webhookMessage } from './outgoing/payload.js';
import { triggeredBots } from './model/outgoing-triggers.js';
import { getSetting } from './model/realm.js';

/**
 * Called by message send, inside its transaction, once the message is stored. Schedules (ctx.defer) the
 * POST to each triggered bot's URL, so the sender's request never waits for it.
 */
export function afterMessageSent(ctx: HandlerContext, messageId: number): void {
  const triggered = triggeredBots(ctx.db, messageId);
  if (triggered.length === 0) return;
  const message = webhookMessage(ctx.db, messageId, ctx.realmUrl);
  for (const { bot, trigger } of triggered) {
    const delivery = prepareDelivery(bot, message, trigger, getSetting(ctx.db, 'bot_domain'));
    ctx.defer(() => deliver(ctx, delivery));
  }
}
