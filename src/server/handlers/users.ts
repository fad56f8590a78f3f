/** Listing, reading and creating users. */
import { badRequest } from '../../api/errors.js';
import { createUser, getOwnUser, getUser, getUserByEmail, getUsers } from '../../api/operations/users.js';
import { bind, callerOf, type HandlerContext } from '../context.js';
import { activeUserIds, insertUser, listUsersForView, userByEmail, userById, userView, type UserRow } from '../model/users.js';
import { validateFullName, validateNewEmail } from '../model/validation.js';

function viewOf(ctx: HandlerContext, p: { client_gravatar: boolean; include_custom_profile_fields: boolean }) {
  return userView(ctx.db, ctx.caller, { clientGravatar: p.client_gravatar, includeCustomProfileFields: p.include_custom_profile_fields }, ctx.realmUrl);
}

const maxMessageId = (ctx: HandlerContext): number =>
  (ctx.db.prepare('SELECT coalesce(max(message_id), -1) AS id FROM user_messages WHERE user_id = ?').get(callerOf(ctx).id) as { id: number }).id;

function lookedUp(target: UserRow | undefined): UserRow {
  if (!target) throw badRequest('No such user');
  return target;
}

export const userHandlers = [
  bind(getUsers, (ctx, p) => {
    const view = viewOf(ctx, p);
    const wanted = p.user_ids ? new Set(p.user_ids) : null;
    if (wanted) {
      for (const id of wanted) if (!userById(ctx.db, id)) throw badRequest(`Invalid user ID: ${id}`);
    }
    return { members: listUsersForView(ctx.db).filter((u) => !wanted || wanted.has(u.id)).map(view) };
  }),

  bind(getOwnUser, (ctx) => {
    const me = viewOf(ctx, { client_gravatar: false, include_custom_profile_fields: false })(callerOf(ctx));
    return { ...me, max_message_id: maxMessageId(ctx) };
  }),

  bind(getUser, (ctx, p) => ({ user: viewOf(ctx, p)(lookedUp(userById(ctx.db, p.user_id))) })),

  bind(getUserByEmail, (ctx, p) => {
    // The API e-mail may be the `user{id}@host` placeholder; newer servers accept it as well as the real one.
    const placeholder = /^user(\d+)@/i.exec(p.email);
    const target = userByEmail(ctx.db, p.email) ?? (placeholder ? userById(ctx.db, Number(placeholder[1])) : undefined);
    return { user: viewOf(ctx, p)(lookedUp(target)) };
  }),

  bind(createUser, (ctx, p) => {
    const db = ctx.db;
    const name = validateFullName(db, p.full_name);
    const email = validateNewEmail(db, p.email);
    if (p.password.length < 6) throw badRequest('The password is too weak.');
    const user = insertUser(db, { email, full_name: name, password: p.password }, ctx.now());
    subscribeToDefaultChannels(ctx, user.id);
    ctx.emit({ type: 'realm_user', op: 'add', person: viewOf(ctx, { client_gravatar: false, include_custom_profile_fields: false })(user) }, activeUserIds(db));
    return { user_id: user.id };
  }),
];

function subscribeToDefaultChannels(ctx: HandlerContext, userId: number): void {
  ctx.db
    .prepare('INSERT OR IGNORE INTO subscriptions (user_id, stream_id) SELECT ?, id FROM streams WHERE is_default = 1 AND is_archived = 0')
    .run(userId);
}
