/**
 * Numbered schema migrations. `PRAGMA user_version` holds the number of the last one applied; a migration
 * is never edited once released, only followed by a new one. Times are UNIX seconds unless the column name
 * says `_ms`. A migration is SQL, or a function for what SQL alone cannot say (rebuilding tables as they are
 * in this data dir, whatever columns earlier migrations gave them). They run with foreign keys off, as
 * SQLite requires for rebuilding a table, and are checked for broken references before they commit.
 */
import type { Db } from './db.js';
import { nameKey } from './name-key.js';

export type Migration = string | ((db: Db) => void);

/**
 * Tables whose IDs a client sees (user_id, stream_id, message and recipient IDs, attachment, linkifier,
 * emoji, group, folder, profile field, domain and invitation IDs). Zulip never gives an ID twice; SQLite's
 * plain INTEGER PRIMARY KEY gives the newest row's ID again once that row is deleted.
 */
const WIRE_ID_TABLES = [
  'users',
  'custom_profile_fields',
  'channel_folders',
  'streams',
  'recipients',
  'messages',
  'realm_emoji',
  'attachments',
  'user_groups',
  'realm_domains',
  'linkifiers',
  'invites',
] as const;

/**
 * Rebuilds `table` with `id INTEGER PRIMARY KEY AUTOINCREMENT` (AUTOINCREMENT cannot be added to an existing
 * table): SQLite's documented procedure of creating the new table, copying the rows, dropping the old one,
 * renaming, and recreating its indexes and triggers. The new table's definition is the old one's own text, so
 * columns added by any earlier migration are kept; the copy starts the sequence at the highest ID in use.
 */
function neverReuseIds(db: Db, table: string): void {
  const def = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(table) as string | undefined;
  if (def === undefined) throw new Error(`migration: no table ${table}`);
  if (/\bid INTEGER PRIMARY KEY AUTOINCREMENT\b/i.test(def)) return;
  const rebuilt = `${table}__rebuilt`;
  const created = def
    .replace(/^CREATE TABLE\s+"?\w+"?/i, `CREATE TABLE "${rebuilt}"`)
    .replace(/\bid INTEGER PRIMARY KEY\b/i, 'id INTEGER PRIMARY KEY AUTOINCREMENT');
  const dependents = db
    .prepare("SELECT sql FROM sqlite_schema WHERE type IN ('index', 'trigger') AND tbl_name = ? AND sql IS NOT NULL")
    .pluck()
    .all(table) as string[];
  const columns = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]).map((c) => `"${c}"`).join(', ');
  db.exec(created);
  db.exec(`INSERT INTO "${rebuilt}" (${columns}) SELECT ${columns} FROM "${table}"`);
  db.exec(`DROP TABLE "${table}"`);
  db.exec(`ALTER TABLE "${rebuilt}" RENAME TO "${table}"`);
  for (const sql of dependents) db.exec(sql);
}

