/**
 * A new organization built from a real one's configuration (api/org-snapshot.ts), with the real one's IDs:
 * settings, domains, linkifiers, profile fields and values, channel folders, groups, channels with their
 * subscribers, and accounts with their roles. No messages, no passwords, and no key is copied: every account
 * gets a fresh random one, and only the operator's is given back. Nobody holds an operator permission
 * (can_create_users ...): the copy refuses what a stock server refuses. Written as bulk-seed.ts writes, with
 * one prepared statement per table, row after row, in one transaction, with no events.
 *
 * The server's system bots (Notification Bot, Welcome Bot, Email Gateway) take the IDs the real server gives
 * them (`cross_realm_bots`, by address) when no account of the copy has those; any that would collide with an
 * account moves after the highest ID copied: the snapshot's IDs win. Every table's IDs continue after the
 * highest copied one (their AUTOINCREMENT sequences follow the rows inserted), so nothing made on the copy
 * takes a copied ID.
 */
import type { OrganizationSnapshot } from '../../api/org-snapshot.js';
import { GROUP_PERMISSION_SETTINGS } from '../../api/operations/groups.js';
import { REALM_SETTING_NAMES, REALM_SETTINGS } from '../../api/realm-settings.js';
import { ROLE } from '../../api/roles.js';
import { writeStored } from './realm.js';
import { FEATURE_LEVEL, paramAtLevel } from '../../api/param-levels.js';
import { setFeatureLevel } from '../feature-level.js';
import { newApiKey } from '../secrets.js';
import type { Db } from '../store/db.js';
import { nameKey } from '../store/name-key.js';
import { insertSystemGroups, SYSTEM_GROUPS } from './system-groups.js';

/** A snapshot that lacks what a copy needs, or holds what no server sends. */
export class SnapshotError extends Error {
  constructor(message: string) {
    super(`snapshot: ${message}`);
    this.name = 'SnapshotError';
  }
}

/** The store already holds accounts or groups: a copy is made in a new data dir only. */
export class NotEmptyError extends Error {
  constructor() {
    super('this data dir already holds an organization: a mirror is made in a new one');
    this.name = 'NotEmptyError';
  }
}

export interface MirrorOutcome {
  /** The operator's account in the copy, with its new key. */
  operator: { id: number; email: string; apiKey: string };
  /** The level the copy answers as: the snapshot's, or this implementation's own when the real one is newer. */
  featureLevel: number;
  counts: { users: number; channels: number; groups: number; subscriptions: number };
  /** Where each system bot went, by address. */
  systemBots: Record<string, number>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function objects(v: unknown, what: string): Obj[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every(isObj)) throw new SnapshotError(`${what} is not a list of objects`);
  return v;
}
function int(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new SnapshotError(`${what} is not an integer`);
  return v;
}
function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new SnapshotError(`${what} is not a string`);
  return v;
}
const optInt = (v: unknown, what: string): number | null => (v === null || v === undefined ? null : int(v, what));
const optStr = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const flag = (v: unknown): 0 | 1 => (v === true ? 1 : 0);
const ids = (v: unknown, what: string): number[] => (Array.isArray(v) ? v.map((x, i) => int(x, `${what}[${i}]`)) : []);

/** A time of the wire (ISO text or seconds) in seconds; `fallback` when there is none. */
function seconds(v: unknown, fallback: number): number {
  if (typeof v === 'number') return Math.floor(v);
  const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isNaN(ms) ? fallback : Math.floor(ms / 1000);
}

/** The e-mail visibility policy that shows a copy's API addresses as an administrator saw the real ones (1 everyone, 3 administrators, 4 nobody). */
function emailVisibility(users: readonly Obj[]): number {
  const humans = users.filter((u) => u.is_bot !== true);
  if (humans.some((u) => u.delivery_email === null || u.delivery_email === undefined)) return 4;
  return humans.every((u) => u.email === u.delivery_email) ? 1 : 3;
}

/** Whom a mirror is made for: the account of the snapshot that gets a key of the copy, and when. */
export interface MirrorOptions {
  /** The e-mail (delivery or API) of an active human account of the snapshot: the person mirroring. */
  operatorEmail: string;
  /** Seconds: the time of copied objects whose snapshot gives none. */
  now: number;
}

