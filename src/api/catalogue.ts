/**
 * The operation catalogue: every operation chatctl knows, as a typed record of the per-area records.
 * The embedded router routes with it, the client encodes with it, `chatctl api` completes from it.
 *
 * Its types make a new operation incomplete until it is bound everywhere it must be: the handlers of its
 * area (`Handlers` in server/context.ts), its permission-matrix rows (test/server/permissions/) and its
 * commands (test/cli/operation-commands.ts) are records keyed by `ServedName`, so `tsc` names what is missing.
 */
import type { Operation } from './operation.js';
import { attachmentsOps } from './operations/attachments.js';
import { botsOps } from './operations/bots.js';
import { channelsOps } from './operations/channels.js';
import { domainsOps } from './operations/domains.js';
import { eventsOps } from './operations/events.js';
import { foldersOps } from './operations/folders.js';
import { groupsOps } from './operations/groups.js';
import { invitesOps } from './operations/invites.js';
import { linkifiersOps } from './operations/linkifiers.js';
import { messagesOps } from './operations/messages.js';
import { presenceOps } from './operations/presence.js';
import { profileFieldsOps } from './operations/profile-fields.js';
import { reactionsOps } from './operations/reactions.js';
import { serverOps } from './operations/server.js';
import { statusOps } from './operations/status.js';
import { typingOps } from './operations/typing.js';
import { usersOps } from './operations/users.js';
import { webhooksOps } from './operations/webhooks.js';

export const CATALOGUE = {
  server: serverOps,
  users: usersOps,
  messages: messagesOps,
  reactions: reactionsOps,
  channels: channelsOps,
  groups: groupsOps,
  presence: presenceOps,
  events: eventsOps,
  folders: foldersOps,
  typing: typingOps,
  attachments: attachmentsOps,
  linkifiers: linkifiersOps,
  webhooks: webhooksOps,
  invites: invitesOps,
  domains: domainsOps,
  status: statusOps,
  bots: botsOps,
  profileFields: profileFieldsOps,
} as const satisfies Record<string, Readonly<Record<string, Operation>>>;

export type Catalogue = typeof CATALOGUE;
export type AreaName = keyof Catalogue;

/**
 * The names of an area's operations that a current server serves: all but the older forms (`before`), which
 * only the client sends, to older servers.
 */
export type ServedName<A extends AreaName> = {
  [K in keyof Catalogue[A]]: Catalogue[A][K] extends { readonly before: number } ? never : K;
}[keyof Catalogue[A]];

/**
 * The operations of each area, in the order of their records (the order `chatctl api` lists them, and the
 * router tries routes that rank alike); the embedded server loads an area's handlers only when one is called.
 */
export const operationsByArea = {} as Record<AreaName, readonly Operation[]>;
for (const area of Object.keys(CATALOGUE) as AreaName[]) operationsByArea[area] = Object.values<Operation>(CATALOGUE[area]);

export const catalogue: readonly Operation[] = Object.values(operationsByArea).flat();
