/**
 * A copy of a real organization in a new embedded data dir (org mirror, org rehearse): the server's own
 * answers read once (snapshot.ts), built into a new organization with the same IDs and feature level
 * (EmbeddedOrganization.mirror), and saved beside it as the copy's base (`base.json`, 0600, no secret), which
 * the three-way plan compares the copy and production with. The copy is reached as its operator (the person
 * who mirrored) with the fresh key the mirror gave that account, through the store's own sign-in: whoever can
 * read the data dir may, as for any embedded organization.
 */
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { OrganizationSnapshot } from '../../api/org-snapshot.js';
import { ChatClient } from '../../client/client.js';
import { makeDirs } from '../../make-dirs.js';
import type { Context } from '../command/context.js';
import { ChatctlError } from '../core/errors.js';
import { clientHooks, clientOptions } from '../target/connect.js';
import { noteOn, OrganizationTransport, openStore } from '../target/data-dir.js';
import { isObj } from './model.js';
import { readSnapshot } from './snapshot.js';

/** The base a copy was made from, in its data dir. */
const BASE_FILE = 'base.json';
const FORMAT = 'chatctl-mirror/v1';

export interface MirrorRecord {
  chatctl: typeof FORMAT;
  /** Where the copy came from: the site, and the profile that reached it (the default of org plan --against). */
  source: { site: string; profile?: string; feature_level: number; version: string };
  /** The copy's level: the source's, or this chatctl's own when the source is newer. */
  feature_level: number;
  /** The account that mirrored: the copy is reached as it. */
  operator: { id: number; email: string };
  /** When the snapshot was read, s. */
  taken_at: number;
  snapshot: OrganizationSnapshot;
}

export interface Mirrored {
  record: MirrorRecord;
  apiKey: string;
  counts: { users: number; channels: number; groups: number; subscriptions: number };
  requests: number;
}

/** Refuses a target that exists and is not an empty directory: a copy never lands on anything. */
function checkEmpty(dir: string): boolean {
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new ChatctlError(`${dir} is not a directory`, 'usage', 'name a new directory: --to DIR');
    entries = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  if (entries.length) throw new ChatctlError(`${dir} is not empty: a mirror is made in a new directory`, 'usage', 'name a new or empty directory: --to DIR');
  return true;
}

/**
 * Reads the organization `source` reaches and builds its copy in `dir` (new or empty). On any failure, what
 * was made in `dir` is removed.
 */
export async function mirrorInto(ctx: Context, source: { client: ChatClient; site: string; profile?: string }, dir: string): Promise<Mirrored> {
  const dataDir = resolve(dir);
  const existed = checkEmpty(dataDir);
  const { snapshot, caller, requests } = await readSnapshot(ctx, source.client);
  const { SnapshotError, UnsupportedFeatureLevelError } = await import('../../server/embedded.js');
  makeDirs(dataDir);
  chmodSync(dataDir, 0o700);
  try {
    const organization = await openStore(dataDir, { create: true, source: '--to', warn: noteOn(ctx) });
    let outcome: ReturnType<typeof organization.mirror>;
    try {
      outcome = organization.mirror(snapshot, { operatorEmail: caller.email, now: Math.floor(ctx.nowMs() / 1000) });
    } catch (e) {
      if (e instanceof SnapshotError || e instanceof UnsupportedFeatureLevelError) throw new ChatctlError(`cannot mirror ${source.site}: ${e.message}`);
      throw e;
    } finally {
      await organization.close();
    }
    const record: MirrorRecord = {
      chatctl: FORMAT,
      source: {
        site: source.site,
        ...(source.profile ? { profile: source.profile } : {}),
        feature_level: snapshot.register.zulip_feature_level,
        version: snapshot.register.zulip_version,
      },
      feature_level: outcome.featureLevel,
      operator: { id: outcome.operator.id, email: outcome.operator.email },
      taken_at: Math.floor(ctx.nowMs() / 1000),
      snapshot,
    };
    writeFileSync(join(dataDir, BASE_FILE), `${JSON.stringify(record)}\n`, { mode: 0o600 });
    return { record, apiKey: outcome.operator.apiKey, counts: outcome.counts, requests };
  } catch (e) {
    // Nothing half made is left behind: the directory was new or empty.
    if (existed) for (const f of readdirSync(dataDir)) rmSync(join(dataDir, f), { recursive: true, force: true });
    else rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
}

/** The base saved in a copy's data dir; an error naming the directory when it is no copy. */
function readMirrorRecord(dir: string): MirrorRecord {
  const file = join(resolve(dir), BASE_FILE);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ChatctlError(
      missing ? `${dir} is not a copy made by org mirror (it has no ${BASE_FILE})` : `${file} cannot be read: ${e instanceof Error ? e.message : String(e)}`,
      missing ? 'notFound' : 'failure',
      'make one: chatctl org mirror --from PROFILE --to DIR',
    );
  }
  if (!isObj(value) || value.chatctl !== FORMAT || !isObj(value.snapshot) || !isObj(value.operator) || !isObj(value.source)) {
    throw new ChatctlError(`${file} is not a base saved by org mirror (${FORMAT})`);
  }
  // Shape checked above; the snapshot's parts are read as the server's answers are, leniently.
  return value as unknown as MirrorRecord;
}

/** A client of the copy in `dir`, signed in as the account that mirrored it, shaped for the copy's level. */
export async function copyClient(ctx: Context, dir: string): Promise<{ client: ChatClient; record: MirrorRecord }> {
  const record = readMirrorRecord(dir);
  const organization = await openStore(resolve(dir), { create: false, source: '--desired', warn: noteOn(ctx) });
  const transport = new OrganizationTransport(organization);
  try {
    const key = organization.signInAs(record.operator.email);
    return { client: new ChatClient(transport, key, clientHooks(ctx), await clientOptions(ctx, transport)), record };
  } catch (e) {
    await transport.close();
    throw e;
  }
}
