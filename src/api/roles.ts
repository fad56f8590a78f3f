/**
 * Organization roles: their wire values (Zulip's UserProfile.ROLE_*), names and order. A lower value is a
 * higher role, so "at least a moderator" is `role <= ROLE.moderator`; code says `atLeast(role, 'moderator')`
 * instead of comparing numbers.
 */
export const ROLE = { owner: 100, admin: 200, moderator: 300, member: 400, guest: 600 } as const;

export type RoleName = keyof typeof ROLE;
export type Role = (typeof ROLE)[RoleName];

export const ROLES = Object.values(ROLE) satisfies readonly Role[];
export const ROLE_NAMES = Object.fromEntries(Object.entries(ROLE).map(([name, value]) => [value, name])) as Record<Role, RoleName>;

/** True when `role` is `min` or higher (owner > admin > moderator > member > guest). */
export const atLeast = (role: number, min: RoleName): boolean => role <= ROLE[min];

export const isOwner = (role: number): boolean => role === ROLE.owner;
/** Owners and administrators. */
export const isAdminRole = (role: number): boolean => atLeast(role, 'admin');
export const isGuest = (role: number): boolean => role === ROLE.guest;

export const isRole = (value: number): value is Role => (ROLES as readonly number[]).includes(value);

/** A role by name (`member`), or its number when chatctl knows no name for it. */
export const roleName = (role: number): string => (isRole(role) ? ROLE_NAMES[role] : String(role));

/** A role by its name (`admin`) or wire value (`200`); undefined when it is neither. */
export function roleFrom(value: string): Role | undefined {
  const name = value.trim().toLowerCase();
  if (Object.hasOwn(ROLE, name)) return ROLE[name as RoleName];
  const n = Number(name);
  return /^\d+$/.test(name) && isRole(n) ? n : undefined;
}
