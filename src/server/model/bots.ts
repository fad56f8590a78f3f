/**
 * Bots: who may create which, creating one with a Zulip server's checks in its order (add_bot_backend), and
 * who may act on one (access_bot_by_id). Bots are users; their rows are users.ts's.
 */
import { ApiError, badRequest, insufficientPermission, mustBe } from '../../api/errors.js';
import { BOT_TYPES, INTERFACE_TYPES, type CreatedBot, type OwnedBot } from '../../api/operations/bots.js';
import type { BotType } from '../../api/types.js';
import { randomAlphanumeric } from '../../random.js';
import type { EventSink } from '../context.js';
import { holds } from './user-permissions.js';
import { getSetting } from './realm.js';
import { mayUse } from './realm-permissions.js';
import type { Db } from '../store/db.js';
import { emitWithPerson } from './user-events.js';
import { gravatarUrl } from './user-view.js';
import { botAdminIds, canAdminUser, emailTaken, insertUser, isAdmin, isOwner, type UserRow } from './users.js';
import { isValidEmail, isValidUrl, validateFullName } from './validation.js';

/** The embedded bots a Zulip server ships; an embedded bot must be one of them. */
export const EMBEDDED_BOTS = ['converter', 'encrypt', 'helloworld', 'virtual_fs', 'giphy', 'followup'];

/** Whether the realm's bot permissions let `caller` create a bot of this type (administrators always). */
export function canCreateBot(db: Db, caller: UserRow, botType: number): boolean {
  if (isAdmin(caller) || mayUse(db, caller, 'can_create_bots_group')) return true;
  // Incoming-webhook bots can only post, so a realm may let more people create them.
  return botType === BOT_TYPES.incoming_webhook && mayUse(db, caller, 'can_create_write_only_bots_group');
}

/** A server's check_bot_creation_policy. */
export function checkBotCreationPolicy(db: Db, caller: UserRow, botType: number): void {
  if (!canCreateBot(db, caller, botType)) throw mustBe('administrator');
}

/** Two active accounts with one name would be confusing; bots are refused one (a server's check_bot_name_available). */
export function checkBotNameAvailable(db: Db, fullName: string, isActivation: boolean): void {
  // Exact, as the server compares; the first (case-blind) condition is what lets SQLite use the name index.
  const name = fullName.trim();
  const taken = db.prepare('SELECT 1 FROM users WHERE full_name = ? COLLATE NOCASE AND full_name = ? AND is_active = 1 AND is_system_bot = 0').get(name, name);
  if (!taken) return;
  if (isActivation) {
    throw badRequest(
      `There is already an active bot named "${fullName}" in this organization. To reactivate this bot, you must rename or deactivate the other one first.`,
    );
  }
  throw badRequest('Name is already in use!');
}

/** The bot types a user may create (a server's allowed_bot_types): generic ones need the general permission. */
const allowedBotTypes = (db: Db, caller: UserRow): number[] => [
  ...(canCreateBot(db, caller, BOT_TYPES.generic) ? [BOT_TYPES.generic] : []),
  BOT_TYPES.incoming_webhook,
  BOT_TYPES.outgoing_webhook,
  BOT_TYPES.embedded,
];

/** The `services` of a bot as `realm_bot` events show them. */
function servicesOf(bot: UserRow, serviceName: string): Record<string, unknown>[] {
  if (bot.bot_type === BOT_TYPES.outgoing_webhook) return [{ base_url: bot.service_base_url, interface: bot.service_interface, token: bot.service_token }];
  if (bot.bot_type === BOT_TYPES.embedded) return [{ service_name: serviceName, config_data: {} }];
  return [];
}

export interface NewBot {
  full_name: string;
  short_name: string;
  bot_type: number;
  payload_url?: string | null;
  interface_type: number;
  service_name?: string;
}

/** Creates a bot owned by `caller` and announces it (`realm_user` to everyone, `realm_bot` to its administrators). */
export function addBot(db: Db, sink: EventSink, caller: UserRow, p: NewBot, now: number, realmUrl: string): CreatedBot {
  const payloadUrl = p.payload_url ?? '';
  // Zulip's check_url takes Django's ftp and ftps too, which its outgoing-webhook worker can only fail on;
  // the message is check_url's (zerver/lib/validator.py).
  if (payloadUrl !== '' && (!isValidUrl(payloadUrl) || !/^https?:/i.test(payloadUrl))) throw badRequest('payload_url is not a URL');
  const shortName = p.short_name.trim();
  if (!shortName) throw badRequest('Bad name or username');
  const serviceName = p.bot_type === BOT_TYPES.incoming_webhook ? (p.service_name ?? '') : p.service_name || shortName;
  const fullName = validateFullName(db, p.full_name);
  // Under the organization's domain, whatever host the request came in by (views/users.py add_bot_backend).
  const email = `${shortName}-bot@${getSetting(db, 'bot_domain')}`;
  if (!isValidEmail(email)) throw badRequest('Bad name or username');
  if (p.bot_type === BOT_TYPES.embedded && !EMBEDDED_BOTS.includes(serviceName)) throw badRequest('Invalid embedded bot name.');
  if (emailTaken(db, email)) throw badRequest('Username already in use');
  checkBotNameAvailable(db, fullName, false);
  checkBotCreationPolicy(db, caller, p.bot_type);
  if (!allowedBotTypes(db, caller).includes(p.bot_type)) throw badRequest('Invalid bot type');
  if (p.interface_type !== INTERFACE_TYPES.generic && p.interface_type !== INTERFACE_TYPES.slack) throw badRequest('Invalid interface type');
  // An outgoing webhook with nowhere to post could never work.
  if (p.bot_type === BOT_TYPES.outgoing_webhook && payloadUrl === '') {
    throw new ApiError("Missing 'payload_url' argument", 'REQUEST_VARIABLE_MISSING', 400, { var_name: 'payload_url' });
  }
  const isService = p.bot_type === BOT_TYPES.outgoing_webhook || p.bot_type === BOT_TYPES.embedded;
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
    now,
  );
  const avatarUrl = gravatarUrl(bot.email, bot.avatar_version);
  emitWithPerson(db, sink, realmUrl, bot, (person) => ({ type: 'realm_user', op: 'add', person }));
  sink.emit(
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
}

/**
 * The active bots `owner` owns, oldest first (zerver/views/users.py get_bots_backend: owned ones only, whatever
 * the owner's role). The embedded server keeps no default channels for bots: those are always unset.
 */
export function ownedBots(db: Db, owner: UserRow): OwnedBot[] {
  const rows = db
    .prepare('SELECT email, full_name, api_key, avatar_version FROM users WHERE bot_owner_id = ? AND is_bot = 1 AND is_active = 1 ORDER BY date_joined, id')
    .all(owner.id) as Pick<UserRow, 'email' | 'full_name' | 'api_key' | 'avatar_version'>[];
  return rows.map((bot) => ({
    username: bot.email,
    full_name: bot.full_name,
    api_key: bot.api_key,
    avatar_url: gravatarUrl(bot.email, bot.avatar_version),
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
  }));
}

/** The bot an operation on bots names, with a server's checks and messages in its order (access_bot_by_id). */
export function accessBot(caller: UserRow, target: UserRow | undefined): UserRow {
  if (!target?.is_bot) throw badRequest('No such bot');
  if (!canAdminUser(caller, target)) throw insufficientPermission();
  // A bot that may create users is an owner's business: owners rank above administrators.
  if (holds(target, 'can_create_users') && !isOwner(caller)) throw mustBe('owner');
  return target;
}
