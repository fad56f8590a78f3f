/** Every handler of the embedded implementation, bound to its catalogue operation. */
import type { Binding } from '../context.js';
import { serverHandlers } from './server.js';
import { userHandlers } from './users.js';
import { bindings as messages } from './messages.js';
import { bindings as reactions } from './reactions.js';
import { bindings as channels } from './channels.js';
import { bindings as groups } from './groups.js';
import { bindings as presence } from './presence.js';
import { bindings as events } from './events.js';
import { bindings as folders } from './folders.js';
import { bindings as typing } from './typing.js';
import { bindings as attachments } from './attachments.js';
import { bindings as linkifiers } from './linkifiers.js';
import { bindings as webhooks } from './webhooks.js';
import { bindings as invites } from './invites.js';
import { bindings as domains } from './domains.js';
import { bindings as status } from './status.js';
import { bindings as bots } from './bots.js';
import { bindings as profileFields } from './profile-fields.js';

export const bindings: readonly Binding[] = [
  ...serverHandlers,
  ...userHandlers,
  ...messages,
  ...reactions,
  ...channels,
  ...groups,
  ...presence,
  ...events,
  ...folders,
  ...typing,
  ...attachments,
  ...linkifiers,
  ...webhooks,
  ...invites,
  ...domains,
  ...status,
  ...bots,
  ...profileFields,
];