export const migrations: readonly Migration[] = [
  // 1: the organization and everything in it
  `
  CREATE TABLE realm_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL -- JSON
  );

  CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL COLLATE NOCASE UNIQUE,       -- the delivery (real) e-mail address
    full_name TEXT NOT NULL,
    role INTEGER NOT NULL DEFAULT 400,
    is_active INTEGER NOT NULL DEFAULT 1,
    is_bot INTEGER NOT NULL DEFAULT 0,
    bot_type INTEGER,
    bot_owner_id INTEGER REFERENCES users(id),
    api_key TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    date_joined INTEGER NOT NULL,
    timezone TEXT NOT NULL DEFAULT '',
    avatar_version INTEGER NOT NULL DEFAULT 1,
    is_imported_stub INTEGER NOT NULL DEFAULT 0,
    presence_enabled INTEGER NOT NULL DEFAULT 1,
    send_stream_typing_notifications INTEGER NOT NULL DEFAULT 1,
    send_private_typing_notifications INTEGER NOT NULL DEFAULT 1,
    receives_typing_notifications INTEGER NOT NULL DEFAULT 1,
    status_text TEXT NOT NULL DEFAULT '',
    status_emoji_name TEXT NOT NULL DEFAULT '',
    status_emoji_code TEXT NOT NULL DEFAULT '',
    status_reaction_type TEXT NOT NULL DEFAULT '',
    -- outgoing-webhook and embedded bots
    service_base_url TEXT,
    service_interface INTEGER,
    service_token TEXT
  );

  CREATE TABLE custom_profile_fields (
    id INTEGER PRIMARY KEY,
    type INTEGER NOT NULL,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE,
    hint TEXT NOT NULL DEFAULT '',
    field_data TEXT NOT NULL DEFAULT '',
    "order" INTEGER NOT NULL,
    required INTEGER NOT NULL DEFAULT 0,
    editable_by_user INTEGER NOT NULL DEFAULT 1,
    display_in_profile_summary INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE profile_values (
    user_id INTEGER NOT NULL REFERENCES users(id),
    field_id INTEGER NOT NULL REFERENCES custom_profile_fields(id) ON DELETE CASCADE,
    value TEXT NOT NULL,
    rendered_value TEXT,
    PRIMARY KEY (user_id, field_id)
  );

  CREATE TABLE channel_folders (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    rendered_description TEXT NOT NULL DEFAULT '',
    "order" INTEGER NOT NULL,
    date_created INTEGER NOT NULL,
    creator_id INTEGER REFERENCES users(id),
    is_archived INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE streams (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    rendered_description TEXT NOT NULL DEFAULT '',
    invite_only INTEGER NOT NULL DEFAULT 0,
    is_web_public INTEGER NOT NULL DEFAULT 0,
    history_public_to_subscribers INTEGER NOT NULL DEFAULT 1,
    date_created INTEGER NOT NULL,
    creator_id INTEGER REFERENCES users(id),
    is_archived INTEGER NOT NULL DEFAULT 0,
    is_default INTEGER NOT NULL DEFAULT 0,
    folder_id INTEGER REFERENCES channel_folders(id),
    message_retention_days INTEGER
  );

  CREATE TABLE subscriptions (
    user_id INTEGER NOT NULL REFERENCES users(id),
    stream_id INTEGER NOT NULL REFERENCES streams(id),
    active INTEGER NOT NULL DEFAULT 1,
    color TEXT NOT NULL DEFAULT '#76ce90',
    is_muted INTEGER NOT NULL DEFAULT 0,
    pin_to_top INTEGER NOT NULL DEFAULT 0,
    desktop_notifications INTEGER,
    audible_notifications INTEGER,
    push_notifications INTEGER,
    email_notifications INTEGER,
    wildcard_mentions_notify INTEGER,
    PRIMARY KEY (user_id, stream_id)
  );

  -- A recipient is a channel, or the set of users of a direct-message conversation.
  CREATE TABLE recipients (
    id INTEGER PRIMARY KEY,
    stream_id INTEGER UNIQUE REFERENCES streams(id),
    members TEXT UNIQUE -- sorted, comma-separated user IDs of a direct conversation
  );

  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    sender_id INTEGER NOT NULL REFERENCES users(id),
    recipient_id INTEGER NOT NULL REFERENCES recipients(id),
    type TEXT NOT NULL CHECK (type IN ('stream', 'private')),
    stream_id INTEGER REFERENCES streams(id),
    topic TEXT NOT NULL DEFAULT '',
    content TEXT NOT NULL,
    rendered_content TEXT NOT NULL,
    date_sent INTEGER NOT NULL,
    client TEXT NOT NULL DEFAULT 'chatctl',
    is_me_message INTEGER NOT NULL DEFAULT 0,
    last_edit_time INTEGER,
    last_moved_time INTEGER
  );
  CREATE INDEX messages_by_stream_topic ON messages (stream_id, topic COLLATE NOCASE, id);
  CREATE INDEX messages_by_recipient ON messages (recipient_id, id);

  -- One row per edit; the message row holds the newest state.
  CREATE TABLE message_edits (
    id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    user_id INTEGER REFERENCES users(id),
    timestamp INTEGER NOT NULL,
    prev_content TEXT,
    prev_rendered_content TEXT,
    prev_topic TEXT,
    prev_stream INTEGER,
    stream INTEGER,
    topic TEXT
  );
  CREATE INDEX message_edits_by_message ON message_edits (message_id, id);

  -- Per-user message flags as a bit set (see the flags module for the bits).
  CREATE TABLE user_messages (
    user_id INTEGER NOT NULL REFERENCES users(id),
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    flags INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, message_id)
  ) WITHOUT ROWID;
  CREATE INDEX user_messages_by_message ON user_messages (message_id);

  CREATE TABLE realm_emoji (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    file_name TEXT NOT NULL,
    author_id INTEGER REFERENCES users(id),
    deactivated INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE reactions (
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users(id),
    emoji_name TEXT NOT NULL,
    emoji_code TEXT NOT NULL,
    reaction_type TEXT NOT NULL,
    created INTEGER NOT NULL,
    PRIMARY KEY (message_id, user_id, emoji_code, reaction_type)
  );

  CREATE TABLE attachments (
    id INTEGER PRIMARY KEY,
    owner_id INTEGER NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    path_id TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    content_type TEXT NOT NULL DEFAULT 'application/octet-stream',
    create_time_ms INTEGER NOT NULL
  );

  CREATE TABLE attachment_messages (
    attachment_id INTEGER NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    PRIMARY KEY (attachment_id, message_id)
  ) WITHOUT ROWID;

  CREATE TABLE user_groups (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL COLLATE NOCASE UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    is_system_group INTEGER NOT NULL DEFAULT 0,
    date_created INTEGER,
    creator_id INTEGER REFERENCES users(id),
    deactivated INTEGER NOT NULL DEFAULT 0,
    settings TEXT NOT NULL DEFAULT '{}' -- JSON: can_*_group permission settings
  );

  CREATE TABLE group_members (
    group_id INTEGER NOT NULL REFERENCES user_groups(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    PRIMARY KEY (group_id, user_id)
  ) WITHOUT ROWID;

  CREATE TABLE group_subgroups (
    group_id INTEGER NOT NULL REFERENCES user_groups(id),
    subgroup_id INTEGER NOT NULL REFERENCES user_groups(id),
    PRIMARY KEY (group_id, subgroup_id)
  ) WITHOUT ROWID;

  CREATE TABLE realm_domains (
    id INTEGER PRIMARY KEY,
    domain TEXT NOT NULL UNIQUE,
    allow_subdomains INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE linkifiers (
    id INTEGER PRIMARY KEY,
    pattern TEXT NOT NULL UNIQUE,
    url_template TEXT NOT NULL,
    example_input TEXT,
    reverse_template TEXT,
    alternative_url_templates TEXT NOT NULL DEFAULT '[]', -- JSON list
    "order" INTEGER NOT NULL
  );

  CREATE TABLE invites (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL COLLATE NOCASE,
    referrer_id INTEGER NOT NULL REFERENCES users(id),
    invited_as INTEGER NOT NULL,
    invited INTEGER NOT NULL,
    expiry_date INTEGER,
    stream_ids TEXT NOT NULL DEFAULT '[]',
    group_ids TEXT NOT NULL DEFAULT '[]',
    include_realm_default_subscriptions INTEGER NOT NULL DEFAULT 0,
    notify_referrer_on_join INTEGER NOT NULL DEFAULT 1,
    welcome_message_custom_text TEXT,
    status INTEGER NOT NULL DEFAULT 0 -- 0 pending, 1 accepted, 2 revoked
  );

  CREATE TABLE user_topics (
    user_id INTEGER NOT NULL REFERENCES users(id),
    stream_id INTEGER NOT NULL REFERENCES streams(id),
    topic TEXT NOT NULL COLLATE NOCASE,
    visibility_policy INTEGER NOT NULL,
    last_updated INTEGER NOT NULL,
    PRIMARY KEY (user_id, stream_id, topic)
  );

  CREATE TABLE presence (
    user_id INTEGER PRIMARY KEY REFERENCES users(id),
    last_active_time INTEGER,
    last_connected_time INTEGER,
    last_update_id INTEGER NOT NULL
  );

  -- Event queues are rows, so one process can register a queue and another read or delete it.
  CREATE TABLE event_queues (
    id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    event_types TEXT,           -- JSON list, NULL = all
    options TEXT NOT NULL DEFAULT '{}', -- JSON: client_capabilities, apply_markdown, client_gravatar, narrow ...
    lifespan_secs INTEGER NOT NULL,
    last_access INTEGER NOT NULL,
    last_event_id INTEGER NOT NULL DEFAULT -1,
    pruned_through INTEGER NOT NULL DEFAULT -1
  );
  CREATE INDEX event_queues_by_user ON event_queues (user_id);

  CREATE TABLE events (
    queue_id TEXT NOT NULL REFERENCES event_queues(id) ON DELETE CASCADE,
    id INTEGER NOT NULL,
    event TEXT NOT NULL, -- JSON, without the id
    PRIMARY KEY (queue_id, id)
  ) WITHOUT ROWID;

  -- Failed password logins per username, for the fetch_api_key rate limit.
  CREATE TABLE login_failures (
    username TEXT NOT NULL COLLATE NOCASE,
    at INTEGER NOT NULL
  );
  CREATE INDEX login_failures_by_username ON login_failures (username, at);
  `,
  // 2: accounts made through the API take the time of their first login as date_joined
  `
  ALTER TABLE users ADD COLUMN date_joined_at_first_login INTEGER NOT NULL DEFAULT 0;
  `,
  // 3: per-user permissions a stock server withholds (can_create_users, can_change_user_emails)
  `
  ALTER TABLE users ADD COLUMN can_create_users INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE users ADD COLUMN can_change_user_emails INTEGER NOT NULL DEFAULT 0;
  -- They were organization settings, on unless turned off. The owners of an existing data dir are the people
  -- who ran chatctl init, its operators, so they keep what they could do (init now grants them the same);
  -- everyone else starts without them, as on a server.
  UPDATE users SET can_create_users = 1 WHERE role = 100 AND is_bot = 0
    AND coalesce((SELECT value FROM realm_settings WHERE key = 'can_create_users'), 'true') = 'true';
  UPDATE users SET can_change_user_emails = 1 WHERE role = 100 AND is_bot = 0
    AND coalesce((SELECT value FROM realm_settings WHERE key = 'can_change_user_emails'), 'true') = 'true';
  DELETE FROM realm_settings WHERE key IN ('can_create_users', 'can_change_user_emails');
  `,
  // 4: reusable invitation links
  `
  -- Numbered apart from e-mail invitations, as on a Zulip server; AUTOINCREMENT so that no ID is ever given
  -- to a second link, even after the newest row is gone.
  CREATE TABLE multiuse_invites (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    link_key TEXT NOT NULL UNIQUE,
    referrer_id INTEGER NOT NULL REFERENCES users(id),
    invited_as INTEGER NOT NULL,
    invited INTEGER NOT NULL,
    expiry_date INTEGER,
    stream_ids TEXT NOT NULL DEFAULT '[]',
    group_ids TEXT NOT NULL DEFAULT '[]',
    include_realm_default_subscriptions INTEGER NOT NULL DEFAULT 0,
    status INTEGER NOT NULL DEFAULT 0 -- 0 pending, 2 revoked (a link is never used up)
  );
  `,
  // 5: events stored once, referenced by queues
  `
  -- An event's body is written once per form it takes (message events differ by the queue's rendering
  -- options), and each queue that gets it holds a small reference: one request writes in proportion to its
  -- own size, not to the number of queues. A body goes when the last reference to it goes.
  CREATE TABLE event_payloads (
    id INTEGER PRIMARY KEY,
    event TEXT NOT NULL -- JSON, without the id
  );
  CREATE TABLE queue_events (
    queue_id TEXT NOT NULL REFERENCES event_queues(id) ON DELETE CASCADE,
    id INTEGER NOT NULL,
    payload_id INTEGER NOT NULL REFERENCES event_payloads(id),
    PRIMARY KEY (queue_id, id)
  ) WITHOUT ROWID;
  CREATE INDEX queue_events_by_payload ON queue_events (payload_id);
  -- Both numberings follow the old table's key order, so row n of one is row n of the other.
  INSERT INTO event_payloads (id, event) SELECT row_number() OVER (ORDER BY queue_id, id), event FROM events;
  INSERT INTO queue_events (queue_id, id, payload_id) SELECT queue_id, id, row_number() OVER (ORDER BY queue_id, id) FROM events;
  DROP TABLE events;

  -- A queue over its bound of pending events, or pushed out by its user's newer queues, is dead at once
  -- (its next poll is refused) and deleted later by bounded cleanup.
  ALTER TABLE event_queues ADD COLUMN dead INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX event_queues_by_expiry ON event_queues (last_access + lifespan_secs);
  CREATE INDEX event_queues_dead ON event_queues (id) WHERE dead = 1;

  CREATE INDEX login_failures_by_time ON login_failures (at);

  -- Where an upload's bytes are, under uploads/: a generated name, so any file name works. NULL: the
  -- layout before this migration, uploads/<path_id>.
  ALTER TABLE attachments ADD COLUMN stored_as TEXT;
  CREATE UNIQUE INDEX attachments_by_stored_name ON attachments (stored_as);
  `,
  // 6: failed logins remember their source address
  `
  -- Where a failed login came from (a client address over HTTP, 'local' in-process; '' before this).
  ALTER TABLE login_failures ADD COLUMN source TEXT NOT NULL DEFAULT '';
  CREATE INDEX login_failures_by_source ON login_failures (source, at);
  `,
  // 7: IDs are never reused (AUTOINCREMENT on every table whose IDs are on the wire)
  (db) => {
    for (const table of WIRE_ID_TABLES) neverReuseIds(db, table);
  },
  // 8: indexes for the lookups requests make by something other than a primary key's first column
  `
  -- A channel's subscribers (message recipients, peer events, subscriber lists): was a scan of every subscription.
  CREATE INDEX subscriptions_by_stream ON subscriptions (stream_id, user_id);
  -- The sender: narrow, and a deactivated user's messages.
  CREATE INDEX messages_by_sender ON messages (sender_id, id);
  -- The attachments of a message, when it is edited or deleted.
  CREATE INDEX attachment_messages_by_message ON attachment_messages (message_id);
  -- The groups a user is a direct member of, and the groups a group is a subgroup of.
  CREATE INDEX group_members_by_user ON group_members (user_id);
  CREATE INDEX group_subgroups_by_subgroup ON group_subgroups (subgroup_id);
  -- The administrators (realm_bot events go to them): a handful of rows among all the users.
  CREATE INDEX users_by_role ON users (role);
  `,
  // 9: a channel's messages in ID order
  `
  -- A channel narrow walked from an anchor (GET /messages, flags by narrow): found in order from the anchor on.
  -- With only the (stream, topic, id) index, every message of the channel after the anchor was sorted first, so
  -- a batch cost what was left of the channel.
  CREATE INDEX messages_by_stream ON messages (stream_id, id);
  `,
  // 10: what goes with a deactivated account
  `
  -- Its bots (deactivated with it) and the invitations it sent (revoked with it): were scans of every user and
  -- every invitation.
  CREATE INDEX users_by_bot_owner ON users (bot_owner_id) WHERE bot_owner_id IS NOT NULL;
  CREATE INDEX invites_by_referrer ON invites (referrer_id, status);
  CREATE INDEX multiuse_invites_by_referrer ON multiuse_invites (referrer_id, status);
  `,
  // 11: names found by index
  (db) => {
    // The "unique names" check compared the new name with every user's; the mention of @**Name** and the bot
    // name check scanned every user too. Keys are computed here because SQLite has no NFKC.
    db.exec('ALTER TABLE users ADD COLUMN name_key TEXT');
    const setKey = db.prepare('UPDATE users SET name_key = ? WHERE id = ?');
    for (const row of db.prepare('SELECT id, full_name FROM users').all() as { id: number; full_name: string }[]) {
      setKey.run(nameKey(row.full_name), row.id);
    }
    db.exec(`
      CREATE INDEX users_by_name_key ON users (name_key);
      -- @**Name** mentions (any case) and the bot name check (exact, among active users).
      CREATE INDEX users_by_full_name ON users (full_name COLLATE NOCASE);
    `);
  },
  // 12: the organization's outgoing-webhook bots
  `
  -- Which bots a channel message triggers is asked of these few users' copies: asked of every copy, a message to
  -- 100,000 subscribers looked up 100,000 rows' flags (a tenth of its cost, more as the table outgrew the cache).
  CREATE INDEX users_service_bots ON users (id) WHERE is_bot = 1 AND bot_type = 3;
  `,
  // 13: queues that take public channels' messages without a subscription
  `
  -- Registered with all_public_streams or with a narrow (zerver/tornado/event_queue.py add_to_client_dicts): a
  -- public channel's message is offered to them too, so they are found by index rather than by reading every
  -- queue's options.
  ALTER TABLE event_queues ADD COLUMN watches_public INTEGER NOT NULL DEFAULT 0;
  UPDATE event_queues SET watches_public = 1
    WHERE json_extract(options, '$.all_public_streams') = 1 OR json_array_length(options, '$.narrow') > 0;
  CREATE INDEX event_queues_watching_public ON event_queues (user_id) WHERE watches_public = 1 AND dead = 0;
  -- A narrow of {operator, operand} objects was kept but never applied; a Zulip server refuses one. Such queues
  -- are dropped, and their clients register again.
  UPDATE event_queues SET dead = 1
    WHERE EXISTS (SELECT 1 FROM json_each(options, '$.narrow') WHERE type != 'array');
  `,
  // 14: the server's system bots (Notification Bot, Welcome Bot, Email Gateway)
  (db) => {
    // Zulip's cross-realm bots live in the server's internal realm: they post notices into the organization but
    // are none of its users (model/system-bots.ts keeps them out of its lists). Added to an existing data dir at
    // the next free IDs; a new one gets them first, as a server creates them before any organization. An address
    // already taken (a server reserves these) leaves that bot out, and the notices it would send are not sent.
    db.exec('ALTER TABLE users ADD COLUMN is_system_bot INTEGER NOT NULL DEFAULT 0');
    const insert = db.prepare(
      `INSERT OR IGNORE INTO users (email, full_name, name_key, is_bot, bot_type, api_key, date_joined, is_system_bot)
       VALUES (?, ?, ?, 1, 1, lower(hex(randomblob(16))), CAST(strftime('%s', 'now') AS INTEGER), 1)`,
    );
    for (const [email, name] of [
      ['notification-bot@zulip.com', 'Notification Bot'],
      ['welcome-bot@zulip.com', 'Welcome Bot'],
      ['emailgateway@zulip.com', 'Email Gateway'],
    ] as const) {
      insert.run(email, name, nameKey(name));
    }
  },
  // 15: one event log per user, shared by the user's queues
  `
  -- A queue held a reference row per event and a counter rewritten per event: an event for a user with 50 queues
  -- wrote 50 rows and 50 queue rows, scattered over as many pages (about 300 KB of write-ahead log for one
  -- typing notification). Now an event is one row in each recipient's log, beside that user's previous one, and
  -- its body is stored once per form; each queue keeps only how far into its user's log it has read, and picks
  -- the events it takes (event types, narrow, capabilities) when it reads. A queue's client-visible IDs are still
  -- its own: pruned_through + 1, + 2 ... for the events it takes after read_through.
  CREATE TABLE event_bodies (
    event_id INTEGER NOT NULL,
    form TEXT NOT NULL, -- '' for every event but a message; a message event's rendering for a queue's options
    body TEXT NOT NULL, -- JSON, without the id
    PRIMARY KEY (event_id, form)
  ) WITHOUT ROWID;
  CREATE TABLE user_events (
    user_id INTEGER NOT NULL,
    n INTEGER NOT NULL,        -- 1, 2 ... in the user's log; the newest row stays while the user has a queue
    event_id INTEGER NOT NULL,
    queue_id TEXT,             -- NULL: for every queue of the user's that takes it; else that queue's only
    PRIMARY KEY (user_id, n)
  ) WITHOUT ROWID;
  CREATE INDEX user_events_by_event ON user_events (event_id);
  ALTER TABLE event_queues ADD COLUMN read_through INTEGER NOT NULL DEFAULT 0;

  -- Pending events are kept, each in its user's log as its queue's own row, in the queue's order; a queue's
  -- next ID follows the ones it has (consistent data has pruned_through just before them already).
  INSERT INTO event_bodies (event_id, form, body) SELECT id, '', event FROM event_payloads;
  INSERT INTO user_events (user_id, n, event_id, queue_id)
    SELECT q.user_id, row_number() OVER (PARTITION BY q.user_id ORDER BY e.queue_id, e.id), e.payload_id, e.queue_id
    FROM queue_events e JOIN event_queues q ON q.id = e.queue_id;
  UPDATE event_queues SET pruned_through = (SELECT min(id) - 1 FROM queue_events WHERE queue_id = event_queues.id)
    WHERE EXISTS (SELECT 1 FROM queue_events WHERE queue_id = event_queues.id);
  DROP TABLE queue_events;
  DROP TABLE event_payloads;
  ALTER TABLE event_queues DROP COLUMN last_event_id;
  `,
  // 16: group-valued organization settings hold group-setting values, as PATCH /realm writes them
  `
  UPDATE realm_settings SET key = 'create_multiuse_invite_group' WHERE key = 'can_create_multiuse_invite_group';
  UPDATE realm_settings
    SET value = (SELECT id FROM user_groups WHERE is_system_group = 1 AND name = json_extract(realm_settings.value, '$'))
    WHERE json_type(value) = 'text'
      AND key IN ('create_multiuse_invite_group', 'can_invite_users_group', 'can_create_bots_group', 'can_create_write_only_bots_group',
                  'can_manage_all_groups', 'can_create_groups', 'can_add_subscribers_group', 'can_move_messages_between_topics_group',
                  'can_resolve_topics_group', 'can_move_messages_between_channels_group')
      AND EXISTS (SELECT 1 FROM user_groups WHERE is_system_group = 1 AND name = json_extract(realm_settings.value, '$'));
  -- Organizations made before had no content edit limit by default; a new one has Zulip's ten minutes.
  INSERT OR IGNORE INTO realm_settings (key, value)
    SELECT 'message_content_edit_limit_seconds', 'null' WHERE EXISTS (SELECT 1 FROM users WHERE is_bot = 0);
  `,
  // 17: the change log that kept renderings are checked against (store/changes.ts)
  `
  -- Sequence numbers only grow, with no gaps between committed changes: a new one is the newest plus one, and
  -- pruning never takes the newest.
  CREATE TABLE changes (
    seq INTEGER PRIMARY KEY,
    subject TEXT NOT NULL,
    id INTEGER NOT NULL
  );
  -- The newest 10,000 changes are kept (up to 11,000, pruned every thousandth): a reader further behind than
  -- that starts afresh.
  CREATE TRIGGER changes_pruned AFTER INSERT ON changes WHEN NEW.seq % 1000 = 0 BEGIN DELETE FROM changes WHERE seq <= NEW.seq - 10000; END;
  ${changeTriggers([
    // A new row needs no entry of its own: nothing can have been kept for an ID not used before. A row whose ID
    // changes (a mirror's system bots) is a change of the ID it had and of the one it has.
    // Only the columns a user's wire form is made of (model/user-view.ts USER_VIEW_COLUMNS; a test holds them
    // to it): a new API key or password, a status or a setting changes no rendering.
    [
      'users',
      'user',
      'id',
      [
        'UPDATE OF id, email, full_name, role, is_active, is_bot, bot_type, bot_owner_id, date_joined, timezone, avatar_version, is_imported_stub, is_system_bot',
        'DELETE',
      ],
    ],
    // Which users there are (a list of them), as opposed to what each one is.
    ['users', 'users', '0', ['INSERT', 'DELETE', 'UPDATE OF id, is_system_bot']],
    ['profile_values', 'user', 'user_id', ['INSERT', 'UPDATE', 'DELETE']],
    ['messages', 'message', 'id', ['UPDATE', 'DELETE']],
    ['reactions', 'message', 'message_id', ['INSERT', 'UPDATE', 'DELETE']],
    ['message_edits', 'message', 'message_id', ['INSERT', 'UPDATE', 'DELETE']],
    // A message shows its channel's name alone.
    ['streams', 'channel', 'id', ['UPDATE OF id, name', 'DELETE']],
    // What every rendering may depend on: the organization's settings, its linkifiers and profile fields.
    // presence_sequence is a counter every presence report advances, which no rendering shows.
    ['realm_settings', 'realm', '0', ['INSERT', 'UPDATE', 'DELETE'], "key <> 'presence_sequence'"],
    ['linkifiers', 'realm', '0', ['INSERT', 'UPDATE', 'DELETE']],
    ['custom_profile_fields', 'realm', '0', ['INSERT', 'UPDATE', 'DELETE']],
  ])}
  `,
  // 18: a channel's change is any change of its row: GET reads keep whole channel rows (model/kept-channels.ts)
  `
  DROP TRIGGER changes_streams_channel_update;
  ${changeTriggers([['streams', 'channel', 'id', ['UPDATE']]])}
  `,
];

