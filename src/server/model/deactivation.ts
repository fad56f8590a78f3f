/** Deactivating an account, human or bot: what goes with it, and who is told. */
import type { EventSink } from '../context.js';
import { deleteQueuesOf } from './event-queues.js';
import type { Db } from '../store/db.js';
import { notifyInvitesChanged, revokeAllBy } from './invites.js';
import { notifyBotUpdate, notifyPersonUpdate } from './user-events.js';
import type { UserRow } from './users.js';

/** Deactivates a user (with `cascade`, their bots first), ends their event queues, and tells everyone. */
export function deactivate(db: Db, sink: EventSink, user: UserRow, cascade: boolean): void {
  if (!user.is_active) return;
  if (cascade) {
    const bots = db.prepare('SELECT * FROM users WHERE bot_owner_id = ? AND is_bot = 1 AND is_active = 1').all(user.id) as UserRow[];
    for (const bot of bots) deactivate(db, sink, bot, false);
  }
  db.prepare('UPDATE users SET is_active = 0 WHERE id = ?').run(user.id);
  // Pending invitations and links of a deactivated user die with the account, as on a server.
  if (revokeAllBy(db, user.id)) notifyInvitesChanged(db, sink);
  // Through the queue deletion of event-queues.ts, which drops the bodies no other queue references with them.
  deleteQueuesOf(db, user.id);
  notifyPersonUpdate(db, sink, { user_id: user.id, is_active: false });
  if (user.is_bot) notifyBotUpdate(db, sink, user, { is_active: false });
}
