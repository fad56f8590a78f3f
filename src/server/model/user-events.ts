/**
 * The events that tell clients about users (`realm_user`, `realm_bot`), sent to whoever may see what they
 * carry.
 */
import type { User } from '../../api/types.js';
import type { EventSink } from '../context.js';
import { getSetting } from './realm.js';
import type { Db } from '../store/db.js';
import { oneUserView, seesRealEmail } from './user-view.js';
import { botAdminIds, type UserRow, type Viewer } from './users.js';
import { listeningUserIds, listeningViewers } from './event-queues.js';

/**
 * Sends an event carrying a user object (`realm_user` add ...) to every active user, each seeing the real
 * e-mail address only where the organization's visibility policy lets them. `viewers` are the active users an
 * event can reach, those with a live queue (a batch reads them once for all its events).
 */
export function emitWithPerson(
  db: Db,
  sink: EventSink,
  realmUrl: string,
  target: UserRow,
  event: (person: User) => Record<string, unknown> & { type: string },
  viewers: readonly Viewer[] = listeningViewers(db),
): void {
  const policy = getSetting(db, 'email_address_visibility');
  const groups = new Map<boolean, Viewer[]>();
  for (const viewer of viewers) {
    const sees = seesRealEmail(policy, viewer, target);
    // Appended in place: copying the list per viewer made one new account cost the square of the users.
    const group = groups.get(sees);
    if (group) group.push(viewer);
    else groups.set(sees, [viewer]);
  }
  for (const viewers of groups.values()) {
    const person = oneUserView(db, viewers[0]!, { clientGravatar: false, includeCustomProfileFields: !target.is_bot }, realmUrl, target);
    sink.emit(
      event(person),
      viewers.map((v) => v.id),
    );
  }
}

/** Sends a `realm_user` update about one user to every active user (everyone may see every user here). */
export function notifyPersonUpdate(db: Db, sink: EventSink, person: { user_id: number } & Record<string, unknown>): void {
  sink.emit({ type: 'realm_user', op: 'update', person }, listeningUserIds(db));
}

/** Sends a `realm_bot` update about one bot to those who administer it. */
export function notifyBotUpdate(db: Db, sink: EventSink, bot: Pick<UserRow, 'id' | 'bot_owner_id'>, fields: Record<string, unknown>): void {
  sink.emit({ type: 'realm_bot', op: 'update', bot: { user_id: bot.id, ...fields } }, botAdminIds(db, bot));
}
