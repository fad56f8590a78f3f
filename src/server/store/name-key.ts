/**
 * A name's key for uniqueness (users.name_key): names equal up to compatibility forms and case are the same name,
 * as a Zulip server's check_full_name compares them (NFKC, then casefold; JavaScript's nearest is toLowerCase).
 * Kept in a column, so the "unique names" check is one indexed lookup instead of a read of every name.
 */
export const nameKey = (name: string): string => name.normalize('NFKC').toLowerCase();
