/** Group-valued organization settings set straight in a test organization's store, for tests of what they permit. */
import type { GroupSettingName, SystemGroupName } from '../../src/api/realm-settings.js';
import type { Db } from '../../src/server/store/db.js';
import { writeStored } from '../../src/server/model/realm.js';
import { systemGroupId } from '../../src/server/model/system-groups.js';

/** Sets a group-valued setting to a system group; null puts the organization's default back. */
export function setGroupSetting(db: Db, name: GroupSettingName, group: SystemGroupName | null): void {
  if (group === null) {
    db.prepare('DELETE FROM realm_settings WHERE key = ?').run(name);
    return;
  }
  writeStored(db, name, JSON.stringify(systemGroupId(db, group)));
}
