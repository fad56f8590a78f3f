/**
 * Custom profile fields: their definitions, and users' values of them, validated per field type with a Zulip
 * server's messages (the field's name stands in the messages, as there).
 */
import { isDeepStrictEqual } from 'node:util';
import { badRequest } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import type { ProfileDataUpdate } from '../../api/operations/users.js';
import type { CustomProfileField, OwnProfileDataUpdate, ProfileFieldType } from '../../api/operations/profile-fields.js';
import type { EventSink } from '../context.js';
import type { Db } from '../store/db.js';
import { renderHtml } from './render.js';
import { isValidUrl } from './validation.js';
import { listeningUserIds } from './event-queues.js';
import { notifyPersonUpdate } from './user-events.js';
import { isAdmin, type UserRow } from './users.js';

export interface FieldRow {
  id: number;
  type: ProfileFieldType;
  name: string;
  hint: string;
  field_data: string;
  order: number;
  required: number;
  editable_by_user: number;
  display_in_profile_summary: number;
}

export const MAX_SUMMARY_FIELDS = 2;
const SHORT_VALUE_MAX_LENGTH = 50;
const LONG_VALUE_MAX_LENGTH = 500;

/** External-account subtypes a server knows, with the name and hint their fields get. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { name: string; hint: string }> = {
  github: { name: 'GitHub', hint: 'Enter your GitHub username' },
  twitter: { name: 'Twitter', hint: 'Enter your Twitter username' },
};

export const allFields = (db: Db): FieldRow[] => db.prepare('SELECT * FROM custom_profile_fields ORDER BY "order", id').all() as FieldRow[];

export const fieldById = (db: Db, id: number): FieldRow | undefined =>
  db.prepare('SELECT * FROM custom_profile_fields WHERE id = ?').get(id) as FieldRow | undefined;

export function fieldToWire(row: FieldRow): CustomProfileField {
  const field: CustomProfileField = {
    id: row.id,
    name: row.name,
    type: row.type,
    hint: row.hint,
    field_data: row.field_data,
    order: row.order,
    required: row.required === 1,
    editable_by_user: row.editable_by_user === 1,
  };
  if (row.display_in_profile_summary) field.display_in_profile_summary = true;
  return field;
}

/** The full list of definitions, which a `custom_profile_fields` event carries to every user after any change. */
function notifyFieldsChanged(db: Db, sink: EventSink): void {
  sink.emit({ type: 'custom_profile_fields', fields: allFields(db).map(fieldToWire) }, listeningUserIds(db));
}

const codePoints = (s: string): number => [...s].length;

function checkCappedString(name: string, value: unknown, max: number): string {
  if (typeof value !== 'string') throw badRequest(`${name} is not a string`);
  if (codePoints(value) > max) throw badRequest(`${name} is too long (limit: ${max} characters)`);
  return value;
}

/** A calendar date written exactly as YYYY-MM-DD (the form that reads back the same). */
function checkDate(name: string, value: unknown): string {
  if (typeof value !== 'string') throw badRequest(`${name} is not a string`);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!date || date.toISOString().slice(0, 10) !== value) throw badRequest(`${name} is not a date`);
  return value;
}

