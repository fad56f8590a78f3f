/**
 * How much one request may carry, declared once. The HTTP server reads the byte and count limits, the
 * catalogue's wire types the list and JSON ones (so client and server share them), the handlers the rest.
 * Values are a stock Zulip server's where it has one; where it has none, ours are named as such.
 */

const MiB = 1024 * 1024;

/** An uploaded file, in MiB (a Zulip server's default `MAX_FILE_UPLOAD_SIZE`). */
const uploadMiB = 25;

export const LIMITS = {
  uploadMiB,
  /**
   * A whole request body: the largest upload and 1 MiB for the form around it. (Zulip's nginx stops bodies
   * at `client_max_body_size 25m`, so its own uploads stop short of the upload limit; ours reach it.)
   */
  bodyBytes: (uploadMiB + 1) * MiB,
  /** A body without its files: url-encoded form data, or the text fields of a multipart one (Django's `DATA_UPLOAD_MAX_MEMORY_SIZE`, 2.5 MiB). */
  formBytes: 2_621_440,
  /**
   * A body read before the request's credentials are checked (ours: Zulip's nginx buffers a whole body before
   * Django looks at the key). A larger one is read only once its key is checked; an operation that takes no
   * key takes no larger body.
   */
  bodyBeforeAuthBytes: 64 * 1024,
  /** Connections `serve` holds at once; one more is answered 503 and closed (ours: Zulip's nginx has worker_connections 10,000 per worker). */
  connections: 1024,
  /** Connections from one address at once (ours: a Zulip server leaves this to the operator's nginx or firewall). */
  connectionsPerAddress: 128,
  /** Parameters in the body, and separately in the query string (Django's `DATA_UPLOAD_MAX_NUMBER_FIELDS`). */
  fields: 1000,
  /** The request line and headers together (Node's default, above nginx's 8 KiB per header line). */
  headerBytes: 16 * 1024,
  /** Nesting of a JSON-encoded parameter (orjson, which Zulip parses with, refuses deeper documents). */
  jsonDepth: 1024,
  /** Items of a JSON list parameter unless the catalogue names another bound (ours: Zulip leaves most lists unbounded). */
  listItems: 10_000,
  /** Terms of a narrow (ours: Zulip has no bound, and a real narrow has a handful). */
  narrowTerms: 100,
  /** A linkifier pattern, in characters (ours: Zulip's RE2 refuses programs over its memory budget instead). */
  linkifierPattern: 1000,
  /**
   * Applying the organization's linkifiers to one message, in ms: past it the message is refused as unrenderable.
   * Ours: a Zulip server gives its whole renderer 5 s (zerver/lib/markdown/__init__.py markdown_convert,
   * unsafe_timeout), but there each request has a worker process of its own; here every request waits for it.
   */
  renderLinkifiersMs: 100,
  /** A channel's name, in code points (Zulip's Stream.MAX_NAME_LENGTH). */
  channelName: 60,
  /** A channel's description, in code points (Zulip's Stream.MAX_DESCRIPTION_LENGTH). */
  channelDescription: 1024,
  /**
   * Users newly subscribed by one request beyond which Notification Bot tells none of them (Zulip's
   * MAX_BULK_NEW_SUBSCRIPTION_MESSAGES, level 397; register's `max_bulk_new_subscription_messages`).
   */
  bulkNewSubscriptionMessages: 100,
  /** The organization's name, in code points (Zulip's Realm.MAX_REALM_NAME_LENGTH). */
  realmName: 40,
  /** The organization's description, in code points (Zulip's Realm.MAX_REALM_DESCRIPTION_LENGTH). */
  realmDescription: 1000,
  /** A custom profile field's label and hint (CustomProfileField.NAME_MAX_LENGTH, HINT_MAX_LENGTH). */
  profileFieldName: 40,
  profileFieldHint: 80,
  /** An uploaded file's name, in UTF-8 bytes (the longest file name most file systems take). */
  uploadNameBytes: 255,
} as const;

/** A byte count as people read it in a message (`25 MiB`, `2.5 MiB`, `16 KiB`). */
export function showBytes(n: number): string {
  if (n >= MiB) return `${Number((n / MiB).toFixed(2))} MiB`;
  if (n >= 1024) return `${Number((n / 1024).toFixed(2))} KiB`;
  return `${n} bytes`;
}
