import { isAbsolute, resolve } from 'node:path';
import { ApiError } from '../../api/errors.js';
import { fetchApiKey, getServerSettings } from '../../api/operations/server.js';
import { getOwnUser } from '../../api/operations/users.js';
import { classify, type Meaning } from '../../api/server-messages.js';
import type { ServerSettings } from '../../api/types.js';
import type { ChatClient, Credentials } from '../../client/client.js';
import { factsFromSettings } from '../../client/features.js';
import { readConfig, type Profile } from '../../config/profiles.js';
import type { AccountKey, EmbeddedOrganization } from '../../server/embedded.js';
import { defineCommand } from '../command/command.js';
import { remoteClient, tlsSettings } from '../target/connect.js';
import type { Context } from '../command/context.js';
import { ChatctlError, exitKindOf, usageError } from '../core/errors.js';
import { flag, type Values } from '../core/flags.js';
import { readSecret } from '../core/io.js';
import { DEFAULT_OWNER_EMAIL } from '../target/embedded-org.js';
import { storeProfile } from '../target/store-profile.js';
import { embeddedDataDir, normalizeSite, selectedProfileName, tlsFrom } from '../target/target.js';

const API_KEY = /^[A-Za-z0-9]{32}$/;

/** Declared apart from the command so that its helpers take the parsed options by type. */
const LOGIN_FLAGS = {
  email: flag.string(
    '--email <email>',
    'the e-mail address to log in as (or the directory username, where the server allows one); --embedded: default the owner',
  ),
  passwordStdin: flag.bool('--password-stdin', 'read the password from stdin (--embedded: check it rather than read the key from the files)'),
  apiKeyStdin: flag.bool('--api-key-stdin', 'read an API key from stdin instead of a password (for servers without password login)'),
  embedded: flag.bool('--embedded', 'log in to the embedded organization (in --data-dir or the default data dir)'),
};

type LoginOptions = Values<typeof LOGIN_FLAGS>;

async function readPassword(ctx: Context, fromStdin: boolean, prompt = 'Password:'): Promise<string> {
  if (fromStdin) {
    const password = await readSecret(ctx.io.stdin);
    if (!password) throw usageError('--password-stdin read an empty password');
    return password;
  }
  return ctx.prompter.password(prompt, '--password-stdin');
}

async function readApiKey(ctx: Context): Promise<string> {
  const key = (await readSecret(ctx.io.stdin)).trim();
  if (!API_KEY.test(key)) throw usageError('--api-key-stdin read no API key (32 letters and digits)');
  return key;
}

/** Verifies pasted credentials with GET /users/me; the e-mail the server knows the user by comes back. */
async function verifyKey(client: ChatClient): Promise<Credentials> {
  const me = await client.call(getOwnUser, {});
  return { email: me.delivery_email ?? me.email, apiKey: client.credentials!.apiKey };
}

/** Whether fetch_api_key can work: e-mail/password or directory (LDAP) login. */
function passwordLoginAllowed(s: ServerSettings): boolean {
  return s.email_auth_enabled || s.authentication_methods?.password === true || s.authentication_methods?.ldap === true;
}

/** The other ways in a server offers, by their display names. */
function otherMethods(s: ServerSettings): string[] {
  const external = (s.external_authentication_methods ?? []).map((m) => m.display_name);
  if (external.length) return external;
  return Object.entries(s.authentication_methods ?? {})
    .filter(([name, on]) => on && !['password', 'email', 'dev', 'ldap'].includes(name))
    .map(([name]) => name);
}

/**
 * Reads the server settings, following `realm_url` once when the organization lives at another URL (a
 * server answering for its organization's canonical address), never from https to plain http.
 */
async function settingsOf(
  ctx: Context,
  given: string,
  tlsBase: ReturnType<typeof tlsFrom>,
): Promise<{ site: string; client: ChatClient; settings: ServerSettings }> {
  let client = await remoteClient(ctx, given, tlsBase);
  let settings: ServerSettings = await client.call(getServerSettings, {});
  const realm = settings.realm_url ?? settings.realm_uri;
  if (!realm) return { site: given, client, settings };
  const canonical = normalizeSite(realm);
  if (canonical === given) return { site: given, client, settings };
  if (given.startsWith('https:') && canonical.startsWith('http:')) {
    ctx.warn(`${given} names its organization URL as ${canonical}; not following it from https to plain http`);
    return { site: given, client, settings };
  }
  ctx.info(`chatctl: ${given} is the organization at ${canonical}; logging in there`);
  await client.close();
  client = await remoteClient(ctx, canonical, tlsBase);
  settings = await client.call(getServerSettings, {});
  return { site: canonical, client, settings };
}

/**
 * The root domain of a server with several organizations has no accounts (`Invalid subdomain`, code
 * NONEXISTENT_SUBDOMAIN): say that the organization's own address is needed.
 */
