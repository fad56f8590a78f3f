/** Channels for tests: made through the API as a user would, or straight in the store. */
import { subscribe } from '../../src/api/operations/channels.js';
import type { CallParamsOf } from '../../src/api/operation.js';
import type { ChatClient } from '../../src/client/client.js';
import { unique } from './names.js';
import type { TestOrg, TestUser } from './org.js';

/** The ID of the channel named `name`. */
export const streamId = (org: TestOrg, name: string): number => (org.db.prepare('SELECT id FROM streams WHERE name = ?').get(name) as { id: number }).id;

/** Creates the channel `name` through `client` (subscribing its user, or `principals`); returns its ID and name. */
export async function createChannel(
  org: TestOrg,
  client: ChatClient,
  name: string,
  params: Omit<CallParamsOf<typeof subscribe>, 'subscriptions'> = {},
): Promise<{ id: number; name: string }> {
  await client.call(subscribe, { subscriptions: [{ name }], ...params });
  return { id: streamId(org, name), name };
}

export interface ChannelOptions {
  invite_only?: boolean;
  history_public_to_subscribers?: boolean;
}

/** A new channel made through `owner`, the organization owner's client, with the owner and `members` subscribed. */
export const ownerChannel = (org: TestOrg, owner: ChatClient, members: TestUser[], opts: ChannelOptions = {}): Promise<{ id: number; name: string }> =>
  createChannel(org, owner, unique('chan', '-'), { principals: [org.owner.id, ...members.map((m) => m.id)], ...opts });

/** A channel inserted straight in the store, with these subscribers; returns its ID. */
export function newStream(org: TestOrg, name: string, opts: { inviteOnly?: boolean; archived?: boolean; subscribers?: TestUser[] } = {}): number {
  const info = org.db
    .prepare('INSERT INTO streams (name, invite_only, is_archived, date_created) VALUES (?, ?, ?, ?)')
    .run(name, opts.inviteOnly ? 1 : 0, opts.archived ? 1 : 0, org.clock.now());
  const id = Number(info.lastInsertRowid);
  org.db.prepare('INSERT INTO recipients (stream_id) VALUES (?)').run(id);
  for (const u of opts.subscribers ?? []) org.db.prepare('INSERT INTO subscriptions (user_id, stream_id) VALUES (?, ?)').run(u.id, id);
  return id;
}
