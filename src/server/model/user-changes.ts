/**
 * Changes to accounts, as a Zulip server's do_* actions make them: each writes the rows and sends the
 * events that tell clients. Permission checks are the caller's (handlers/users.ts); deactivation is
 * deactivation.ts's, and a login's bookkeeping users.ts's (recordLogin).
 */
import { badRequest } from '../../api/errors.js';
import type { Role } from '../../api/roles.js';
import type { EventSink } from '../context.js';
import { getSetting } from './realm.js';
import type { Db } from '../store/db.js';
import { nameKey } from '../store/name-key.js';
import { subscribeToDefaultChannels } from './subscriptions.js';
import { directSystemGroups, systemGroupId } from './system-groups.js';
import { emitWithPerson, notifyBotUpdate, notifyPersonUpdate } from './user-events.js';
import { gravatarUrl, seesRealEmail } from './user-view.js';
import { holds } from './user-permissions.js';
import { emailTaken, insertUser, userById, type UserRow } from './users.js';
import { listeningUserIds, listeningViewers } from './event-queues.js';
import { newEmailProblem, validateFullName, validateNewEmail } from './validation.js';

/** A human account as the API creates it: name and address validated, the password hashed (null: none). */
export interface NewAccount {
  email: string;
  full_name: string;
  password_hash: string | null;
}

/**
 * What may create accounts without an invitation, as POST /users checks it first: a permission of its own,
 * beyond being an administrator.
 */
export function checkCanCreateUsers(caller: UserRow): void {
  if (!holds(caller, 'can_create_users')) throw badRequest('User not authorized to create users');
}

/** A new account's name and address checked as POST /users checks them, in its order; the cleaned values. */
export function newAccountFields(db: Db, p: { email: string; full_name: string }): { email: string; full_name: string } {
  return { full_name: validateFullName(db, p.full_name), email: validateNewEmail(db, p.email) };
}

/** Creates a human account through the API (its name and address already validated), subscribed to the default channels, and announces it. */
export function createAccount(db: Db, sink: EventSink, realmUrl: string, u: NewAccount, now: number): UserRow {
  const user = insertUser(db, u, now);
  // date_joined is the creation time until the account's first login, then that login's (2.1).
  db.prepare('UPDATE users SET date_joined_at_first_login = 1 WHERE id = ?').run(user.id);
  subscribeToDefaultChannels(db, user.id);
  emitWithPerson(db, sink, realmUrl, user, (person) => ({ type: 'realm_user', op: 'add', person }));
  return user;
}

export function changeRole(db: Db, sink: EventSink, target: UserRow, role: Role): void {
  db.prepare('UPDATE users SET role = ? WHERE id = ?').run(role, target.id);
  notifyPersonUpdate(db, sink, { user_id: target.id, role });
  // System group membership follows the role; clients keeping group members learn of it as a server tells them.
  const before = directSystemGroups(target.role);
  const after = directSystemGroups(role);
  const everyone = listeningUserIds(db);
  for (const [op, names] of [
    ['remove_members', before.filter((g) => !after.includes(g))],
    ['add_members', after.filter((g) => !before.includes(g))],
  ] as const) {
    for (const name of names) {
      const id = systemGroupId(db, name);
      if (id !== undefined) sink.emit({ type: 'user_group', op, group_id: id, user_ids: [target.id] }, everyone);
    }
  }
}

export function changeFullName(db: Db, sink: EventSink, target: UserRow, name: string): void {
  db.prepare('UPDATE users SET full_name = ?, name_key = ? WHERE id = ?').run(name, nameKey(name), target.id);
  notifyPersonUpdate(db, sink, { user_id: target.id, full_name: name });
  if (target.is_bot) notifyBotUpdate(db, sink, target, { full_name: name });
}

/** Checks and sets a new address; a Gravatar avatar follows it, so its version moves on. */
export function changeEmail(db: Db, sink: EventSink, target: UserRow, raw: string): void {
  const email = raw.trim();
  const problem = newEmailProblem(db, email);
  if (problem) throw badRequest(problem);
  if (emailTaken(db, email, target.id)) throw badRequest(`Email '${email}' already in use`);
  // A new version tells clients to fetch the avatar again.
  const version = target.avatar_version + 1;
  db.prepare('UPDATE users SET email = ?, avatar_version = ? WHERE id = ?').run(email, version, target.id);
  const policy = getSetting(db, 'email_address_visibility');
  const seeing = listeningViewers(db)
    .filter((v) => seesRealEmail(policy, v, target))
    .map((v) => v.id);
  sink.emit({ type: 'realm_user', op: 'update', person: { user_id: target.id, delivery_email: email } }, seeing);
  // The API e-mail is the real one only when everyone may see real addresses.
  if (target.is_bot || policy === 1) notifyPersonUpdate(db, sink, { user_id: target.id, new_email: email });
  const avatar = gravatarUrl(email, version);
  notifyPersonUpdate(db, sink, { user_id: target.id, avatar_source: 'G', avatar_url: avatar, avatar_url_medium: `${avatar}&s=500`, avatar_version: version });
}

/** Reactivates an account; a bot whose owner is gone passes to `caller`, who brings it back. */
export function reactivate(db: Db, sink: EventSink, caller: UserRow, user: UserRow): void {
  db.prepare('UPDATE users SET is_active = 1 WHERE id = ?').run(user.id);
  notifyPersonUpdate(db, sink, { user_id: user.id, is_active: true });
  if (!user.is_bot) return;
  const owner = user.bot_owner_id === null ? undefined : userById(db, user.bot_owner_id);
  let bot = user;
  if (owner && !owner.is_active) {
    db.prepare('UPDATE users SET bot_owner_id = ? WHERE id = ?').run(caller.id, user.id);
    bot = { ...user, bot_owner_id: caller.id };
    notifyPersonUpdate(db, sink, { user_id: user.id, bot_owner_id: caller.id });
    notifyBotUpdate(db, sink, bot, { owner_id: caller.id });
  }
  notifyBotUpdate(db, sink, bot, { is_active: true });
}
