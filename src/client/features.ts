/**
 * A server's feature level: where it comes from and how long it is trusted. What each level changes is
 * declared in the catalogue (src/api/operations) and applied in shape.ts.
 *
 * The level comes from GET /server_settings (`zulip_feature_level`, or the document's
 * `svc_feature_level`; absent = 0). A CLI profile caches it for a day (`FEATURE_TTL_SECONDS`); a client
 * without a cache reads it once, when first asked. What a server cannot do is refused with
 * FeatureLevelError: "needs feature level ≥ N (server has M)", exit 1.
 */
import { nowMs } from '../time.js';
import { getServerSettings } from '../api/operations/server.js';
import type { ServerSettings } from '../api/types.js';

/** How long a profile's cached level is trusted, s. */
export const FEATURE_TTL_SECONDS = 24 * 60 * 60;

/** A command the server is too old for; exits 1. */
export class FeatureLevelError extends Error {
  constructor(
    readonly what: string,
    readonly needed: number,
    readonly serverLevel: number,
    detail?: string,
  ) {
    super(`${what} needs feature level ≥ ${needed} (server has ${serverLevel})${detail ? `: ${detail}` : ''}`);
    this.name = 'FeatureLevelError';
  }
}

/** What chatctl keeps of GET /server_settings. */
export interface ServerFacts {
  featureLevel: number;
  version?: string;
  /** UNIX seconds of the read. */
  checkedAt: number;
}

/** Facts, and whether this process read them from the server (false: from a profile's cache). */
export type KnownFacts = ServerFacts & { read: boolean };

export function factsFromSettings(s: Partial<ServerSettings>, nowSeconds: number): ServerFacts {
  return {
    featureLevel: s.zulip_feature_level ?? s.svc_feature_level ?? 0,
    version: s.zulip_version ?? s.svc_version,
    checkedAt: nowSeconds,
  };
}

/** The part of a client a feature source needs. */
export interface SettingsReader {
  call(op: typeof getServerSettings, params: Record<string, never>): Promise<ServerSettings>;
}

export interface FeatureSource {
  /** Whether calls are shaped for the server's level and held to it (false: today's shapes, unread level). */
  readonly gate: boolean;
  /** The facts, from the cache while fresh; `refresh` reads the server unless this process already did. */
  facts(reader: SettingsReader, refresh?: boolean): Promise<KnownFacts>;
}

export interface FeatureCacheOptions {
  gate?: boolean;
  /** A profile's cached facts. */
  cached?: Partial<ServerFacts>;
  ttlSeconds?: number;
  /** ms since the epoch. */
  nowMs?: () => number;
  /** Stores freshly read facts (a profile's cache). */
  save?: (facts: ServerFacts) => Promise<void>;
}

/** Facts from a cache while fresh, else read once per process (concurrent callers share the read). */
export class FeatureCache implements FeatureSource {
  readonly gate: boolean;
  private reading: Promise<KnownFacts> | undefined;

  constructor(private readonly opts: FeatureCacheOptions = {}) {
    this.gate = opts.gate ?? false;
  }

  facts(reader: SettingsReader, refresh = false): Promise<KnownFacts> {
    if (this.reading) return this.reading;
    const c = this.opts.cached;
    const now = Math.floor((this.opts.nowMs ?? nowMs)() / 1000);
    const ttl = this.opts.ttlSeconds ?? FEATURE_TTL_SECONDS;
    if (!refresh && c?.featureLevel !== undefined && c.checkedAt !== undefined && now - c.checkedAt < ttl && c.checkedAt <= now) {
      return Promise.resolve({ featureLevel: c.featureLevel, version: c.version, checkedAt: c.checkedAt, read: false });
    }
    this.reading = (async () => {
      const facts = factsFromSettings(await reader.call(getServerSettings, {}), now);
      await this.opts.save?.(facts);
      return { ...facts, read: true };
    })();
    // A failed read is not remembered: the next caller tries again.
    this.reading.catch(() => (this.reading = undefined));
    return this.reading;
  }
}
