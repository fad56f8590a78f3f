/**
 * The embedded server's public entry: an organization's data dir opened in this process, as a server the
 * embedded transport hands requests to, with what its operator may do without a password (create it, sign in
 * as an account, set a password, grant a permission, serve it over HTTP), as a Zulip server's operator does
 * with manage.py. It loads SQLite and the router, so the CLI imports it only when a command opens an
 * organization; what it needs to know before that is in embedded-facts.ts.
 */
import type { OrganizationSnapshot } from '../api/org-snapshot.js';
import type { WireRequest, WireResponse } from '../api/wire.js';
import { featureLevel, setFeatureLevel } from './feature-level.js';
import { importMirror, type MirrorOptions, type MirrorOutcome } from './model/mirror-import.js';
import { accountToSignInAs, resetPassword } from './model/operator-access.js';
import type { OperatorPermission } from './operator-permissions.js';
import { changePermission } from './model/user-permissions.js';
import { getSetting, isInitialized } from './model/realm.js';
import { withAnswerCache } from './answer-cache.js';
import type { CachingAnswerer } from './answering.js';
import { Router } from './router.js';
import { hashPassword } from './secrets.js';
import type { ServeOptions, Serving } from './serve.js';
import { createOrganization } from './setup.js';
import { openDb, type Db } from './store/db.js';

export { BotAccountError, InactiveAccountError } from './model/operator-access.js';
export { UnknownUserError } from './model/user-permissions.js';
export type { ServeOptions, Serving } from './serve.js';
export { AlreadyInitializedError } from './setup.js';
export { FEATURE_LEVEL, MIN_FEATURE_LEVEL } from '../api/param-levels.js';
export { UnsupportedFeatureLevelError } from './feature-level.js';
export { NotEmptyError, SnapshotError, type MirrorOptions, type MirrorOutcome } from './model/mirror-import.js';
export type { OrganizationSnapshot } from '../api/org-snapshot.js';
export { DB_FILE, ForeignDatabaseError } from './store/db.js';

export interface OpenOptions {
  /** Where the router's log lines go. */
  log?: (line: string) => void;
  /** Where a note goes that permissions others had on the data dir's files were taken away. */
  warn?: (line: string) => void;
}

/** A new organization and its owner; the password in clear, hashed here. */
export interface NewEmbeddedOrganization {
  name: string;
  ownerEmail: string;
  ownerName: string;
  password: string;
  /** When it is created, in seconds. */
  now: number;
  /**
   * The feature level it answers as (MIN_FEATURE_LEVEL to FEATURE_LEVEL; absent: FEATURE_LEVEL, this
   * implementation's own). UnsupportedFeatureLevelError outside that range, before anything is written.
   */
  featureLevel?: number;
}

/** An account as the operator's actions name it back. */
export interface Account {
  id: number;
  email: string;
}

/** What signs a client in as an account. */
export interface AccountKey {
  email: string;
  apiKey: string;
}

export class EmbeddedOrganization {
  /** Built on the first request: the operator's actions need none. */
  private router: CachingAnswerer | undefined;

  private constructor(
    private readonly db: Db,
    readonly dataDir: string,
    private readonly log: ((line: string) => void) | undefined,
  ) {}

  /**
   * The store in `dataDir`, created when missing and migrated. Another program's database is a
   * ForeignDatabaseError; what SQLite or the file system refuse is thrown as they said it.
   */
  static open(dataDir: string, o: OpenOptions = {}): EmbeddedOrganization {
    return new EmbeddedOrganization(openDb(dataDir, o.warn), dataDir, o.log);
  }

  /** Whether the store holds an organization (create has run). */
  get initialized(): boolean {
    return isInitialized(this.db);
  }

  get name(): string {
    return getSetting(this.db, 'name');
  }

