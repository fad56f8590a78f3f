/**
 * The operation catalogue: every operation chatctl knows, collected from the per-area declarations.
 * The embedded router routes with it, the client encodes with it, `chatctl api` completes from it.
 */
import type { Operation } from './operation.js';
import * as server from './operations/server.js';
import * as users from './operations/users.js';
import * as messages from './operations/messages.js';
import * as reactions from './operations/reactions.js';
import * as channels from './operations/channels.js';
import * as groups from './operations/groups.js';
import * as presence from './operations/presence.js';
import * as events from './operations/events.js';
import * as folders from './operations/folders.js';
import * as typing from './operations/typing.js';
import * as attachments from './operations/attachments.js';
import * as linkifiers from './operations/linkifiers.js';
import * as webhooks from './operations/webhooks.js';
import * as invites from './operations/invites.js';
import * as domains from './operations/domains.js';
import * as status from './operations/status.js';
import * as bots from './operations/bots.js';
import * as profileFields from './operations/profile-fields.js';

const isOperation = (v: unknown): v is Operation => typeof v === 'object' && v !== null && 'method' in v && 'path' in v && 'access' in v;

const modules = {
  server,
  users,
  messages,
  reactions,
  channels,
  groups,
  presence,
  events,
  folders,
  typing,
  attachments,
  linkifiers,
  webhooks,
  invites,
  domains,
  status,
  bots,
  profileFields,
};

export type AreaName = keyof typeof modules;

/** The operations of each area; the embedded server loads an area's handlers only when one is called. */
export const operationsByArea = {} as Record<AreaName, readonly Operation[]>;
for (const [area, m] of Object.entries(modules) as [AreaName, object][]) {
  operationsByArea[area] = Object.values(m).filter(isOperation);
}

export const catalogue: readonly Operation[] = Object.values(operationsByArea).flat();
