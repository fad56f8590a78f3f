/**
 * A Zulip server's default rate-limit rules (`RATE_LIMITING_RULES`, zproject/default_settings.py): what
 * the client's pacer assumes of a server that does not show every rule in its headers, and what
 * `chatctl serve --rate-limit` enforces. Rules of one domain are ordered shortest window first; a server's
 * `X-RateLimit-*` headers describe the last one.
 */

export interface RateRule {
  /** Requests allowed in any window of `seconds`. */
  calls: number;
  seconds: number;
}

/**
 * Per authenticated user. Level-263 servers had only the per-minute rule; current ones (Zulip 11, level
 * 421, and `main` at 442) add the hourly one. Which level added it is not established, so a client must
 * expect either: the headers tell (`X-RateLimit-Limit` above 200 means the hourly rule is the one shown).
 */
export const API_BY_USER: readonly RateRule[] = [
  { calls: 200, seconds: 60 },
  { calls: 2000, seconds: 3600 },
];

/** Per client address, for requests that do not authenticate (`/server_settings`, `/fetch_api_key`). */
export const API_BY_IP: readonly RateRule[] = [{ calls: 100, seconds: 60 }];

/** Failed password logins per username (`/fetch_api_key`); a success clears them. */
export const AUTHENTICATE_BY_USERNAME: RateRule = { calls: 5, seconds: 1800 };

/** The `msg` of a 429 (`code` RATE_LIMIT_HIT). */
export const RATE_LIMIT_MESSAGE = 'API usage exceeded rate limit';
