/**
 * The organization's name and description, changed as a Zulip server's PATCH /realm changes them
 * (zerver/views/realm.py update_realm, zerver/actions/realm_settings.py do_set_realm_property): the length
 * limits are the catalogue's, so decoding refuses a value over one before anything is written; only a value
 * that differs is written, and each write is a `realm` `update` event to everyone listening.
 */
import type { RealmUpdate } from '../../api/operations/server.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { listeningUserIds } from './event-queues.js';
import { getSetting, setSetting } from './realm.js';

export function updateRealmIdentity(db: Db, sink: EventSink, changes: { name?: string; description?: string }): RealmUpdate {
  const answer: RealmUpdate = {};
  for (const property of ['name', 'description'] as const) {
    const value = changes[property];
    if (value === undefined || getSetting(db, property) === value) continue;
    setSetting(db, property, value);
    sink.emit({ type: 'realm', op: 'update', property, value }, listeningUserIds(db));
    answer[property] = 'updated';
  }
  return answer;
}