export function importMirror(db: Db, snapshot: OrganizationSnapshot, o: MirrorOptions): MirrorOutcome {
  const reg: Obj = snapshot.register;
  const users = objects(snapshot.users, 'users');
  const level = Math.min(int(reg.zulip_feature_level, 'register.zulip_feature_level'), FEATURE_LEVEL);
  const operator = users.find((u) => String(u.delivery_email ?? u.email).toLowerCase() === o.operatorEmail.trim().toLowerCase());
  if (!operator || operator.is_bot === true || operator.is_active === false) {
    throw new SnapshotError(`${o.operatorEmail} is not an active account of the organization`);
  }
  const userIds = new Set(users.map((u, i) => int(u.user_id, `users[${i}].user_id`)));
  const groups = objects(snapshot.groups ?? reg.realm_user_groups, 'groups');
  const channels = objects(reg.streams, 'register.streams');

  return db
    .transaction((): MirrorOutcome => {
      const taken = db.prepare('SELECT (SELECT count(*) FROM users WHERE is_system_bot = 0) + (SELECT count(*) FROM user_groups) AS n').pluck().get() as number;
      if (taken > 0) throw new NotEmptyError();
      setFeatureLevel(db, level);
      const systemBots = placeSystemBots(db, reg, userIds);
      insertUsers(db, users, o.now);
      insertSettings(db, reg, users, level);
      insertLists(db, reg, userIds);
      insertProfileValues(db, users);
      insertGroups(db, groups, userIds, o.now);
      const subscriptions = insertChannels(db, reg, channels, snapshot.members, userIds, o.now);
      const key = newApiKey();
      const operatorId = int(operator.user_id, 'operator');
      db.prepare('UPDATE users SET api_key = ? WHERE id = ?').run(key, operatorId);
      return {
        operator: { id: operatorId, email: String(operator.delivery_email ?? operator.email), apiKey: key },
        featureLevel: level,
        counts: { users: users.length, channels: channels.length, groups: groups.length, subscriptions },
        systemBots,
      };
    })
    .immediate();
}

/** Moves the system bots where the real server has them, or out of the copied accounts' way. */
function placeSystemBots(db: Db, reg: Obj, userIds: ReadonlySet<number>): Record<string, number> {
  const bots = db.prepare('SELECT id, email FROM users WHERE is_system_bot = 1 ORDER BY id').all() as { id: number; email: string }[];
  const real = new Map(
    objects(reg.cross_realm_bots, 'register.cross_realm_bots').map((b) => [String(b.email).toLowerCase(), int(b.user_id, 'cross_realm_bots.user_id')]),
  );
  // A loop, not Math.max(...ids): an organization's IDs are more arguments than a call takes (about 125,000
  // on a main thread's stack, where `org mirror` runs).
  let next = 1;
  for (const id of [...userIds, ...bots.map((b) => b.id), ...real.values()]) if (id >= next) next = id + 1;
  const used = new Set<number>();
  const target = bots.map((b) => {
    const wanted = real.get(b.email.toLowerCase()) ?? b.id;
    const id = userIds.has(wanted) || used.has(wanted) ? next++ : wanted;
    used.add(id);
    return { ...b, to: id };
  });
  const move = db.prepare('UPDATE users SET id = ? WHERE id = ?');
  // Through negative IDs, so no two bots hold one ID on the way.
  for (const b of target) move.run(-b.id, b.id);
  for (const b of target) move.run(b.to, -b.id);
  return Object.fromEntries(target.map((b) => [b.email, b.to]));
}

