/**
 * The command tree's first level. Each noun's module is loaded only when argv names it (or for help and
 * completions), which keeps start-up flat as commands are added.
 */
import type { NounEntry } from '../command/command-tree.js';

export const NOUNS: readonly NounEntry[] = [
  { name: 'init', summary: 'create the embedded organization and log in to it', load: async () => (await import('./init.js')).commands },
  {
    name: 'login',
    summary: 'log in to a server (or the embedded organization) and store the credentials',
    load: async () => (await import('./login.js')).commands,
  },
  { name: 'logout', summary: 'forget the stored credentials of a profile', load: async () => (await import('./logout.js')).commands },
  { name: 'auth', summary: 'print the API key chatctl uses, for scripts (auth token)', load: async () => (await import('./auth.js')).commands },
  { name: 'profiles', summary: 'list the stored profiles, or pick the default one', load: async () => (await import('./profiles.js')).commands },
  { name: 'whoami', summary: 'show the current target, profile and user', load: async () => (await import('./whoami.js')).commands },
  { name: 'serve', summary: 'serve the embedded organization over HTTP for any Zulip client', load: async () => (await import('./serve.js')).commands },
  {
    name: 'server',
    summary: "server information, the organization's name; embedded: grant the permissions a server's operator grants",
    load: async () => (await import('./server.js')).commands,
  },
  { name: 'users', summary: 'list, inspect, create and manage users', load: async () => (await import('./users/index.js')).commands },
  {
    name: 'invite',
    summary: 'invite people by e-mail or link; list, resend and revoke invitations',
    groups: { link: 'reusable invitation links' },
    load: async () => (await import('./invite/index.js')).commands,
  },
  { name: 'status', summary: "set or clear a user's status (administrators)", load: async () => (await import('./status.js')).commands },
  { name: 'domains', summary: 'allowed e-mail domains of the organization', load: async () => (await import('./domains.js')).commands },
  { name: 'linkifiers', summary: 'linkifiers: patterns that become links', load: async () => (await import('./linkifiers.js')).commands },
  { name: 'attachments', summary: 'uploaded files: upload, list, delete, clean up', load: async () => (await import('./attachments.js')).commands },
  { name: 'flags', summary: 'add or remove message flags over a narrow', load: async () => (await import('./flags.js')).commands },
  { name: 'presence', summary: "set your presence, list everyone's", load: async () => (await import('./presence.js')).commands },
  { name: 'topics', summary: 'mute, unmute, follow topics', load: async () => (await import('./topics.js')).commands },
  {
    name: 'channels',
    summary: 'channels: list, create, archive, members, default channels, sync from groups',
    groups: { 'default-channels': 'the channels new users join: list, add, remove' },
    load: async () => [
      ...(await import('./channels.js')).commands,
      ...(await import('./channels-archive.js')).commands,
      ...(await import('./channels-members.js')).commands,
      ...(await import('./default-channels.js')).commands,
      ...(await import('./channels-sync.js')).commands,
    ],
  },
  { name: 'subscriptions', summary: 'your channel subscription settings', load: async () => (await import('./subscriptions.js')).commands },
  { name: 'typing', summary: 'send typing notifications', load: async () => (await import('./typing.js')).commands },
  { name: 'reactions', summary: 'emoji reactions on messages', load: async () => (await import('./reactions.js')).commands },
  { name: 'groups', summary: 'user groups and their members', load: async () => (await import('./groups.js')).commands },
  {
    name: 'org',
    summary: 'the organization as code: export, validate, plan, apply, drift',
    load: async () => (await import('./org/index.js')).commands,
  },
  { name: 'messages', summary: 'messages: edit history', load: async () => (await import('./messages.js')).commands },
  { name: 'folders', summary: 'channel folders', load: async () => (await import('./folders.js')).commands },
  { name: 'events', summary: 'event queues', load: async () => (await import('./events.js')).commands },
  { name: 'webhook', summary: 'outgoing webhooks: see, send and receive payloads', load: async () => (await import('./webhook.js')).commands },
  { name: 'completion', summary: 'print a shell completion script (bash, zsh, fish)', load: async () => (await import('./completion.js')).commands },
  {
    name: '__complete',
    summary: 'names for shell completion',
    hidden: true,
    load: async () => (await import('./complete.js')).commands,
  },
  { name: 'api', summary: 'send a raw API request and print the response envelope', load: async () => (await import('./api.js')).commands },
];
