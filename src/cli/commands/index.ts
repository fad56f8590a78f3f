/**
 * The command tree's first level. Each noun's module is loaded only when argv names it (or for help and
 * completions), which keeps start-up flat as commands are added.
 */
import type { NounEntry } from '../program.js';

export const NOUNS: readonly NounEntry[] = [
  { name: 'init', summary: 'create the embedded organization and log in to it', load: async () => (await import('./init.js')).commands },
  { name: 'login', summary: 'log in to a server (or the embedded organization) and store the credentials', load: async () => (await import('./login.js')).commands },
  { name: 'logout', summary: 'forget the stored credentials of a profile', load: async () => (await import('./logout.js')).commands },
  { name: 'whoami', summary: 'show the current target, profile and user', load: async () => (await import('./whoami.js')).commands },
  { name: 'serve', summary: 'serve the embedded organization over HTTP for any Zulip client', load: async () => (await import('./serve.js')).commands },
  { name: 'server', summary: 'server information', load: async () => (await import('./server.js')).commands },
  { name: 'users', summary: 'list, inspect, create and manage users', load: async () => (await import('./users.js')).commands },
  { name: 'completion', summary: 'print a shell completion script (bash, zsh, fish)', load: async () => (await import('./completion.js')).commands },
  { name: 'api', summary: 'send a raw API request and print the response envelope', load: async () => (await import('./api.js')).commands },
];