  /** Creates the organization and its owner; AlreadyInitializedError when the store holds one. */
  async create(o: NewEmbeddedOrganization): Promise<void> {
    const passwordHash = await hashPassword(o.password);
    this.db
      .transaction(() => {
        if (o.featureLevel !== undefined) setFeatureLevel(this.db, o.featureLevel);
        createOrganization(this.db, { name: o.name, ownerEmail: o.ownerEmail, ownerName: o.ownerName, passwordHash, now: o.now });
      })
      .immediate();
  }

  /**
   * The feature level the organization answers as: what GET /server_settings and POST /register report, which
   * operations exist (newer ones are 404, or 405 where the path has other methods) and which parameters are
   * read (newer ones are ignored and listed in `ignored_parameters_unsupported`; renamed ones are read under
   * their older names), all as the catalogue declares them.
   */
  get featureLevel(): number {
    return featureLevel(this.db);
  }

  /** Sets the level it answers as, from the next request on; UnsupportedFeatureLevelError outside MIN_FEATURE_LEVEL..FEATURE_LEVEL. */
  setFeatureLevel(level: number): void {
    setFeatureLevel(this.db, level);
  }

  /**
   * Builds the organization as a copy of a real one (a new data dir only: NotEmptyError otherwise), with its
   * IDs and its feature level (this implementation's own when the real one is newer): settings, domains,
   * linkifiers, profile fields and values, folders, groups, channels and subscribers, accounts and roles. No
   * messages, passwords or keys are copied; every account gets a new random key and the operator's is
   * returned. Nobody holds operator permissions, as on a stock server. SnapshotError for a snapshot that lacks
   * what is needed (the operator's account among them); UnsupportedFeatureLevelError for a server older than
   * MIN_FEATURE_LEVEL. All or nothing: one transaction.
   */
  mirror(snapshot: OrganizationSnapshot, o: MirrorOptions): MirrorOutcome {
    return importMirror(this.db, snapshot, o);
  }

  handle(req: WireRequest, signal?: AbortSignal): Promise<WireResponse> {
    return this.routerOf().handle(req, signal);
  }

  /** Requests given together (a bulk run's rows): answered as `handle` answers each, in one write transaction. */
  handleBatch(reqs: readonly WireRequest[], signal?: AbortSignal): Promise<WireResponse[]> {
    return this.routerOf().handleBatch(reqs, signal);
  }

  private routerOf(): CachingAnswerer {
    this.router ??= withAnswerCache(new Router({ db: this.db, dataDir: this.dataDir, log: this.log }));
    return this.router;
  }

  /** Waits for the work requests started in the background, then closes the store. */
  async close(): Promise<void> {
    if (this.router) await this.router.close();
    else this.db.close();
  }

  /**
   * The key of the account `email`, or with none given the first active owner's (the one `init` made).
   * UnknownUserError, or InactiveAccountError for a deactivated account.
   */
  signInAs(email?: string): AccountKey {
    const user = accountToSignInAs(this.db, email);
    return { email: user.email, apiKey: user.api_key };
  }

  /** Sets the password of the account `email`, deactivated ones too. UnknownUserError, or BotAccountError for a bot. */
  async resetPassword(email: string, password: string): Promise<Account> {
    const user = await resetPassword(this.db, email, password);
    return { id: user.id, email: user.email };
  }

  /** Grants or revokes `permission` for the account `email` (any account); UnknownUserError. */
  changePermission(email: string, permission: OperatorPermission, granted: boolean): { account: Account; changed: boolean } {
    const { user, changed } = changePermission(this.db, email, permission, granted);
    return { account: { id: user.id, email: user.email }, changed };
  }

  /** Serves the organization over HTTP until the returned Serving is stopped; close the organization after. */
  async serve(o: ServeOptions): Promise<Serving> {
    // Loaded here: the HTTP server, housekeeping and checkpointer are serve's alone, not every command's.
    const { serveHttp } = await import('./serve.js');
    return serveHttp(this.db, this.dataDir, o);
  }
}
