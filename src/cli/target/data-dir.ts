/**
 * Opening the embedded organization's data dir for the CLI. A data dir that holds no organization is
 * never created behind the user's back (a typo in --data-dir must not become a new, empty organization),
 * and whatever the file system or SQLite refuses is said with the path and what to do.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { EmbeddedTransport } from '../../client/embedded.js';
import type { EmbeddedOrganization } from '../../server/embedded.js';
import type { Context } from '../command/context.js';
import { notFound } from '../../errors.js';
import { ChatctlError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import type { Target } from './target.js';

export interface OpenOptions {
  /** Create the data dir and its database when missing (`init`, and first use with nothing configured). */
  create: boolean;
  /** What chose this data dir, for the message when it holds no organization. */
  source: string;
  log?: (line: string) => void;
  /** Where a note goes that permissions others had on the data dir's files were taken away (stderr). */
  warn?: (line: string) => void;
}

/** Where the notes of opening a data dir go (OpenOptions' log and warn): stderr, after "chatctl: ". */
export const noteOn =
  (ctx: Pick<Context, 'io'>) =>
  (line: string): void => {
    ctx.io.stderr.write(`chatctl: ${line}\n`);
  };

export function noOrganization(dir: string, source: string): ChatctlError {
  return notFound(
    `there is no organization in ${dir} (chosen by ${source})`,
    `check the path; to create an organization there: chatctl init --data-dir ${dir}`,
  );
}

/** Stats `path`; undefined when it does not exist, the reason in words for anything else. */
function statOrNothing(path: string, dir?: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fileError(e, dir) ?? e;
  }
}

/**
 * Why SQLite could not open or write `dbFile` in `dir`. SQLite says "unable to open database file" with no
 * path and no cause; the file system is asked which of them it is.
 */
async function storeError(e: unknown, dir: string, dbFile: string): Promise<unknown> {
  const { ForeignDatabaseError } = await import('../../server/embedded.js');
  if (e instanceof ForeignDatabaseError) {
    return new ChatctlError(
      `${dbFile} is ${e.message}; chatctl left it untouched`,
      'failure',
      'name the data dir chatctl created (--data-dir DIR); chatctl keeps its data in a directory of its own',
    );
  }
  const code = (e as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_'))
    return fileError(e) ?? new ChatctlError(`cannot open the organization in ${dir}: ${e instanceof Error ? e.message : String(e)}`);
  const said = e instanceof Error ? e.message : code;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new ChatctlError(
      `${dbFile} is not a chatctl database, or it is damaged (SQLite: ${said})`,
      'failure',
      `if it is another program's file, name chatctl's own data dir (--data-dir DIR); if it is damaged, restore it from a backup, or move it away (mv ${dbFile} ${dbFile}.broken) and create a new organization: chatctl init --data-dir ${dir}`,
    );
  }
  if (code === 'SQLITE_FULL') return fileError(Object.assign(new Error(said), { code: 'ENOSPC', syscall: 'write', path: dbFile }));
  for (const [path, mode] of [
    [dir, constants.R_OK | constants.W_OK | constants.X_OK],
    [dbFile, constants.R_OK | constants.W_OK],
  ] as const) {
    try {
      accessSync(path, mode);
    } catch (denied) {
      const known = fileError(denied, dir);
      if (known) return known;
    }
  }
  const isDir = statOrNothing(dbFile)?.isDirectory();
  if (isDir) return fileError(Object.assign(new Error(said), { code: 'EISDIR', syscall: 'open', path: dbFile }));
  return new ChatctlError(
    `cannot use ${dbFile} (SQLite: ${said})`,
    'failure',
    `check that chatctl can read and write ${dir} and the files in it (ls -la ${dir})`,
  );
}

/** The organization in `dir`, its store migrated; an error naming `dir` when it holds none and `create` is off. */
export async function openStore(dir: string, o: OpenOptions): Promise<EmbeddedOrganization> {
  const { EmbeddedOrganization, DB_FILE } = await import('../../server/embedded.js');
  const dbFile = join(dir, DB_FILE);
  if (!o.create) {
    const stat = statOrNothing(dir);
    if (stat && !stat.isDirectory()) throw fileError(Object.assign(new Error('not a directory'), { code: 'ENOTDIR', syscall: 'stat', path: dir }))!;
    if (!stat || !statOrNothing(dbFile, dir)) throw noOrganization(dir, o.source);
  }
  let organization: EmbeddedOrganization;
  try {
    organization = EmbeddedOrganization.open(dir, { log: o.log, warn: o.warn });
  } catch (e) {
    throw await storeError(e, dir, dbFile);
  }
  if (!o.create && !organization.initialized) {
    await organization.close();
    throw noOrganization(dir, o.source);
  }
  return organization;
}

/**
 * The embedded transport over an organization this process opened, which keeps the organization at hand for
 * what the CLI does as its operator: create it on first use, sign in as an account.
 */
export class OrganizationTransport extends EmbeddedTransport {
  constructor(readonly organization: EmbeddedOrganization) {
    super(organization, organization.dataDir);
  }
}

/** The embedded transport over the organization in `dir` (see openStore). */
export async function openOrganization(dir: string, o: OpenOptions): Promise<OrganizationTransport> {
  return new OrganizationTransport(await openStore(dir, o));
}

/** What the store refused its operator, in chatctl's words: an account it does not know is `No such user` (notFound). */
export async function operatorError(e: unknown): Promise<unknown> {
  const { UnknownUserError } = await import('../../server/embedded.js');
  return e instanceof UnknownUserError ? notFound(`No such user: ${e.email}`) : e;
}

/**
 * Runs `work` on the store of the embedded organization `target` names, as a server's operator works on its
 * database (serve's store stays open; this is for the commands that write it and are done): closed after,
 * and an account that does not exist is `No such user` (notFound).
 */
export async function withOperatorStore<T>(
  ctx: Pick<Context, 'io'>,
  target: Extract<Target, { kind: 'embedded' }>,
  work: (organization: EmbeddedOrganization) => Promise<T> | T,
): Promise<T> {
  const organization = await openStore(target.dataDir, { create: false, source: target.source, warn: noteOn(ctx) });
  try {
    return await work(organization);
  } catch (e) {
    throw await operatorError(e);
  } finally {
    await organization.close();
  }
}