/**
 * Triggers that log a change of each row of `table` into `changes`, as `subject` and the ID in `column` of the
 * row (NEW's, or OLD's for a deletion; a constant is the same for every row).
 */
function changeTriggers(tables: [table: string, subject: string, column: string, events: string[], when?: string][]): string {
  return tables
    .flatMap(([table, subject, column, events, condition]) =>
      events.map((event) => {
        const verb = event.split(' ')[0]!;
        const row = verb === 'DELETE' ? 'OLD' : 'NEW';
        const constant = /^\d+$/.test(column);
        const log = (id: string) => `INSERT INTO changes (subject, id) VALUES ('${subject}', ${id});`;
        const body =
          constant || verb !== 'UPDATE'
            ? log(constant ? column : `${row}.${column}`)
            : `${log(`NEW.${column}`)} INSERT INTO changes (subject, id) SELECT '${subject}', OLD.${column} WHERE OLD.${column} IS NOT NEW.${column};`;
        const when = condition === undefined ? '' : ` WHEN ${condition.replace(/\bkey\b/g, `${row}.key`)}`;
        return `CREATE TRIGGER changes_${table}_${subject}_${verb.toLowerCase()} AFTER ${event} ON ${table}${when} BEGIN ${body} END;`;
      }),
    )
    .join('\n  ');
}
