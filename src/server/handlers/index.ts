/**
 * Every handler of the embedded implementation, by area. An area's module is loaded when one of its
 * operations is first called, so a request pays only for the code it runs. The type asks each area for
 * its whole `Handlers` record: a new area missing here fails `tsc`, naming the area.
 */
import type { AreaName } from '../../api/catalogue.js';
import type { Handlers } from '../context.js';

export const handlerAreas: { readonly [A in AreaName]: () => Promise<Handlers<A>> } = {
  server: async () => (await import('./server.js')).handlers,
  users: async () => (await import('./users.js')).handlers,
  messages: async () => (await import('./messages.js')).handlers,
  reactions: async () => (await import('./reactions.js')).handlers,
  channels: async () => (await import('./channels.js')).handlers,
  groups: async () => (await import('./groups.js')).handlers,
  presence: async () => (await import('./presence.js')).handlers,
  events: async () => (await import('./events.js')).handlers,
  folders: async () => (await import('./folders.js')).handlers,
  typing: async () => (await import('./typing.js')).handlers,
  attachments: async () => (await import('./attachments.js')).handlers,
  linkifiers: async () => (await import('./linkifiers.js')).handlers,
  webhooks: async () => (await import('./webhooks.js')).handlers,
  invites: async () => (await import('./invites.js')).handlers,
  domains: async () => (await import('./domains.js')).handlers,
  status: async () => (await import('./status.js')).handlers,
  bots: async () => (await import('./bots.js')).handlers,
  profileFields: async () => (await import('./profile-fields.js')).handlers,
};
