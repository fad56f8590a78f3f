/**
 * The answers of a Zulip-compatible server that chatctl recognises, declared once: what each means (a stable
 * name that code compares instead of English), the exit kind it implies, and how it is told apart. A Zulip
 * server says most things with 400 BAD_REQUEST and a sentence, "not found" and "forbidden" included, so the
 * sentence is often all there is. Where the embedded server raises one of these through api/errors.ts, the
 * helper and the entry share the declaration below, so the two cannot drift.
 *
 * Order matters: `classify` returns the first entry that matches. Credentials come first (a 401 is an
 * authentication failure whatever it says), then temporary failures, permission, not found, and last the
 * answers recognised for what follows them rather than for their exit code. Within a kind the specific
 * entries come before the ones matched by status alone.
 */
import type { ExitKind } from '../errors.js';
import type { ApiError, ErrorCode } from './errors.js';

/** The role decorators' answer: `Must be an organization administrator` (owner, member). */
export const ROLE_REQUIRED = 'Must be an organization';
/** The generic refusal of an action the caller's role or group settings do not allow. */
export const INSUFFICIENT_PERMISSION = 'Insufficient permission';

/** How an answer is told apart; any one of the ways given is enough. */
export interface Recognition {
  readonly code?: ErrorCode;
  /** An HTTP status, or any 5xx. */
  readonly status?: number | '5xx';
  /** The whole message, exactly. */
  readonly message?: string;
  /** The start of the message: a server adds the ID or name it did not find. */
  readonly prefix?: string;
  readonly pattern?: RegExp;
}

export interface ServerMessage extends Recognition {
  readonly meaning: string;
  readonly kind: ExitKind;
}

