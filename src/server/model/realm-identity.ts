/**
 * The organization's name and description, changed as a Zulip server's PATCH /realm changes them
 * (zerver/views/realm.py update_realm, zerver/actions/realm_settings.py do_set_realm_property): each value
 * checked against its length limit before anything is written, only a value that differs is written, and
 * each write is a `realm` `update` event to everyone listening.
 */
import { tooLong } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { RealmUpdate } from '../../api/operations/server.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { listeningUserIds } from './event-queues.js';
import { getSetting, setSetting } from './realm.js';

const codePoints = (s: string): number => [...s].length;

export function updateRealmIdentity(db: Db, sink: EventSink, changes: { name?: string; description?: string }): RealmUpdate {
  // Every value is checked first, so the request succeeds or fails as a whole.
  if (changes.name !== undefined && codePoints(changes.name) > LIMITS.realmName) throw tooLong('name', LIMITS.realmName);
  if (changes.description !== undefined && codePoints(changes.description) > LIMITS.realmDescription) {
    throw tooLong('description', LIMITS.realmDescription);
  }
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