function insertUsers(db: Db, users: readonly Obj[], now: number): void {
  const insert = db.prepare(
    `INSERT INTO users (id, email, full_name, name_key, role, is_active, is_bot, bot_type, api_key, date_joined, timezone, avatar_version, is_imported_stub)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const owner = db.prepare('UPDATE users SET bot_owner_id = ? WHERE id = ?');
  const roles = new Set<number>(Object.values(ROLE));
  for (const [i, u] of users.entries()) {
    const what = `users[${i}]`;
    const role = int(u.role, `${what}.role`);
    if (!roles.has(role)) throw new SnapshotError(`${what}.role ${role} is no role`);
    const fullName = str(u.full_name, `${what}.full_name`);
    insert.run(
      int(u.user_id, `${what}.user_id`),
      str(u.delivery_email ?? u.email, `${what}.email`),
      fullName,
      nameKey(fullName),
      role,
      u.is_active === false ? 0 : 1,
      flag(u.is_bot),
      u.is_bot === true ? optInt(u.bot_type, `${what}.bot_type`) : null,
      newApiKey(),
      seconds(u.date_joined, now),
      typeof u.timezone === 'string' ? u.timezone : '',
      typeof u.avatar_version === 'number' ? u.avatar_version : 1,
      flag(u.is_imported_stub),
    );
  }
  // Owners after every account is in: a bot may be older than its owner.
  for (const u of users) {
    if (u.is_bot === true && typeof u.bot_owner_id === 'number') owner.run(u.bot_owner_id, u.user_id);
  }
}

/** The accounts' profile values, once the fields are in. */
function insertProfileValues(db: Db, users: readonly Obj[]): void {
  const value = db.prepare('INSERT INTO profile_values (user_id, field_id, value, rendered_value) VALUES (?, ?, ?, ?)');
  for (const u of users) {
    if (!isObj(u.profile_data)) continue;
    for (const [fieldId, v] of Object.entries(u.profile_data)) {
      if (!isObj(v) || typeof v.value !== 'string') continue;
      value.run(u.user_id, Number(fieldId), v.value, optStr(v.rendered_value));
    }
  }
}

/** The organization settings register gives, under the names a server at `level` gives them. */
function insertSettings(db: Db, reg: Obj, users: readonly Obj[], level: number): void {
  const set = (key: string, value: unknown) => writeStored(db, key, JSON.stringify(value));
  for (const name of REALM_SETTING_NAMES) {
    const at = paramAtLevel(REALM_SETTINGS[name], name, level);
    const v = at === null ? undefined : reg[`realm_${at.names[0]}`];
    if (v === undefined) continue;
    const kind = REALM_SETTINGS[name].setting.kind;
    // Register says "none" with -1 for an announcement channel; the store, with null.
    set(name, kind === 'channel' && typeof v === 'number' && v < 0 ? null : v);
  }
  const plain: [key: string, wire: string][] = [
    ['date_created', 'realm_date_created'],
    ['bot_domain', 'realm_bot_domain'],
    ['allow_edit_history', 'realm_allow_edit_history'],
    ['presence_disabled', 'realm_presence_disabled'],
    ['email_auth_enabled', 'realm_email_auth_enabled'],
    ['empty_topic_display_name', 'realm_empty_topic_display_name'],
  ];
  for (const [key, wire] of plain) if (reg[wire] !== undefined && reg[wire] !== null) set(key, reg[wire]);
  set('email_address_visibility', emailVisibility(users));
}

/** Domains, linkifiers (in their order), profile fields and channel folders, with their IDs. */
function insertLists(db: Db, reg: Obj, userIds: ReadonlySet<number>): void {
  const domain = db.prepare('INSERT INTO realm_domains (domain, allow_subdomains) VALUES (?, ?)');
  for (const d of objects(reg.realm_domains, 'register.realm_domains')) domain.run(str(d.domain, 'realm_domains.domain'), flag(d.allow_subdomains));

  const linkifier = db.prepare(
    `INSERT INTO linkifiers (id, pattern, url_template, example_input, reverse_template, alternative_url_templates, "order") VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const [i, l] of objects(reg.realm_linkifiers, 'register.realm_linkifiers').entries()) {
    linkifier.run(
      int(l.id, 'realm_linkifiers.id'),
      str(l.pattern, 'realm_linkifiers.pattern'),
      str(l.url_template, 'realm_linkifiers.url_template (fetch with the linkifier_url_template capability)'),
      optStr(l.example_input),
      optStr(l.reverse_template),
      JSON.stringify(Array.isArray(l.alternative_url_templates) ? l.alternative_url_templates : []),
      i,
    );
  }

  const field = db.prepare(
    `INSERT INTO custom_profile_fields (id, type, name, hint, field_data, "order", required, editable_by_user, display_in_profile_summary)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const f of objects(reg.custom_profile_fields, 'register.custom_profile_fields')) {
    field.run(
      int(f.id, 'custom_profile_fields.id'),
      int(f.type, 'custom_profile_fields.type'),
      str(f.name, 'custom_profile_fields.name'),
      optStr(f.hint) ?? '',
      optStr(f.field_data) ?? '',
      int(f.order, 'custom_profile_fields.order'),
      flag(f.required),
      // Before level 296 every field was editable by its user.
      f.editable_by_user === false ? 0 : 1,
      flag(f.display_in_profile_summary),
    );
  }

  const folder = db.prepare(
    `INSERT INTO channel_folders (id, name, description, rendered_description, "order", date_created, creator_id, is_archived)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const f of objects(reg.channel_folders, 'register.channel_folders')) {
    const creator = optInt(f.creator_id, 'channel_folders.creator_id');
    folder.run(
      int(f.id, 'channel_folders.id'),
      str(f.name, 'channel_folders.name'),
      optStr(f.description) ?? '',
      optStr(f.rendered_description) ?? '',
      int(f.order, 'channel_folders.order'),
      seconds(f.date_created, 0),
      creator !== null && userIds.has(creator) ? creator : null,
      flag(f.is_archived),
    );
  }
}

