/** Creating bots, listing one's own and deactivating them (model/bots.ts holds a Zulip server's checks, in its order). */
import { createBot, deactivateBot, getBots } from '../../api/operations/bots.js';
import { bind, callerOf, type Handlers } from '../context.js';
import { accessBot, addBot, ownedBots } from '../model/bots.js';
import { deactivate } from '../model/deactivation.js';
import { userById } from '../model/users.js';

export const handlers: Handlers<'bots'> = {
  createBot: bind(createBot, (ctx, p) => addBot(ctx.db, ctx, callerOf(ctx), p, ctx.nowSeconds(), ctx.realmUrl)),

  getBots: bind(getBots, (ctx) => ({ bots: ownedBots(ctx.db, callerOf(ctx)) })),

  deactivateBot: bind(deactivateBot, (ctx, p) => {
    const bot = accessBot(callerOf(ctx), userById(ctx.db, p.bot_id));
    // An already deactivated bot stays so, and the request succeeds, as on a server.
    deactivate(ctx.db, ctx, bot, false);
    return {};
  }),
};
