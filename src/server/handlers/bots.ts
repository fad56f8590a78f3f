/** Creating bots and deactivating them, with a Zulip server's checks in its order (add_bot_backend, deactivate_bot_backend). */
import { ApiError, badRequest, insufficientPermission, mustBe } from '../../api/errors.js';
import { createBot, deactivateBot } from '../../api/operations/bots.js';
import type { BotType } from '../../api/types.js';
import { bind, callerOf, type Binding } from '../context.js';
import { deactivate } from '../model/deactivation.js';
import {
  botAdminIds,
  canAdminUser,
  canCreateBot,
  checkBotCreationPolicy,
  checkBotNameAvailable,
  emitWithPerson,
  gravatarUrl,
  insertUser,
  isOwner,
  userById,
  type UserRow,
} from '../model/users.js';
import { holds } from '../permissions.js';
import { isValidEmail, isValidUrl, validateFullName } from '../model/validation.js';
import { getSetting, realmHost } from '../realm.js';
import { randomAlphanumeric } from '../../random.js';
import type { Db } from '../store/db.js';

/** The embedded bots a Zulip server ships; an embedded bot must be one of them. */
export const EMBEDDED_BOTS = ['converter', 'encrypt', 'helloworld', 'virtual_fs', 'giphy', 'followup'];

/** The bot types a user may create (a server's allowed_bot_types): generic ones need the general permission. */
const allowedBotTypes = (db: Db, caller: UserRow): number[] => [...(canCreateBot(db, caller, 1) ? [1] : []), 2, 3, 4];

/** The `services` of a bot as `realm_bot` events show them. */
function servicesOf(bot: UserRow, serviceName: string): Record<string, unknown>[] {
  if (bot.bot_type === 3) return [{ base_url: bot.service_base_url, interface: bot.service_interface, token: bot.service_token }];
  if (bot.bot_type === 4) return [{ service_name: serviceName, config_data: {} }];
  return [];
}

export const bindings: Binding[] = [
  bind(createBot, (ctx, p) => {
    const db = ctx.db;
    const caller = callerOf(ctx);
    const payloadUrl = p.payload_url ?? '';
    if (payloadUrl !== '' && !isValidUrl(payloadUrl)) throw badRequest('payload_url is not a URL');
    const shortName = p.short_name.trim();
    if (!shortName) throw badRequest('Bad name or username');
    const serviceName = p.bot_type === 2 ? (p.service_name ?? '') : p.service_name || shortName;
    const fullName = validateFullName(db, p.full_name);
    // Bot addresses live under the organization's own host, whatever host a request came in by.
    const email = `${shortName}-bot@${realmHost(getSetting(db, 'url'))}`;
    if (!isValidEmail(email)) throw badRequest('Bad name or username');
    if (p.bot_type === 4 && !EMBEDDED_BOTS.includes(serviceName)) throw badRequest('Invalid embedded bot name.');
    if (db.prepare('SELECT 1 FROM users WHERE email = ? COLLATE NOCASE').get(email)) throw badRequest('Username already in use');
    checkBotNameAvailable(db, fullName, false);
    checkBotCreationPolicy(db, caller, p.bot_type);
    if (!allowedBotTypes(db, caller).includes(p.bot_type)) throw badRequest('Invalid bot type');
    if (p.interface_type !== 1 && p.interface_type !== 2) throw badRequest('Invalid interface type');
    // An outgoing webhook with nowhere to post could never work.
    if (p.bot_type === 3 && payloadUrl === '') {
      throw new ApiError("Missing 'payload_url' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'payload_url' });
    }
    const isService = p.bot_type === 3 || p.bot_type === 4;
    const bot = insertUser(
      db,
      {
        email,
        full_name: fullName,
        is_bot: true,
        bot_type: p.bot_type as BotType,
        bot_owner_id: caller.id,
        service_base_url: isService ? payloadUrl : null,
        service_interface: isService ? p.interface_type : null,
        // What the outgoing webhook sends as `token`, for the receiver to check; never accepted back.
        service_token: isService ? randomAlphanumeric(32) : null,
      },
      ctx.nowSeconds(),
    );
    const avatarUrl = gravatarUrl(bot.email, bot.avatar_version);
    emitWithPerson(db, ctx, ctx.realmUrl, bot, (person) => ({ type: 'realm_user', op: 'add', person }));
    ctx.emit(
      {
        type: 'realm_bot',
        op: 'add',
        bot: {
          email: bot.email,
          user_id: bot.id,
          full_name: bot.full_name,
          bot_type: bot.bot_type,
          is_active: true,
          api_key: bot.api_key,
          default_sending_stream: null,
          default_events_register_stream: null,
          default_all_public_streams: false,
          avatar_url: avatarUrl,
          services: servicesOf(bot, serviceName),
          owner_id: caller.id,
        },
      },
      botAdminIds(db, bot),
    );
    return {
      user_id: bot.id,
      api_key: bot.api_key,
      avatar_url: avatarUrl,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
    };
  }),

  bind(deactivateBot, (ctx, p) => {
    const caller = callerOf(ctx);
    const bot = accessBot(caller, userById(ctx.db, p.bot_id));
    // An already deactivated bot stays so, and the request succeeds, as on a server.
    deactivate(ctx.db, ctx, bot, false);
    return {};
  }),
];

/** The bot an operation on bots names, with a server's checks and messages in its order (access_bot_by_id). */
function accessBot(caller: UserRow, target: UserRow | undefined): UserRow {
  if (!target || !target.is_bot) throw badRequest('No such bot');
  if (!canAdminUser(caller, target)) throw insufficientPermission();
  // A bot that may create users is an owner's business: owners rank above administrators.
  if (holds(target, 'can_create_users') && !isOwner(caller)) throw mustBe('owner');
  return target;
}
