/**
 * The names of the per-user permissions a Zulip server keeps out of the API (server/model/user-permissions.ts). A module
 * of its own, with no imports, so the CLI can name them in help without loading the store.
 */
export const OPERATOR_PERMISSIONS = ['can_create_users', 'can_change_user_emails'] as const;
export type OperatorPermission = (typeof OPERATOR_PERMISSIONS)[number];
