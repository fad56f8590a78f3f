/**
 * The permission matrix, declared per area: for each operation, which callers succeed and what the others
 * are told. `permissions.test.ts` runs every case for every kind of caller against a real organization.
 */
import type { AreaName, ServedName } from '../../../src/api/catalogue.js';
import type { WireRequest } from '../../../src/api/wire.js';
import type { TestOrg, TestUser } from '../../helpers/org.js';

export const CALLERS = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot', 'deactivated', 'anonymous'] as const;
export type Caller = (typeof CALLERS)[number];

export interface Fixture {
  org: TestOrg;
  /** The user making the request (null: anonymous). */
  caller: TestUser | null;
  /** One user of each role, made for this case, besides the caller. */
  others: Record<'owner' | 'admin' | 'moderator' | 'member' | 'guest', TestUser>;
}

export interface PermissionCase {
  /** What the request does, e.g. "change a member's role to moderator". */
  name: string;
  /** Builds the request, creating whatever it acts on; run once per caller on a fresh fixture. */
  request(f: Fixture): Pick<WireRequest, 'method' | 'path'> & Partial<Pick<WireRequest, 'body' | 'query' | 'files'>>;
  allowed: readonly Caller[];
  /** The `msg` a refused caller gets; per caller where they differ. Anonymous and deactivated get the 401s. */
  denied: string | Partial<Record<Caller, string>>;
}

/**
 * An area's rows: at least one case per operation it serves, under the operation's name. A new operation
 * without its rows fails `tsc -p tsconfig.test.json` here, naming it, in the area's permissions file.
 */
export type PermissionRows<A extends AreaName> = { readonly [K in ServedName<A>]: readonly [PermissionCase, ...PermissionCase[]] };

/** What a caller below an administrator is told by an administrators' operation. */
export const ADMINS_ONLY = 'Must be an organization administrator';
/** What a caller below an owner is told by an owners' operation or setting. */
export const OWNERS_ONLY = 'Must be an organization owner';
/** The 401 messages, the same for every authenticated operation. */
export const ANONYMOUS_MSG = 'Not logged in: API authentication or user session required';
export const DEACTIVATED_MSG = 'Account is deactivated';