/**
 * The groups with their IDs. System groups keep the real server's IDs; their membership follows roles here, as
 * it does there, so none is stored. A system group the snapshot lacks is made after the highest ID.
 */
function insertGroups(db: Db, groups: readonly Obj[], userIds: ReadonlySet<number>, now: number): void {
  const insert = db.prepare(
    'INSERT INTO user_groups (id, name, description, is_system_group, date_created, creator_id, deactivated, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const member = db.prepare('INSERT OR IGNORE INTO group_members (group_id, user_id) VALUES (?, ?)');
  const subgroup = db.prepare('INSERT OR IGNORE INTO group_subgroups (group_id, subgroup_id) VALUES (?, ?)');
  const system = new Set(SYSTEM_GROUPS.map((g) => g.name));
  for (const [i, g] of groups.entries()) {
    const what = `groups[${i}]`;
    const isSystem = g.is_system_group === true;
    const name = str(g.name, `${what}.name`);
    if (isSystem && !system.has(name)) continue;
    const settings = Object.fromEntries(GROUP_PERMISSION_SETTINGS.filter((s) => g[s] !== undefined).map((s) => [s, g[s]]));
    const creator = optInt(g.creator_id, `${what}.creator_id`);
    insert.run(
      int(g.id, `${what}.id`),
      name,
      optStr(g.description) ?? '',
      isSystem ? 1 : 0,
      optInt(g.date_created, `${what}.date_created`),
      creator !== null && userIds.has(creator) ? creator : null,
      flag(g.deactivated),
      isSystem ? '{}' : JSON.stringify(settings),
    );
  }
  insertSystemGroups(db, now);
  for (const g of groups) {
    if (g.is_system_group === true) continue;
    for (const userId of ids(g.members, 'groups.members')) if (userIds.has(userId)) member.run(g.id, userId);
    for (const sub of ids(g.direct_subgroup_ids ?? g.subgroups, 'groups.direct_subgroup_ids')) subgroup.run(g.id, sub);
  }
}

/** Channels with their IDs, default-ness and subscribers; returns how many subscriptions were made. */
function insertChannels(
  db: Db,
  reg: Obj,
  channels: readonly Obj[],
  members: OrganizationSnapshot['members'],
  userIds: ReadonlySet<number>,
  now: number,
): number {
  // IDs from level 330, objects with stream_id before.
  const defaults = new Set((Array.isArray(reg.realm_default_streams) ? reg.realm_default_streams : []).map((d: unknown) => (isObj(d) ? d.stream_id : d)));
  const insert = db.prepare(
    `INSERT INTO streams (id, name, description, rendered_description, invite_only, is_web_public, history_public_to_subscribers,
       date_created, creator_id, is_archived, is_default, folder_id, message_retention_days)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const recipient = db.prepare('INSERT INTO recipients (stream_id) VALUES (?)');
  const subscribe = db.prepare('INSERT OR IGNORE INTO subscriptions (user_id, stream_id) VALUES (?, ?)');
  let subscriptions = 0;
  for (const [i, c] of channels.entries()) {
    const what = `register.streams[${i}]`;
    const id = int(c.stream_id, `${what}.stream_id`);
    const creator = optInt(c.creator_id, `${what}.creator_id`);
    insert.run(
      id,
      str(c.name, `${what}.name`),
      optStr(c.description) ?? '',
      optStr(c.rendered_description) ?? '',
      flag(c.invite_only),
      flag(c.is_web_public),
      c.history_public_to_subscribers === false ? 0 : 1,
      seconds(c.date_created, now),
      creator !== null && userIds.has(creator) ? creator : null,
      flag(c.is_archived),
      defaults.has(id) ? 1 : 0,
      optInt(c.folder_id, `${what}.folder_id`),
      optInt(c.message_retention_days, `${what}.message_retention_days`),
    );
    recipient.run(id);
    for (const userId of members[String(id)] ?? []) {
      if (!userIds.has(userId)) continue;
      // A member listed twice is subscribed, and counted, once.
      subscriptions += subscribe.run(userId, id).changes;
    }
  }
  return subscriptions;
}
