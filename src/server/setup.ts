/**
 * Creating the embedded organization: its settings, system groups, a first channel, and its owner.
 * Everything after this first owner goes through the API, like any other client.
 */
import { insertUser, userById, type UserRow } from './model/users.js';
import { validateFullName, validateNewEmail } from './model/validation.js';
import { OPERATOR_PERMISSIONS } from './operator-permissions.js';
import { setPermission } from './permissions.js';
import { isInitialized, setSetting } from './realm.js';
import type { Db } from './store/db.js';

export interface NewOrganization {
  name: string;
  ownerEmail: string;
  ownerName: string;
  /** The owner's password, hashed (`hashPassword`) before the organization's transaction opens. */
  passwordHash: string;
  url?: string;
  now: number;
}

/** Zulip's system groups, by the role each stands for (`role:members` holds members and above). */
export const SYSTEM_GROUPS: readonly { name: string; description: string; maxRole: number | null }[] = [
  { name: 'role:nobody', description: 'Nobody', maxRole: null },
  { name: 'role:owners', description: 'Owners of this organization', maxRole: 100 },
  { name: 'role:administrators', description: 'Administrators of this organization, including owners', maxRole: 200 },
  { name: 'role:moderators', description: 'Moderators of this organization, including administrators', maxRole: 300 },
  { name: 'role:fullmembers', description: 'Members of this organization, not including new accounts and guests', maxRole: 400 },
  { name: 'role:members', description: 'Members of this organization, not including guests', maxRole: 400 },
  { name: 'role:everyone', description: 'Everyone in this organization, including guests', maxRole: 600 },
  { name: 'role:internet', description: 'Everyone on the Internet', maxRole: 600 },
];

export class AlreadyInitializedError extends Error {
  constructor() {
    super('this data dir already holds an organization');
    this.name = 'AlreadyInitializedError';
  }
}

export function createOrganization(db: Db, org: NewOrganization): UserRow {
  return db
    .transaction(() => {
      if (isInitialized(db)) throw new AlreadyInitializedError();
      setSetting(db, 'name', org.name);
      setSetting(db, 'date_created', org.now);
      if (org.url) setSetting(db, 'url', org.url);
      const insertGroup = db.prepare(
        'INSERT INTO user_groups (name, description, is_system_group, date_created) VALUES (?, ?, 1, ?)',
      );
      for (const g of SYSTEM_GROUPS) insertGroup.run(g.name, g.description, org.now);
      const owner = insertUser(
        db,
        { email: validateNewEmail(db, org.ownerEmail), full_name: validateFullName(db, org.ownerName), role: 100, password_hash: org.passwordHash },
        org.now,
      );
      const general = db
        .prepare(
          `INSERT INTO streams (name, description, rendered_description, date_created, creator_id, is_default)
           VALUES ('general', 'For everything', '<p>For everything</p>', ?, ?, 1)`,
        )
        .run(org.now, owner.id);
      db.prepare('INSERT INTO recipients (stream_id) VALUES (?)').run(general.lastInsertRowid);
      db.prepare('INSERT INTO subscriptions (user_id, stream_id) VALUES (?, ?)').run(owner.id, general.lastInsertRowid);
      // Whoever creates the organization here is also its server's operator, and would grant themselves
      // these with change_user_role on a server: the owner starts with them.
      for (const permission of OPERATOR_PERMISSIONS) setPermission(db, owner.id, permission, true);
      return userById(db, owner.id)!;
    })
    .immediate();
}
