/**
 * Creating the embedded organization: its settings, system groups, a first channel, and its owner.
 * Everything after this first owner goes through the API, like any other client.
 */
import { ROLE } from '../api/roles.js';
import { insertChannel } from './model/channels.js';
import { addSubscribers } from './model/subscriptions.js';
import { insertSystemGroups } from './model/system-groups.js';
import { insertUser, userById, type UserRow } from './model/users.js';
import { validateFullName, validateNewEmail } from './model/validation.js';
import { OPERATOR_PERMISSIONS } from './operator-permissions.js';
import { setPermission } from './model/user-permissions.js';
import { emitEvent } from './model/event-queues.js';
import type { SendContext } from './model/messages.js';
import { welcomeNewUser } from './model/notices.js';
import { getSetting, isInitialized, realmHost, setSetting } from './model/realm.js';
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
      if (org.url) {
        setSetting(db, 'url', org.url);
        setSetting(db, 'bot_domain', realmHost(org.url));
      }
      insertSystemGroups(db, org.now);
      const owner = insertUser(
        db,
        { email: validateNewEmail(db, org.ownerEmail), full_name: validateFullName(db, org.ownerName), role: ROLE.owner, password_hash: org.passwordHash },
        org.now,
      );
      const general = insertChannel(
        db,
        { name: 'general', description: 'For everything', invite_only: false, is_web_public: false, folder_id: null, is_default: true, creator_id: owner.id },
        org.now,
      );
      addSubscribers(db, general, [owner.id]);
      // zerver/actions/create_realm.py: new channels are announced in the first channel.
      setSetting(db, 'new_stream_announcements_stream_id', general.id);
      // Whoever creates the organization here is also its server's operator, and would grant themselves
      // these with change_user_role on a server: the owner starts with them.
      for (const permission of OPERATOR_PERMISSIONS) setPermission(db, owner.id, permission, true);
      // The organization's creator is welcomed as any new user (process_new_human_user with realm_creation);
      // nobody has an event queue yet, so the events go nowhere.
      const created = userById(db, owner.id)!;
      const ctx: SendContext = {
        db,
        realmUrl: getSetting(db, 'url'),
        nowSeconds: () => org.now,
        emit: (event, userIds) => emitEvent(db, event, userIds, org.now),
      };
      welcomeNewUser(ctx, created, { firstUser: true });
      return created;
    })
    .immediate();
}