function rootDomainHint(e: unknown, site: string): unknown {
  if (!(e instanceof ApiError) || e.code !== 'NONEXISTENT_SUBDOMAIN') return e;
  const host = new URL(site).host;
  return new ChatctlError(
    `${site} hosts several organizations and is none of them (${e.msg})`,
    'usage',
    `log in at your organization's own address, e.g. chatctl login --server https://ORGANIZATION.${host} --email EMAIL`,
  );
}

/** What to do when the server turned the credentials down: never "chatctl login", which is what just failed. */
const REFUSAL_HINTS: Partial<Record<Meaning, string>> = {
  authenticationFailed: 'check the e-mail address and the password; a forgotten password is reset on the login page of the organization',
  invalidApiKey: "check the key (Settings > Account & privacy > API key, on the web) and that --email is its account's address",
  unauthorized: "check the key (Settings > Account & privacy > API key, on the web) and that --email is its account's address",
  userDeactivated: 'the account is deactivated: an administrator of the organization can reactivate it',
  passwordResetRequired: 'set a new password on the login page of the organization (Forgot your password?), then log in with it',
};

/** A login the server refused, with the hint for that refusal instead of the one other commands give. */
function loginRefused(e: unknown, embedded: boolean): unknown {
  if (!(e instanceof ApiError) || exitKindOf(e) !== 'auth') return e;
  const meaning = classify(e)?.meaning;
  const hint =
    embedded && meaning === 'authenticationFailed'
      ? 'check the e-mail address and the password; whoever can read the data dir sets a password with: chatctl server reset-password EMAIL'
      : meaning && REFUSAL_HINTS[meaning];
  return new ChatctlError(`${e.msg}${e.code ? ` (${e.code})` : ''}`, 'auth', hint);
}

/** TLS files to remember in the profile, as absolute paths. */
function tlsFiles(ctx: Context, tls: ReturnType<typeof tlsFrom>): Pick<Profile, 'caFile' | 'clientCert' | 'clientKey'> {
  const { caFile, clientCert, clientKey } = tlsSettings(ctx, tls);
  const abs = (p: string | undefined) => (p === undefined ? undefined : isAbsolute(p) ? p : resolve(p));
  const out: Pick<Profile, 'caFile' | 'clientCert' | 'clientKey'> = {};
  if (caFile) out.caFile = abs(caFile);
  if (clientCert) out.clientCert = abs(clientCert);
  if (clientKey) out.clientKey = abs(clientKey);
  return out;
}

async function loginRemote(ctx: Context, opts: LoginOptions, profileName: string): Promise<void> {
  const tls = tlsFrom(ctx.env);
  const { site, client, settings } = await settingsOf(ctx, normalizeSite(ctx.globals.server!), tls);
  try {
    const { email } = opts;
    let credentials: Credentials;
    if (opts.apiKeyStdin) {
      if (!email) throw usageError('--api-key-stdin needs --email: the key is checked as EMAIL:KEY');
      const apiKey = await readApiKey(ctx);
      const keyed = await remoteClient(ctx, site, tls, { email, apiKey });
      try {
        credentials = await verifyKey(keyed);
      } finally {
        await keyed.close();
      }
    } else {
      if (!passwordLoginAllowed(settings)) {
        const methods = otherMethods(settings);
        throw new ChatctlError(
          `${site} does not allow password login${methods.length ? `; it offers ${methods.join(', ')}` : ''}`,
          'auth',
          `log in on the web, copy your API key (Settings > Account & privacy > API key), then: chatctl login --server ${site} --email EMAIL --api-key-stdin < key-file`,
        );
      }
      const directory = settings.require_email_format_usernames === false;
      if (!email) throw usageError(directory ? '--email is required (on this server, a directory username works too)' : '--email is required');
      if (!directory && !email.includes('@')) throw usageError(`${site} logs in with e-mail addresses, not "${email}"`);
      const prompt = directory ? `Password for ${email} (directory login: the username need not be an e-mail address):` : `Password for ${email}:`;
      const password = await readPassword(ctx, opts.passwordStdin, prompt);
      const res = await client.call(fetchApiKey, { username: email, password }).catch((e: unknown) => {
        throw rootDomainHint(e, site);
      });
      credentials = { email: res.email, apiKey: res.api_key };
    }
    const facts = factsFromSettings(settings, Math.floor(ctx.nowMs() / 1000));
    await storeProfile(ctx, profileName, {
      server: site,
      ...credentials,
      featureLevel: facts.featureLevel,
      ...(facts.version !== undefined ? { serverVersion: facts.version } : {}),
      checkedAt: facts.checkedAt,
      ...tlsFiles(ctx, tls),
    });
    const version = facts.version ? `, server ${facts.version}` : '';
    ctx.info(`chatctl: logged in to ${site} as ${credentials.email} (profile "${profileName}", feature level ${facts.featureLevel}${version})`);
  } finally {
    await client.close();
  }
}

