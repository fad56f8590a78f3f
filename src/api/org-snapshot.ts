/**
 * A real organization's configuration as its server's own answers give it, for the embedded server to build a
 * copy from (server/model/mirror-import.ts): nothing but wire objects, so a client fills it with four kinds of
 * request and no conversion.
 */
import type { UserGroup } from './operations/groups.js';
import type { RegisterResponse } from './operations/events.js';
import type { User } from './types.js';

export interface OrganizationSnapshot {
  /**
   * `POST /register` by an administrator, fetching at least `realm`, `realm_domains`, `realm_linkifiers` (with the
   * `linkifier_url_template` capability), `custom_profile_fields`, `realm_user_groups`, `default_streams`, `stream`
   * and, from level 389, `channel_folders`; `realm_user` too, to keep the server's system bots at their IDs
   * (`cross_realm_bots`). Its `zulip_feature_level` is the copy's.
   */
  readonly register: RegisterResponse;
  /** `GET /users` with `include_custom_profile_fields`: every account, deactivated ones and bots included. */
  readonly users: readonly User[];
  /** `GET /user_groups` with `include_deactivated_groups`; absent: the register answer's `realm_user_groups`. */
  readonly groups?: readonly UserGroup[];
  /** Each channel's subscribers (`GET /streams/{id}/members`), by channel ID. */
  readonly members: Readonly<Record<string, readonly number[]>>;
}
