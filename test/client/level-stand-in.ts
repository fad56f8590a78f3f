/**
 * A Zulip server at a feature level, as far as which request parameters it reads: what it does not know it
 * lists in `ignored_parameters_unsupported`, as a real server does (feature level 167 on). Its knowledge is
 * not the catalogue's: the OpenAPI file of level 263 (a parameter's "New in Zulip X (feature level N)"
 * note; documented without one: always there), and for what that file does not document, the table below
 * from Zulip's API changelog (api_docs/changelog.md) and the endpoints' "Changes" notes. A level the
 * catalogue forgets to declare therefore shows up as a parameter this server ignores.
 */
import type { WireRequest, WireResponse } from '../../src/api/wire.js';
import type { Transport } from '../../src/client/transport.js';
import { documentedParameters } from './examples.js';

type Levels = Readonly<Record<string, number>>;

const all = (level: number, ...names: string[]): Levels => Object.fromEntries(names.map((n) => [n, level]));

/** Parameters by `METHOD /path`, with the feature level that added each (0: older than any chatctl supports). */
const CHANGELOG: Readonly<Record<string, Levels>> = {
  'GET /users': { user_ids: 384 },
  'PATCH /users/{user_id}': { new_email: 313 },
  'PATCH /users/{email}': all(313, 'full_name', 'role', 'profile_data', 'new_email'),
  'GET /messages': { allow_empty_topic_name: 334, message_ids: 300 },
  'GET /messages/{message_id}': { allow_empty_topic_name: 334 },
  'GET /messages/{message_id}/history': { allow_empty_topic_name: 334 },
  'GET /users/me/{stream_id}/topics': { allow_empty_topic_name: 334 },
  'POST /channels/create': all(
    417,
    'name',
    'description',
    'subscribers',
    'announce',
    'invite_only',
    'is_web_public',
    'is_default_stream',
    'history_public_to_subscribers',
    'folder_id',
  ),
  'GET /streams': { include_all: 356, include_can_access_content: 356, exclude_archived: 315 },
  'POST /users/me/subscriptions': { folder_id: 389, send_new_subscription_messages: 397 },
  'PATCH /streams/{stream_id}': { folder_id: 389, is_archived: 388 },
  // The legacy single-property form (zproject/urls.py, views/streams.py), never in the OpenAPI file.
  'PATCH /users/me/subscriptions/{stream_id}': all(0, 'property', 'value'),
  'POST /users/me/subscriptions/{stream_id}': all(0, 'property', 'value'),
  'POST /user_groups/create': {
    subgroups: 311,
    can_add_members_group: 305,
    can_join_group: 301,
    can_leave_group: 308,
    can_manage_group: 283,
    can_mention_group_id: 191,
    can_mention_group: 198,
    can_remove_members_group: 324,
  },
  'GET /user_groups': { allow_deactivated: 290, include_deactivated_groups: 294 },
  'POST /user_groups/{user_group_id}/members': all(311, 'add_subgroups', 'delete_subgroups'),
  // views/presence.py get_presence_backend reads it; the changelog gives it no level, and its default is the
  // legacy answer every level gives.
  'GET /users/{user_id_or_email}/presence': { slim_presence: 0 },
  'POST /users/me/presence': { history_limit_days: 288 },
  // tornado/views.py get_events_backend: the types of a queue GET /events itself creates.
  'GET /events': { event_types: 0 },
  'POST /register': { presence_history_limit_days: 288, queue_lifespan_secs: 0, idle_queue_timeout: 481 },
  'GET /channel_folders': { include_archived: 389 },
  'POST /channel_folders/create': all(389, 'name', 'description'),
  'PATCH /channel_folders/{channel_folder_id}': all(389, 'name', 'description', 'is_archived'),
  'PATCH /channel_folders': { order: 414 },
  'POST /messages/{message_id}/typing': { op: 361 },
  'POST /message_edit_typing': all(351, 'message_id', 'op'),
  'POST /realm/filters': all(471, 'example_input', 'reverse_template', 'alternative_url_templates'),
  'PATCH /realm/filters/{filter_id}': all(471, 'example_input', 'reverse_template', 'alternative_url_templates'),
  'POST /invites': { group_ids: 322, notify_referrer_on_join: 267, welcome_message_custom_text: 416 },
  'POST /invites/multiuse': { group_ids: 322 },
  'POST /realm/domains': all(0, 'domain', 'allow_subdomains'),
  // views/realm.py update_realm, and the changelog's "PATCH /realm: Added ..." entries for the newer settings.
  'PATCH /realm': {
    ...all(
      0,
      'name',
      'description',
      'allow_message_editing',
      'message_content_edit_limit_seconds',
      'emails_restricted_to_domains',
      'disallow_disposable_email_addresses',
      'invite_required',
      'waiting_period_threshold',
      'message_retention_days',
      'video_chat_provider',
      'notifications_stream_id',
      'signup_notifications_stream_id',
    ),
    enable_spectator_access: 109,
    move_messages_within_stream_limit_seconds: 162,
    move_messages_between_streams_limit_seconds: 162,
    create_multiuse_invite_group: 209,
    can_access_all_users_group: 225,
    new_stream_announcements_stream_id: 241,
    signup_announcements_stream_id: 241,
    zulip_update_announcements_stream_id: 242,
    require_unique_names: 246,
    can_create_groups: 299,
    can_manage_all_groups: 299,
    can_move_messages_between_channels_group: 310,
    can_move_messages_between_topics_group: 316,
    can_invite_users_group: 321,
    can_add_subscribers_group: 341,
    can_create_bots_group: 344,
    can_create_write_only_bots_group: 344,
    can_resolve_topics_group: 367,
    send_channel_events_messages: 434,
  },
  'PATCH /user_groups/{user_group_id}': {
    ...all(0, 'name', 'description'),
    can_mention_group_id: 191,
    can_mention_group: 198,
    can_manage_group: 283,
    can_join_group: 301,
    can_add_members_group: 305,
    can_leave_group: 308,
    can_remove_members_group: 324,
    deactivated: 386,
  },
  'PATCH /realm/profile_fields/{field_id}': { ...all(0, 'name', 'hint', 'field_data'), display_in_profile_summary: 146, required: 244, editable_by_user: 296 },
  'PATCH /realm/profile_fields': { order: 0 },
  'PATCH /users/me/profile_data': { data: 0 },
  'DELETE /users/me/profile_data': { data: 0 },
  'PATCH /realm/domains/{domain}': all(0, 'allow_subdomains'),
  'POST /users/{user_id}/status': all(407, 'status_text', 'emoji_name', 'emoji_code', 'reaction_type'),
  'POST /bots': all(0, 'full_name', 'short_name', 'bot_type', 'payload_url', 'interface_type', 'service_name'),
  'POST /realm/profile_fields': { editable_by_user: 296 },
};