/**
 * The embedded organization: whoever can open its files already holds it, so without --password-stdin or
 * --api-key-stdin the account's key is read from the store (the owner's unless --email names another), as
 * a server's operator can with manage.py. The two flags check a password or a key the usual way.
 */
async function loginEmbeddedDir(ctx: Context, opts: LoginOptions, profileName: string): Promise<void> {
  const dataDir = embeddedDataDir(ctx.globals, ctx.env, readConfig(ctx.env));
  const { email } = opts;
  const [{ openOrganization, noteOn }, { loginEmbedded }, { ChatClient }] = await Promise.all([
    import('../target/data-dir.js'),
    import('../target/embedded-org.js'),
    import('../../client/client.js'),
  ]);
  const transport = await openOrganization(dataDir, { create: false, source: 'login --embedded', warn: noteOn(ctx) });
  try {
    let creds: Credentials;
    if (opts.apiKeyStdin) {
      creds = await verifyKey(new ChatClient(transport, { email: email ?? DEFAULT_OWNER_EMAIL, apiKey: await readApiKey(ctx) }));
      await storeProfile(ctx, profileName, { embedded: dataDir, ...creds });
    } else if (opts.passwordStdin) {
      creds = await loginEmbedded(ctx, transport, email ?? DEFAULT_OWNER_EMAIL, await readPassword(ctx, true), profileName);
    } else {
      creds = await operatorCredentials(transport.organization, email);
      await storeProfile(ctx, profileName, { embedded: dataDir, ...creds });
    }
    ctx.info(`chatctl: logged in to the embedded organization in ${dataDir} as ${creds.email} (profile "${profileName}")`);
  } finally {
    await transport.close();
  }
}

/** The key of the account to sign in as, read from the store. */
async function operatorCredentials(organization: EmbeddedOrganization, email: string | undefined): Promise<AccountKey> {
  const [{ InactiveAccountError }, { operatorError }] = await Promise.all([import('../../server/embedded.js'), import('../target/data-dir.js')]);
  try {
    return organization.signInAs(email);
  } catch (e) {
    if (e instanceof InactiveAccountError)
      throw new ChatctlError(e.message, 'auth', `reactivate it first, signed in as an owner: chatctl users reactivate ${e.email}`);
    throw await operatorError(e);
  }
}

export const commands = [
  defineCommand({
    path: ['login'],
    summary: 'log in and store the credentials in a profile',
    description:
      'Reads the server settings first: follows the organization URL (realm_url) when the server names another ' +
      'one, tells whether usernames must be e-mail addresses, and lists the login methods when password login is ' +
      'off. Then exchanges the e-mail and password for an API key (fetch_api_key), or checks a pasted API key ' +
      '(--api-key-stdin, with GET /users/me), and stores the e-mail the server returned and the key, never the ' +
      "password, in the profile (file mode 0600), with the server's feature level and the TLS files given. " +
      '--embedded signs in to the embedded organization (in --data-dir, or the data dir of the profile) instead: whoever ' +
      'can read its files already holds it, so no password is needed; it signs in as the owner, or as --email. ' +
      'The profile written becomes the default only when there is no default yet; stderr says which is the default.',
    examples: [
      'chatctl login --server https://chat.example.com --email admin@example.com',
      'printf %s "$PASSWORD" | chatctl login --server https://chat.example.com --email admin@example.com --password-stdin',
      'chatctl login --server https://chat.example.com --email admin@example.com --api-key-stdin < api-key.txt',
      'chatctl login --server https://chat.internal --ca-file corp-ca.pem --email me@corp.example',
      'chatctl login --embedded --data-dir ~/chat',
      'chatctl login --embedded --data-dir ~/chat --email admin@acme.test',
      'chatctl login --profile work --server https://chat.work.test --email me@work.test',
    ],
    options: LOGIN_FLAGS,
    check(opts) {
      if (opts.passwordStdin && opts.apiKeyStdin) throw usageError('--password-stdin and --api-key-stdin exclude each other');
    },
    async run(opts, ctx) {
      const g = ctx.globals;
      const profileName = selectedProfileName(g, ctx.env, readConfig(ctx.env));
      const { embedded } = opts;
      // --server is a global option: the rule between it and --embedded is checked here, where globals are known.
      if (embedded && g.server) throw usageError('--embedded and --server exclude each other');
      if (!embedded && !g.server) throw usageError('say where to log in: --server URL, or --embedded');
      await (embedded ? loginEmbeddedDir(ctx, opts, profileName) : loginRemote(ctx, opts, profileName)).catch((e: unknown) => {
        throw loginRefused(e, embedded);
      });
    },
  }),
];