export const SERVER_MESSAGES = [
  // Credentials: the Basic-auth wrapper answers 401 UNAUTHORIZED (zerver/decorator.py); the other codes come
  // from POST /fetch_api_key (zerver/views/auth.py), INVALID_API_KEY from key checks outside the wrapper.
  { meaning: 'invalidApiKey', kind: 'auth', code: 'INVALID_API_KEY' },
  { meaning: 'userDeactivated', kind: 'auth', code: 'USER_DEACTIVATED' },
  { meaning: 'realmDeactivated', kind: 'auth', code: 'REALM_DEACTIVATED' },
  { meaning: 'authenticationFailed', kind: 'auth', code: 'AUTHENTICATION_FAILED' },
  { meaning: 'passwordAuthDisabled', kind: 'auth', code: 'PASSWORD_AUTH_DISABLED' },
  { meaning: 'passwordResetRequired', kind: 'auth', code: 'PASSWORD_RESET_REQUIRED' },
  { meaning: 'unauthorized', kind: 'auth', code: 'UNAUTHORIZED', status: 401 },

  // Worth rescheduling: a rate limit (RATE_LIMIT_HIT) or the server, or something before it, failing.
  { meaning: 'rateLimited', kind: 'temporary', status: 429 },
  { meaning: 'serverError', kind: 'temporary', status: '5xx' },

  // Permission.
  // views/users.py create_user_backend: an administrator without the per-user can_create_users flag.
  { meaning: 'notAuthorizedToCreateUsers', kind: 'permission', message: 'User not authorized to create users' },
  // decorator.py require_realm_admin / require_realm_owner / require_member_or_admin, raising the
  // OrganizationAdministratorRequiredError family of lib/exceptions.py (400 UNAUTHORIZED_PRINCIPAL).
  { meaning: 'roleRequired', kind: 'permission', code: 'UNAUTHORIZED_PRINCIPAL', prefix: ROLE_REQUIRED },
  // lib/exceptions.py and the access checks of lib/users.py, lib/user_groups.py, lib/streams.py.
  { meaning: 'insufficientPermission', kind: 'permission', prefix: INSUFFICIENT_PERMISSION },
  // decorator.py require_member_or_admin, require_non_guest_user.
  { meaning: 'notForGuests', kind: 'permission', prefix: 'Not allowed for guest users' },
  // decorator.py human_users_only / require_member_or_admin: `This endpoint does not accept bot requests.`
  { meaning: 'notForBots', kind: 'permission', prefix: 'This endpoint does not accept bot requests' },
  // Editing (lib/message_edit.py) and deleting messages, subscribing others (views/streams.py), wildcard mentions.
  { meaning: 'noPermission', kind: 'permission', pattern: /^You (do not|don't) have permission/ },
  // `User not authorized for this query` (GET /streams), `... to change user emails` (PATCH /users/{id}).
  { meaning: 'notAuthorized', kind: 'permission', prefix: 'User not authorized' },
  // lib/streams.py list_to_streams: subscribing to a private channel the caller cannot reach.
  { meaning: 'cannotAccessChannel', kind: 'permission', prefix: 'Unable to access channel' },
  // lib/streams.py access_stream_for_send_message, the channel's posting policy (2024 wording; current servers
  // say `You do not have permission to post in this channel.`, matched above).
  { meaning: 'cannotPostHere', kind: 'permission', pattern: /^(Not authorized to send to channel|(Guests|New members) cannot send to this channel)/ },
  { meaning: 'accessDenied', kind: 'permission', prefix: 'Access denied' },
  { meaning: 'organizationRoleOnly', kind: 'permission', prefix: 'Only organization' },
  { meaning: 'forbidden', kind: 'permission', status: 403 },

  // Not found.
  // lib/users.py access_user_by_id (bots too, on DELETE /users/{id}).
  { meaning: 'noSuchUser', kind: 'notFound', prefix: 'No such user' },
  // lib/users.py user_ids_to_users, lib/recipient_users.py: `Invalid user ID: 10`, `Invalid user ID 10`.
  { meaning: 'invalidUserId', kind: 'notFound', prefix: 'Invalid user ID' },
  // lib/message.py access_message.
  { meaning: 'noSuchMessage', kind: 'notFound', prefix: 'Invalid message(s)' },
  // lib/streams.py access_stream_by_id (also for a channel the caller cannot see); invites add `. No invites were sent.`
  { meaning: 'noSuchChannel', kind: 'notFound', prefix: 'Invalid channel ID' },
  // lib/streams.py access_stream_by_name: `Invalid channel name 'x'`.
  { meaning: 'noSuchChannelName', kind: 'notFound', prefix: 'Invalid channel name' },
  // The same, in the words of servers from before the rename to channels.
  { meaning: 'noSuchStream', kind: 'notFound', prefix: 'Invalid stream ID' },
  // lib/exceptions.py StreamWithIDDoesNotExistError, StreamDoesNotExistError: `Channel with ID '9' does not exist`,
  // `Channel 'x' does not exist`.
  { meaning: 'channelDoesNotExist', kind: 'notFound', code: 'STREAM_DOES_NOT_EXIST', prefix: 'Channel with ID', pattern: /^Channel '.*' does not exist/ },
  // lib/user_groups.py access_user_group_by_id: `Invalid user group`, `Invalid user group ID: 5`.
  { meaning: 'noSuchGroup', kind: 'notFound', prefix: 'Invalid user group' },
  // views/attachments.py remove: not found, or not the caller's.
  { meaning: 'noSuchAttachment', kind: 'notFound', prefix: 'Invalid attachment' },
  // actions/realm_linkifiers.py: `Linkifier not found.`
  { meaning: 'noSuchLinkifier', kind: 'notFound', prefix: 'Linkifier not found' },
  // lib/channel_folders.py get_channel_folder_by_id.
  { meaning: 'noSuchChannelFolder', kind: 'notFound', prefix: 'Invalid channel folder ID' },
  // views/realm_domains.py: `No entry found for domain example.com.`
  { meaning: 'noSuchDomain', kind: 'notFound', prefix: 'No entry found for domain' },
  // tornado/exceptions.py BadEventQueueIdError: `Bad event queue ID: <id>`.
  { meaning: 'noSuchEventQueue', kind: 'notFound', code: 'BAD_EVENT_QUEUE_ID', prefix: 'Bad event queue ID' },
  // lib/exceptions.py ReactionDoesNotExistError, removing a reaction: `Reaction doesn't exist.`
  { meaning: 'noSuchReaction', kind: 'notFound', code: 'REACTION_DOES_NOT_EXIST', prefix: "Reaction doesn't exist" },
  // views/invite.py: revoking or resending an invitation that is not there.
  { meaning: 'noSuchInvitation', kind: 'notFound', prefix: 'No such invitation' },
  { meaning: 'invalidInvitationId', kind: 'notFound', prefix: 'Invalid invitation ID' },
  // lib/emoji.py check_emoji_request: a custom emoji code that names none (statuses, reactions).
  { meaning: 'noSuchCustomEmoji', kind: 'notFound', message: 'Invalid custom emoji.' },
  // lib/emoji.py: `Emoji 'x' does not exist` (statuses, reactions; 404 on DELETE /realm/emoji/{name}).
  { meaning: 'noSuchEmoji', kind: 'notFound', pattern: /^Emoji '.*' does not exist/ },
  // lib/narrow.py (BAD_NARROW): a narrow naming a channel or user that is not there.
  { meaning: 'narrowNamesNothing', kind: 'notFound', pattern: /^Invalid narrow operator: unknown (channel|user)/ },
  // lib/exceptions.py ResourceNotFoundError, and InvalidSubdomainError (NONEXISTENT_SUBDOMAIN) for a host that
  // names no organization.
  { meaning: 'notFound', kind: 'notFound', status: 404 },

  // Recognised for what chatctl does next, exiting 1 as any failure.
  // lib/exceptions.py ChannelExistsError (POST /channels/create, renaming), HTTP 409: `Channel 'x' already exists`.
  { meaning: 'channelExists', kind: 'failure', code: 'CHANNEL_ALREADY_EXISTS', pattern: /^Channel '.*' already exists/ },
  // actions/realm_linkifiers.py reorder: `The ordered list must not contain duplicated linkifiers`,
  // `... must enumerate all existing linkifiers exactly once`.
  { meaning: 'linkifierOrderMismatch', kind: 'failure', prefix: 'The ordered list must' },
  // views/users.py create_user_backend: POST /users for an address that has an account, `Email 'x' already in use`.
  { meaning: 'emailInUse', kind: 'failure', pattern: /^Email '.*' already in use/ },
  // lib/exceptions.py ReactionExistsError: adding a reaction the caller already made, `Reaction already exists.`
  { meaning: 'reactionExists', kind: 'failure', code: 'REACTION_ALREADY_EXISTS', prefix: 'Reaction already exists' },
] as const satisfies readonly ServerMessage[];

export type Recognised = (typeof SERVER_MESSAGES)[number];
export type Meaning = Recognised['meaning'];

function recognises(r: Recognition, e: ApiError): boolean {
  return (
    (r.code !== undefined && e.code === r.code) ||
    (r.status !== undefined && (r.status === '5xx' ? e.status >= 500 : e.status === r.status)) ||
    (r.message !== undefined && e.msg === r.message) ||
    (r.prefix !== undefined && e.msg.startsWith(r.prefix)) ||
    r.pattern?.test(e.msg) === true
  );
}

/** What a server's error answer means to chatctl: the first entry of the table that recognises it. */
export function classify(e: ApiError): Recognised | undefined {
  return SERVER_MESSAGES.find((entry: Recognition) => recognises(entry, e));
}
