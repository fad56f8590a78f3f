/**
 * Feature levels: what the server can do, and how chatctl adapts to older servers (the document's §9).
 *
 * The level comes from GET /server_settings (`zulip_feature_level`, or the document's
 * `svc_feature_level`; absent = 0). A CLI profile caches it for a day (`FEATURE_TTL_SECONDS`); a client
 * without a cache reads it once, when first asked. Commands then either adapt, with the named choices in
 * `choose`, or refuse with `requireFeature`: "needs feature level ≥ N (server has M)", exit 1.
 */
import { getServerSettings } from '../api/operations/server.js';
import type { ServerSettings } from '../api/types.js';

/** How long a profile's cached level is trusted, s. */
export const FEATURE_TTL_SECONDS = 24 * 60 * 60;

/** The level at which a server gained each thing chatctl adapts to. */
export const FEATURES = {
  /** Channel typing notifications (`type: stream`). */
  'typing.channels': 58,
  /** `invite_expires_in_days` (before: no expiry parameter). */
  'invites.expires_in_days': 96,
  /** `invite_expires_in_minutes`, replacing `invite_expires_in_days`. */
  'invites.expires_in_minutes': 126,
  /** Every success response may carry `ignored_parameters_unsupported`. */
  'responses.ignored_parameters': 167,
  /** POST /user_topics, replacing PATCH /users/me/subscriptions/muted_topics. */
  user_topics: 170,
  /** Typing type `direct`, replacing `private`. */
  'typing.direct': 174,
  /** Message type `direct` on POST /messages, replacing `private`. */
  'messages.direct': 174,
  /** Linkifiers' `url_template`, replacing `url_format`. */
  'linkifiers.url_template': 176,
  /** Channel typing names the channel with `stream_id` (before: `to: [stream_id]`); `private` removed. */
  'typing.stream_id': 215,
  /** Typing type `channel`, an alias of `stream`. */
  'typing.channel_type': 248,
  /** Presence `last_update_id`, replacing `slim_presence`. */
  'presence.last_update_id': 263,
  /** Empty topic names (the general-chat topic); before, it was the topic "(no topic)". */
  'topics.empty_name': 334,
  /** Typing while editing a message, at POST /message_edit_typing. */
  'typing.edit': 351,
  /** ... moved to POST /messages/{message_id}/typing. */
  'typing.edit_path': 361,
  /** GET /users `user_ids`. */
  'getUsers.user_ids': 384,
} as const;

export type FeatureName = keyof typeof FEATURES;

export const supportsAt = (level: number, feature: FeatureName): boolean => level >= FEATURES[feature];

/** The document's adaptations as named choices: each takes the server's level. */
export const choose = {
  /** Topic visibility: `user_topics` (POST /user_topics), or `muted_topics` (PATCH, mute/unmute only). */
  userTopics: (level: number): 'user_topics' | 'muted_topics' => (supportsAt(level, 'user_topics') ? 'user_topics' : 'muted_topics'),
  /** Where typing-while-editing goes: the path, and whether `message_id` is in it or in the body. */
  editTyping: (level: number): { path: string; messageIdIn: 'path' | 'body' } =>
    supportsAt(level, 'typing.edit_path')
      ? { path: '/messages/{message_id}/typing', messageIdIn: 'path' }
      : { path: '/message_edit_typing', messageIdIn: 'body' },
  /** The typing `type` of a direct message. */
  directTypingType: (level: number): 'direct' | 'private' => (supportsAt(level, 'typing.direct') ? 'direct' : 'private'),
  /** How channel typing names the channel: `stream_id`, or a one-element `to` list. */
  channelTypingTarget: (level: number): 'stream_id' | 'to' => (supportsAt(level, 'typing.stream_id') ? 'stream_id' : 'to'),
  /** The invitation expiry parameter, and its value for `minutes` (whole days, rounded up, before 126). */
  inviteExpiry: (level: number, minutes: number | null): { name: 'invite_expires_in_minutes' | 'invite_expires_in_days'; value: number | null } =>
    supportsAt(level, 'invites.expires_in_minutes')
      ? { name: 'invite_expires_in_minutes', value: minutes }
      : { name: 'invite_expires_in_days', value: minutes === null ? null : Math.ceil(minutes / 1440) },
  /** The linkifier field holding the URL pattern. */
  linkifierUrlField: (level: number): 'url_template' | 'url_format' =>
    supportsAt(level, 'linkifiers.url_template') ? 'url_template' : 'url_format',
  /** How presence asks for the modern format: `last_update_id` (incremental), or `slim_presence`. */
  presenceFormat: (level: number): 'last_update_id' | 'slim_presence' =>
    supportsAt(level, 'presence.last_update_id') ? 'last_update_id' : 'slim_presence',
  /** Who filters GET /users by ID: the server (`user_ids`), or the client over the full list. */
  usersByIds: (level: number): 'server' | 'client' => (supportsAt(level, 'getUsers.user_ids') ? 'server' : 'client'),
};

/** A command the server is too old for; exits 1. */
export class FeatureLevelError extends Error {
  constructor(
    readonly what: string,
    readonly needed: number,
    readonly serverLevel: number,
  ) {
    super(`${what} needs feature level ≥ ${needed} (server has ${serverLevel})`);
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
  /** Whether operations are held to their `minFeatureLevel` (a remote server; the embedded one runs what it routes). */
  readonly gate: boolean;
  /** The facts, from the cache while fresh; `refresh` reads the server unless this process already did. */
  facts(reader: SettingsReader, refresh?: boolean): Promise<ServerFacts & { read: boolean }>;
}

export interface FeatureCacheOptions {
  gate?: boolean;
  /** A profile's cached facts. */
  cached?: Partial<ServerFacts>;
  ttlSeconds?: number;
  /** ms since the epoch. */
  now?: () => number;
  /** Stores freshly read facts (a profile's cache). */
  save?: (facts: ServerFacts) => Promise<void>;
}

/** Facts from a cache while fresh, else read once per process (concurrent callers share the read). */
export class FeatureCache implements FeatureSource {
  readonly gate: boolean;
  private reading: Promise<ServerFacts & { read: boolean }> | undefined;

  constructor(private readonly opts: FeatureCacheOptions = {}) {
    this.gate = opts.gate ?? false;
  }

  facts(reader: SettingsReader, refresh = false): Promise<ServerFacts & { read: boolean }> {
    if (this.reading) return this.reading;
    const c = this.opts.cached;
    const now = Math.floor((this.opts.now ?? Date.now)() / 1000);
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
