/**
 * A group-valued setting on the wire, as organization settings (PATCH /realm) and user groups (POST
 * /user_groups/create, PATCH /user_groups/{id}) take it: declared once for both.
 */
import type { GroupSettingValue } from './operations/channels.js';
import { s, type TypeOf, type Typed } from './schema.js';

/** A group ID, or the members and subgroups of an anonymous group. */
export const groupSettingValue: Typed<GroupSettingValue> = s.union(
  s.int(),
  s.object({ direct_members: s.list(s.int()), direct_subgroups: s.list(s.int()) }),
  'an integer or a dict',
);

/**
 * A change of a group-setting value (zerver/lib/user_groups.py GroupSettingChangeRequest): the new value, and
 * the value the client believes is current, which the server checks before changing anything.
 */
export const groupSettingChange = s.object({ new: groupSettingValue, old: s.optional(groupSettingValue) });
export type GroupSettingChange = TypeOf<typeof groupSettingChange>;