const NEW_IN = /New in Zulip [^(]*\(feature level (\d+)\)/;

/** What a server knows of each path: parameter levels by method. */
function knowledge(): Map<string, Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, Map<string, number>>>();
  const at = (path: string, method: string) => {
    const methods = out.get(path) ?? out.set(path, new Map()).get(path)!;
    return methods.get(method) ?? methods.set(method, new Map()).get(method)!;
  };
  for (const [path, methods] of documentedParameters()) {
    for (const [method, params] of methods) {
      for (const [name, description] of params) at(path, method).set(name, Number(NEW_IN.exec(description)?.[1] ?? 0));
    }
  }
  for (const [key, levels] of Object.entries(CHANGELOG)) {
    const [method, path] = key.split(' ') as [string, string];
    for (const [name, level] of Object.entries(levels)) at(path, method).set(name, level);
  }
  return out;
}

const pattern = (template: string): RegExp => new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);

/** One request that carried what its server does not read. */
export interface Unknown {
  readonly request: string;
  readonly params: readonly string[];
}

export class LevelStandIn implements Transport {
  readonly target = 'http://stand-in.test';
  readonly kind = 'http' as const;
  readonly unknown: Unknown[] = [];
  readonly sent: WireRequest[] = [];
  private readonly known = knowledge();

  /** `answer`: what else a request's success body holds. */
  constructor(
    public level: number,
    private readonly answer: (req: WireRequest) => object = () => ({}),
  ) {}

  /** The parameters of a request this server does not read (a path it does not know reads none). */
  ignored(req: WireRequest): string[] {
    const path = req.path.split('?')[0]!;
    // The templates that fit, the most literal first (`/users/me` before `/users/{user_id}`).
    const fits = [...this.known.keys()].filter((t) => this.known.get(t)!.has(req.method) && pattern(t).test(path));
    const literal = (t: string) => t.split('/').filter((s) => !s.startsWith('{')).length;
    const best = Math.max(...fits.map(literal));
    const readers = fits.filter((t) => literal(t) === best).map((t) => this.known.get(t)!.get(req.method)!);
    const names = [...req.query, ...req.body].map(([name]) => name);
    return names.filter((name) => !readers.some((r) => (r.get(name) ?? Number.POSITIVE_INFINITY) <= this.level));
  }

  async send(req: WireRequest): Promise<WireResponse> {
    if (req.path === '/server_settings') return { status: 200, headers: {}, body: { result: 'success', msg: '', zulip_feature_level: this.level } };
    this.sent.push(req);
    const ignored = this.ignored(req);
    if (ignored.length) this.unknown.push({ request: `${req.method} ${req.path}`, params: ignored });
    const body = { result: 'success', msg: '', ...this.answer(req), ...(ignored.length ? { ignored_parameters_unsupported: ignored } : {}) };
    return { status: 200, headers: {}, body };
  }

  async close(): Promise<void> {}
}
