/**
 * Creating the embedded organization and logging in to it: `chatctl init`, and the first command run on
 * a machine with no configuration at all. The login goes through fetch_api_key like any other client's.
 */
import { ChatClient, type Credentials } from '../../client/client.js';
import type { Transport } from '../../client/transport.js';
import { fetchApiKey } from '../../api/operations/server.js';
import type { Context } from '../command/context.js';
import { ChatctlError } from '../core/errors.js';
import type { Target } from './target.js';
import type { OrganizationTransport } from './data-dir.js';
import { storeProfile } from './store-profile.js';
import { randomAlphanumeric } from '../../random.js';

export interface InitOptions {
  dataDir: string;
  orgName: string;
  email: string;
  ownerName: string;
  password: string;
  profileName: string;
}

export const DEFAULT_OWNER_EMAIL = 'owner@localhost';

/** Creates the organization in `transport`'s store, logs in, stores the profile. Returns the credentials. */
export async function initialize(ctx: Pick<Context, 'env' | 'info' | 'nowMs'>, transport: OrganizationTransport, o: InitOptions): Promise<Credentials> {
  const { AlreadyInitializedError } = await import('../../server/embedded.js');
  const { organization } = transport;
  try {
    await organization.create({ name: o.orgName, ownerEmail: o.email, ownerName: o.ownerName, password: o.password, now: Math.floor(ctx.nowMs() / 1000) });
  } catch (e) {
    if (e instanceof AlreadyInitializedError) {
      throw new ChatctlError(
        `${o.dataDir} already holds the organization "${organization.name}"`,
        'usage',
        `sign in to it as its owner (no password needed): chatctl login --embedded --data-dir ${o.dataDir}; or create another one: chatctl init --data-dir OTHER_DIR --profile NAME`,
      );
    }
    throw e;
  }
  return loginEmbedded(ctx, transport, o.email, o.password, o.profileName);
}

/** fetch_api_key against the embedded organization, then the profile is stored. */
export async function loginEmbedded(
  ctx: Pick<Context, 'env' | 'info'>,
  transport: Transport & { dataDir: string },
  email: string,
  password: string,
  profileName: string,
): Promise<Credentials> {
  const client = new ChatClient(transport, null);
  const res = await client.call(fetchApiKey, { username: email, password });
  const credentials = { email: res.email, apiKey: res.api_key };
  await storeProfile(ctx, profileName, { embedded: transport.dataDir, ...credentials });
  return credentials;
}

/**
 * On first use with nothing configured: create the organization and say so once (null: it exists, and
 * the credentials for it are not here). The owner's password is random and never shown (the stored API
 * key is what chatctl uses): the notice says how to get back in without it, and how to set one.
 */
export async function autoInitialize(
  ctx: Context,
  embedded: OrganizationTransport,
  target: Extract<Target, { kind: 'embedded' }>,
): Promise<Credentials | null> {
  if (embedded.organization.initialized) return null;
  const password = randomAlphanumeric(20);
  const credentials = await initialize(ctx, embedded, {
    dataDir: target.dataDir,
    orgName: 'Embedded organization',
    email: DEFAULT_OWNER_EMAIL,
    ownerName: 'Owner',
    password,
    profileName: target.profileName,
  });
  ctx.io.stderr.write(
    [
      `chatctl: created an embedded organization in ${target.dataDir}`,
      `chatctl: its owner is ${DEFAULT_OWNER_EMAIL}, logged in as profile "${target.profileName}"`,
      `chatctl: it has no password you know; to sign in again after logout: chatctl login --embedded (no password needed),`,
      `chatctl: to give the owner a password (for other clients, or chatctl serve): chatctl server reset-password ${DEFAULT_OWNER_EMAIL}`,
      `chatctl: to use a Zulip server instead: chatctl login --server URL --email EMAIL`,
      '',
    ].join('\n'),
  );
  return credentials;
}
