/**
 * Validates response bodies against the real Zulip OpenAPI description (feature level 263). The fields this
 * implementation sends on purpose beyond that description are named here; they are allowed (unchecked)
 * only where the description forbids unknown fields and does not document them itself, so a field it does
 * document (topic_links[].url, say) is still checked. Anything else that does not match is a failure.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { readZulipOpenApi } from './zulip-openapi.js';

/** Fields newer than feature level 263, or the document's renamed twins, that the description cannot know. */
export const FIELDS_NEWER_THAN_DESCRIPTION: ReadonlySet<string> = new Set([
  'svc_feature_level', // the document's name for zulip_feature_level
  'svc_version', // ... for zulip_version
  'svc_merge_base', // ... for zulip_merge_base
  'is_imported_stub', // user objects, feature level 433
  'is_deleted', // user objects, feature level 490
  'notify_referrer_on_join', // e-mail invitations in GET /invites, feature level 267
  'editable_by_user', // custom profile fields, feature level 296
  'url', // POST /user_uploads, feature level 285 (twin of uri)
  'filename', // POST /user_uploads, feature level 285
  'example_input', // linkifiers, feature level 471
  'reverse_template', // linkifiers, feature level 471
  'alternative_url_templates', // linkifiers, feature level 471
  'is_archived', // channels (feature level 315) and channel folders
  'folder_id', // channels, feature level 389
  'subscriber_count', // channels, feature level 394
  'stream_ids', // stream delete events, feature level 343
  'channel_folders', // register, feature level 389
  'max_channel_folder_name_length', // register, feature level 410
  'max_channel_folder_description_length', // register, feature level 410
  'realm_empty_topic_display_name', // register, feature level 334
  'realm_can_move_messages_between_topics_group', // register: the group settings that replaced the move policies
  'realm_can_move_messages_between_channels_group', // ...
  'realm_can_resolve_topics_group', // ...
  'realm_can_add_subscribers_group', // register, feature level 341
  'realm_can_create_bots_group', // register, feature level 344
  'realm_can_create_write_only_bots_group', // register, feature level 344
  'realm_can_create_groups', // register, feature level 299
  'realm_can_manage_all_groups', // register, feature level 299
  'realm_can_invite_users_group', // register, feature level 321
  'can_add_subscribers_group', // realm update_dict events, feature level 341
  'can_create_bots_group', // ..., feature level 344
  'can_create_write_only_bots_group', // ..., feature level 344
  'can_create_groups', // ..., feature level 299
  'can_manage_all_groups', // ..., feature level 299
  'can_invite_users_group', // ..., feature level 321
  'can_move_messages_between_topics_group', // ..., feature level 316
  'can_move_messages_between_channels_group', // ..., feature level 310
  'can_resolve_topics_group', // ..., feature level 367
  'can_add_members_group', // user groups, feature level 305
  'can_join_group', // user groups, feature level 301
  'can_leave_group', // user groups, feature level 308
  'can_manage_group', // user groups, feature level 283
  'can_remove_members_group', // user groups, feature level 324
  'ignored_because_not_subscribed_channels', // POST /messages/flags and /messages/flags/narrow, feature level 355
  'detached_uploads', // PATCH /messages/{message_id}, feature level 285
  'last_moved_timestamp', // message objects, feature level 365
  'date_created', // user groups, feature level 292
  'creator_id', // user groups, feature level 292
  'deactivated', // user groups, feature level 290
  'group_id', // POST /user_groups/create, feature level 317
  'realm_send_channel_events_messages', // register, feature level 434
  'max_bulk_new_subscription_messages', // register, feature level 397
  'new_subscription_messages_sent', // POST /users/me/subscriptions, feature level 397
]);

/**
 * Values whose shape changed after feature level 263, as newer servers send them: default channels are
 * channel IDs (feature level 330), and a stream `delete` event's channels are `{stream_id}` objects
 * (feature level 343).
 */
function newerShapes(properties: Record<string, unknown>): void {
  const itemsOf = (name: string): unknown => (properties[name] as { items?: { $ref?: string } } | undefined)?.items?.$ref;
  for (const name of ['default_streams', 'realm_default_streams']) {
    if (itemsOf(name) === '#/components/schemas/DefaultChannel') properties[name] = { type: 'array', items: { type: 'integer' } };
  }
  const op = (properties.op as { enum?: unknown[] } | undefined)?.enum;
  if (op?.length === 1 && op[0] === 'delete' && itemsOf('streams') === '#/components/schemas/BasicChannel') {
    const idOnly = { type: 'object', additionalProperties: false, required: ['stream_id'], properties: { stream_id: { type: 'integer' } } };
    properties.streams = { type: 'array', items: idOnly };
  }
}

/**
 * OpenAPI 3.0's `nullable` as JSON Schema (a null type alongside, or an anyOf with null), the newer
 * fields admitted where unknown fields are refused, and the newer shapes of changed values.
 */
function jsonSchemaOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchemaOf);
  if (!node || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const converted = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, jsonSchemaOf(v)]));
  if (converted.properties && typeof converted.properties === 'object') newerShapes(converted.properties as Record<string, unknown>);
  if (converted.additionalProperties === false && converted.properties && typeof converted.properties === 'object') {
    const known = converted.properties as Record<string, unknown>;
    for (const name of FIELDS_NEWER_THAN_DESCRIPTION) if (!(name in known)) known[name] = {};
  }
  if (nullable !== true) return converted;
  if (typeof converted.type === 'string') {
    const out: Record<string, unknown> = { ...converted, type: [converted.type, 'null'] };
    if (Array.isArray(converted.enum)) out.enum = [...converted.enum, null];
    return out;
  }
  return { anyOf: [converted, { type: 'null' }] };
}

let loaded: { ajv: Ajv; spec: Record<string, unknown> } | undefined;
const compiled = new Map<string, ValidateFunction>();

function load(): { ajv: Ajv; spec: Record<string, unknown> } {
  if (loaded) return loaded;
  const spec = jsonSchemaOf(readZulipOpenApi()) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(spec, 'zulip');
  loaded = { ajv, spec };
  return loaded;
}

/** The JSON pointer of a documented response's schema, following a shared response (`SimpleSuccess` ...). */
function responseSchemaPointer(spec: Record<string, unknown>, method: string, path: string, status: number): string {
  const at = `#/paths/${pointer(path)}/${method}/responses/${status}`;
  const paths = spec.paths as Record<string, Record<string, { responses?: Record<string, { $ref?: string }> }>> | undefined;
  const response = paths?.[path]?.[method]?.responses?.[String(status)];
  if (!response) throw new Error(`the OpenAPI description documents no ${status} response for ${method.toUpperCase()} ${path}`);
  return `${response.$ref ?? at}/content/application~1json/schema`;
}

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Errors of `body` against the documented response of (method, path, status); empty when valid. */
export function openapiErrors(method: string, path: string, status: number, body: unknown): string[] {
  const key = `${method.toLowerCase()} ${path} ${status}`;
  let validate = compiled.get(key);
  if (!validate) {
    const { ajv, spec } = load();
    validate = ajv.compile({ $ref: `zulip${responseSchemaPointer(spec, method.toLowerCase(), path, status)}` });
    compiled.set(key, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
