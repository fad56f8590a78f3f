/** E-mail invitations: sending, listing and revoking them. */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';
import { ROLES, type Role } from '../types.js';

/** An invitation as GET /invites shows it; `invited` and `expiry_date` are UNIX seconds. */
export interface Invite {
  id: number;
  invited_by_user_id: number;
  invited: number;
  expiry_date: number | null;
  invited_as: Role;
  email: string;
  is_multiuse: false;
}

/** The extra fields of an INVITATION_FAILED error: [address, reason, is deactivated account]. */
export interface InvitationFailure {
  errors: [string, string, boolean][];
  sent_invitations: boolean;
  license_limit_reached: boolean;
  daily_limit_reached: boolean;
}

export const WELCOME_MESSAGE_MAX_LENGTH = 8000;

/** What an invitation request carries at every feature level (the expiry's name changed at 126). */
const inviteParams = {
  invitee_emails: p.req(s.string(), { doc: 'addresses separated by commas or newlines' }),
  stream_ids: p.req(s.list(s.int()), { doc: 'channels to subscribe the new user to ([] for none)' }),
  invite_as: p.def(s.intOf(ROLES), 400, { doc: 'role: 100 owner ... 400 member (default), 600 guest' }),
  include_realm_default_subscriptions: p.def(s.bool(), false, { doc: "also the organization's default channels" }),
  group_ids: p.def(s.list(s.int()), [], { doc: 'user groups the new user joins' }),
  notify_referrer_on_join: p.def(s.bool(), true, { doc: 'tell the inviter when the account is created' }),
  welcome_message_custom_text: p.opt(s.string({ maxLength: WELCOME_MESSAGE_MAX_LENGTH }), {
    doc: 'welcome message (administrators; "" sends none)',
  }),
};

export const sendInvites = operation<Record<string, never>>()({
  name: 'send-invites',
  method: 'POST',
  path: '/invites',
  summary: 'Invite people by e-mail; they join with the given role, channels and groups',
  access: 'member',
  bots: false,
  params: {
    ...inviteParams,
    invite_expires_in_minutes: p.opt(s.nullable(s.int()), { doc: 'null: never expires; default 14400 (10 days)' }),
  },
  openapiPath: '/invites',
});

/** POST /invites as servers before feature level 126 take it: the expiry in whole days. */
export const sendInvitesInDays = operation<Record<string, never>>()({
  name: 'send-invites-in-days',
  method: 'POST',
  path: '/invites',
  summary: 'Invite people (servers before feature level 126: expiry in days)',
  access: 'member',
  bots: false,
  params: {
    ...inviteParams,
    invite_expires_in_days: p.opt(s.nullable(s.int()), { doc: 'null: never expires' }),
  },
  before: 126,
});

export const getInvites = operation<{ invites: Invite[] }>()({
  name: 'get-invites',
  method: 'GET',
  path: '/invites',
  summary: 'Pending invitations the caller can manage (administrators: all)',
  access: 'member',
  bots: false,
  params: {},
  openapiPath: '/invites',
});

export const revokeInvite = operation<Record<string, never>>()({
  name: 'revoke-invite',
  method: 'DELETE',
  path: '/invites/{invite_id}',
  summary: 'Revoke a pending e-mail invitation',
  access: 'member',
  bots: false,
  params: { invite_id: p.path(s.int()) },
  openapiPath: '/invites/{invite_id}',
});
