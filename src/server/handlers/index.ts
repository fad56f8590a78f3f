/**
 * Every handler of the embedded implementation, by area. An area's module is loaded when one of its
 * operations is first called, so a request pays only for the code it runs.
 */
import type { AreaName } from '../../api/catalogue.js';
import type { Binding } from '../context.js';

export const handlerAreas: Record<AreaName, () => Promise<readonly Binding[]>> = {
  server: async () => (await import('./server.js')).bindings,
  users: async () => (await import('./users.js')).bindings,
  messages: async () => (await import('./messages.js')).bindings,
  reactions: async () => (await import('./reactions.js')).bindings,
  channels: async () => (await import('./channels.js')).bindings,
  groups: async () => (await import('./groups.js')).bindings,
  presence: async () => (await import('./presence.js')).bindings,
  events: async () => (await import('./events.js')).bindings,
  folders: async () => (await import('./folders.js')).bindings,
  typing: async () => (await import('./typing.js')).bindings,
  attachments: async () => (await import('./attachments.js')).bindings,
  linkifiers: async () => (await import('./linkifiers.js')).bindings,
  webhooks: async () => (await import('./webhooks.js')).bindings,
  invites: async () => (await import('./invites.js')).bindings,
  domains: async () => (await import('./domains.js')).bindings,
  status: async () => (await import('./status.js')).bindings,
  bots: async () => (await import('./bots.js')).bindings,
  profileFields: async () => (await import('./profile-fields.js')).bindings,
};