function checkUserIds(db: Db, value: unknown): string {
  if (!Array.isArray(value)) throw badRequest('User IDs is not a list');
  value.forEach((id, i) => {
    if (typeof id !== 'number' || !Number.isInteger(id)) throw badRequest(`User IDs[${i}] is not an integer`);
  });
  const ids = value as number[];
  const rows = db.prepare('SELECT id, is_active, is_bot FROM users WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as Pick<
    UserRow,
    'id' | 'is_active' | 'is_bot'
  >[];
  const known = new Set(rows.map((r) => r.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) throw badRequest(`Invalid user IDs: ${unknown.join(', ')}`);
  for (const r of rows) {
    if (!r.is_active) throw badRequest(`User with ID ${r.id} is deactivated`);
    if (r.is_bot) throw badRequest(`User with ID ${r.id} is a bot`);
  }
  // Stored as its JSON text, the form the wire shows (`"[11]"`).
  return JSON.stringify(ids);
}

/** A user's new value of a field, checked against the field's type; returns the text to store. */
export function validateProfileValue(db: Db, field: FieldRow, value: unknown): string {
  switch (field.type) {
    case 1:
    case 7:
    case 8:
      return checkCappedString(field.name, value, SHORT_VALUE_MAX_LENGTH);
    case 2:
      return checkCappedString(field.name, value, LONG_VALUE_MAX_LENGTH);
    case 3: {
      if (typeof value !== 'string') throw badRequest(`${field.name} is not a string`);
      const choices = JSON.parse(field.field_data || '{}') as Record<string, unknown>;
      if (!Object.hasOwn(choices, value)) throw badRequest(`'${value}' is not a valid choice for '${field.name}'.`);
      return value;
    }
    case 4:
      return checkDate(field.name, value);
    case 5:
      if (typeof value !== 'string') throw badRequest(`${field.name} is not a string`);
      if (!isValidUrl(value)) throw badRequest(`${field.name} is not a URL`);
      return value;
    case 6:
      return checkUserIds(db, value);
  }
}

/** Short and long text values are Markdown; a server stores their HTML beside them. */
const isRenderable = (field: Pick<FieldRow, 'type'>): boolean => field.type === 1 || field.type === 2;

const isEmptyValue = (v: ProfileDataUpdate['value']): boolean => v === null || v.length === 0;

type Actor = Pick<UserRow, 'role'>;

/** The field a user changes a value of: it exists, and only administrators change fields users may not edit. */
function fieldForValueChange(db: Db, actor: Actor, fieldId: number): FieldRow {
  const field = fieldById(db, fieldId);
  if (!field) throw badRequest(`Field id ${fieldId} not found.`);
  if (!isAdmin(actor) && !field.editable_by_user) throw badRequest('You are not allowed to change this field. Contact an administrator to update it.');
  return field;
}

/**
 * zerver/actions/custom_profile_fields.py check_remove_custom_profile_field_value: a value that is not there
 * is no error; a removed one is announced with a null value.
 */
export function removeProfileValue(db: Db, sink: EventSink, actor: Actor, target: Pick<UserRow, 'id'>, fieldId: number): void {
  const field = fieldForValueChange(db, actor, fieldId);
  const removed = db.prepare('DELETE FROM profile_values WHERE user_id = ? AND field_id = ?').run(target.id, field.id);
  if (removed.changes) notifyPersonUpdate(db, sink, { user_id: target.id, custom_profile_field: { id: field.id, value: null } });
}

/**
 * Validates every entry (zerver/lib/users.py validate_user_custom_profile_data), then stores the values
 * that changed and announces each (do_update_user_custom_profile_data_if_changed).
 */
export function setProfileValues(db: Db, sink: EventSink, actor: Actor, target: Pick<UserRow, 'id'>, entries: readonly OwnProfileDataUpdate[]): void {
  const updates = entries.map((entry) => {
    const field = fieldForValueChange(db, actor, entry.id);
    return { field, value: validateProfileValue(db, field, entry.value) };
  });
  for (const { field, value } of updates) {
    const current = db.prepare('SELECT value FROM profile_values WHERE user_id = ? AND field_id = ?').pluck().get(target.id, field.id);
    if (current === value) continue;
    const rendered = isRenderable(field) ? renderHtml(db, value) : null;
    db.prepare(
      `INSERT INTO profile_values (user_id, field_id, value, rendered_value) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, field_id) DO UPDATE SET value = excluded.value, rendered_value = excluded.rendered_value`,
    ).run(target.id, field.id, value, rendered);
    const change: Record<string, unknown> = { id: field.id, value };
    if (rendered !== null) change.rendered_value = rendered;
    notifyPersonUpdate(db, sink, { user_id: target.id, custom_profile_field: change });
  }
}

/**
 * Applies a `profile_data` update of update_user, as zerver/views/users.py update_user_backend does: empty
 * values remove the field's value first, then the other entries are set.
 */
export function updateProfileData(db: Db, sink: EventSink, actor: Actor, target: UserRow, entries: readonly ProfileDataUpdate[]): void {
  for (const entry of entries) if (isEmptyValue(entry.value)) removeProfileValue(db, sink, actor, target, entry.id);
  const values: OwnProfileDataUpdate[] = [];
  for (const { id, value } of entries) if (value !== null && value.length > 0) values.push({ id, value });
  setProfileValues(db, sink, actor, target, values);
}

export interface NewField {
  name: string;
  hint: string;
  field_type: number;
  field_data: Record<string, unknown>;
  display_in_profile_summary: boolean;
  required: boolean;
  editable_by_user: boolean;
}

type Definition = Pick<NewField, 'name' | 'hint' | 'field_type' | 'field_data' | 'display_in_profile_summary'>;

/** zerver/views/custom_profile_fields.py is_default_external_field: an external account other than `custom`. */
const isDefaultExternalAccount = (f: Pick<NewField, 'field_type' | 'field_data'>): boolean => f.field_type === 7 && f.field_data.subtype !== 'custom';

function checkRequiredString(path: string, value: unknown): string {
  if (typeof value !== 'string') throw badRequest(`${path} is not a string`);
  if (!value.trim()) throw badRequest(`${path} cannot be blank.`);
  return value;
}

/** A server's check_dict_only: the listed keys and no others. */
function checkKeys(obj: Record<string, unknown>, required: readonly string[], optional: readonly string[] = []): void {
  for (const key of required) if (!(key in obj)) throw badRequest(`${key} key is missing from field_data`);
  const extra = Object.keys(obj).filter((k) => !required.includes(k) && !optional.includes(k));
  if (extra.length) throw badRequest(`Unexpected arguments: ${extra.join(', ')}`);
}

function checkSelectChoices(data: Record<string, unknown>): void {
  if (Object.keys(data).length < 1) throw badRequest('Field must have at least one choice.');
  const texts = new Set<string>();
  for (const [key, choice] of Object.entries(data)) {
    if (!key.trim()) throw badRequest("'value' cannot be blank.");
    if (typeof choice !== 'object' || choice === null || Array.isArray(choice)) throw badRequest('field_data is not a dict');
    const c = choice as Record<string, unknown>;
    checkKeys(c, ['text', 'order']);
    texts.add(checkRequiredString('field_data["text"]', c.text));
    checkRequiredString('field_data["order"]', c.order);
  }
  if (texts.size !== Object.keys(data).length) throw badRequest('Field must not have duplicate choices.');
}

function checkExternalAccount(data: Record<string, unknown>): void {
  checkKeys(data, ['subtype'], ['url_pattern']);
  const subtype = checkRequiredString('field_data["subtype"]', data.subtype);
  if ('url_pattern' in data) {
    const pattern = data.url_pattern;
    if (typeof pattern !== 'string') throw badRequest('field_data["url_pattern"] is not a string');
    if (pattern.split('%(username)s').length !== 2) throw badRequest("URL pattern must contain '%(username)s'.");
    if (!isValidUrl(pattern.replace('%(username)s', 'username'))) throw badRequest('field_data["url_pattern"] is not a URL');
  }
  if (Object.hasOwn(DEFAULT_EXTERNAL_ACCOUNTS, subtype)) return;
  if (subtype !== 'custom') throw badRequest('Invalid external account type');
  if (!('url_pattern' in data)) throw badRequest('Custom external account must define URL pattern');
}

/**
 * zerver/views/custom_profile_fields.py validate_custom_profile_field, in its order: type-specific data,
 * label and hint (not for default external accounts, which take their own), type, summary rules.
 */
function checkDefinition(f: Definition): void {
  if (f.field_type === 3) checkSelectChoices(f.field_data);
  if (f.field_type === 7) checkExternalAccount(f.field_data);
  if (!isDefaultExternalAccount(f)) {
    if (!f.name.trim()) throw badRequest('Label cannot be blank.');
    if (codePoints(f.hint) > LIMITS.profileFieldHint) throw badRequest(`hint is too long (limit: ${LIMITS.profileFieldHint} characters)`);
    if (codePoints(f.name) > LIMITS.profileFieldName) throw badRequest(`name is too long (limit: ${LIMITS.profileFieldName} characters)`);
  }
  if (!Number.isInteger(f.field_type) || f.field_type < 1 || f.field_type > 8) throw badRequest('Invalid field type.');
  // Long text does not fit a summary; a list of users needs client support first.
  if (f.display_in_profile_summary && (f.field_type === 2 || f.field_type === 6)) {
    throw badRequest('Field type not supported for display in profile summary.');
  }
}

/** Checked before anything else, on creation and on update (where the field itself does not count). */
function checkSummaryRoom(db: Db, wanted: boolean | undefined, exceptId = 0): void {
  if (!wanted) return;
  const shown = db.prepare('SELECT count(*) FROM custom_profile_fields WHERE display_in_profile_summary = 1 AND id != ?').pluck().get(exceptId) as number;
  if (shown >= MAX_SUMMARY_FIELDS) throw badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
}

function checkLabelFree(db: Db, name: string, exceptId = 0): void {
  if (db.prepare('SELECT 1 FROM custom_profile_fields WHERE name = ? AND id != ?').get(name, exceptId))
    throw badRequest('A field with that label already exists.');
}

/** Only select and external-account fields carry data; the others store the empty string. */
const carriesData = (type: number): boolean => type === 3 || type === 7;

/**
 * Checks a new field's definition as a server does and stores it; a new field's order is its ID, as
 * try_add_realm_custom_profile_field sets it, so it comes last. Default external accounts (GitHub ...)
 * take their own name and hint.
 */
export function createField(db: Db, sink: EventSink, f: NewField): FieldRow {
  checkSummaryRoom(db, f.display_in_profile_summary);
  checkDefinition(f);
  const preset = isDefaultExternalAccount(f) ? DEFAULT_EXTERNAL_ACCOUNTS[String(f.field_data.subtype)] : undefined;
  const name = preset?.name ?? f.name;
  checkLabelFree(db, name);
  const fieldData = carriesData(f.field_type) ? JSON.stringify(preset ? { subtype: f.field_data.subtype } : f.field_data) : '';
  const info = db
    .prepare(
      `INSERT INTO custom_profile_fields (type, name, hint, field_data, "order", required, editable_by_user, display_in_profile_summary)
       VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
    )
    .run(f.field_type, name, preset?.hint ?? f.hint, fieldData, f.required ? 1 : 0, f.editable_by_user ? 1 : 0, f.display_in_profile_summary ? 1 : 0);
  const id = Number(info.lastInsertRowid);
  db.prepare('UPDATE custom_profile_fields SET "order" = id WHERE id = ?').run(id);
  notifyFieldsChanged(db, sink);
  return fieldById(db, id)!;
}

export interface FieldChanges {
  name?: string;
  hint?: string;
  field_data?: Record<string, unknown>;
  display_in_profile_summary?: boolean;
  required?: boolean;
  editable_by_user?: boolean;
}

const storedData = (field: FieldRow): Record<string, unknown> => (field.field_data ? (JSON.parse(field.field_data) as Record<string, unknown>) : {});

/**
 * zerver/views/custom_profile_fields.py update_realm_custom_profile_field with
 * zerver/actions/custom_profile_fields.py try_update_realm_custom_profile_field: absent values are kept and
 * the result is checked as a new definition; a default external account changes only its flags; a select
 * field's new choices clear the values of choices it no longer has. The whole list is sent even when
 * nothing changed, as there.
 */
export function updateField(db: Db, sink: EventSink, fieldId: number, c: FieldChanges): void {
  const field = fieldById(db, fieldId);
  if (!field) throw badRequest(`Field id ${fieldId} not found.`);
  checkSummaryRoom(db, c.display_in_profile_summary, field.id);
  const current = storedData(field);
  const onlyFlags =
    (c.name === undefined || c.name === field.name) &&
    (c.hint === undefined || c.hint === field.hint) &&
    (c.field_data === undefined || isDeepStrictEqual(c.field_data, current));
  if (isDefaultExternalAccount({ field_type: field.type, field_data: current }) && !onlyFlags) throw badRequest('Default custom field cannot be updated.');
  const next = {
    name: c.name ?? field.name,
    hint: c.hint ?? field.hint,
    field_type: field.type,
    field_data: c.field_data ?? current,
    display_in_profile_summary: c.display_in_profile_summary ?? field.display_in_profile_summary === 1,
  };
  checkDefinition(next);
  if (c.name !== undefined) checkLabelFree(db, c.name, field.id);
  if (field.type === 3 && c.field_data !== undefined) {
    db.prepare('DELETE FROM profile_values WHERE field_id = ? AND value NOT IN (SELECT key FROM json_each(?))').run(field.id, JSON.stringify(c.field_data));
  }
  const fieldData = carriesData(field.type) && (c.field_data !== undefined || field.field_data === '') ? JSON.stringify(c.field_data ?? {}) : field.field_data;
  const flag = (v: boolean | undefined, was: number): number => (v === undefined ? was : v ? 1 : 0);
  db.prepare(
    `UPDATE custom_profile_fields SET name = ?, hint = ?, field_data = ?, required = ?, editable_by_user = ?, display_in_profile_summary = ?
     WHERE id = ?`,
  ).run(
    next.name,
    next.hint,
    fieldData,
    flag(c.required, field.required),
    flag(c.editable_by_user, field.editable_by_user),
    flag(c.display_in_profile_summary, field.display_in_profile_summary),
    field.id,
  );
  notifyFieldsChanged(db, sink);
}

/** do_remove_realm_custom_profile_field: the field and every value of it (the values go with it, by cascade). */
export function deleteField(db: Db, sink: EventSink, fieldId: number): void {
  const field = fieldById(db, fieldId);
  if (!field) throw badRequest(`Field id ${fieldId} not found.`);
  db.prepare('DELETE FROM custom_profile_fields WHERE id = ?').run(field.id);
  notifyFieldsChanged(db, sink);
}

/**
 * try_reorder_realm_custom_profile_fields: every field must be listed; each takes its position in the list
 * (the last one, for an ID listed twice), and IDs of no field are passed over.
 */
export function reorderFields(db: Db, sink: EventSink, order: readonly number[]): void {
  const position = new Map(order.map((id, i) => [id, i]));
  const ids = db.prepare('SELECT id FROM custom_profile_fields').pluck().all() as number[];
  if (ids.some((id) => !position.has(id))) throw badRequest('Invalid order mapping.');
  const set = db.prepare('UPDATE custom_profile_fields SET "order" = ? WHERE id = ?');
  for (const id of ids) set.run(position.get(id), id);
  notifyFieldsChanged(db, sink);
}
