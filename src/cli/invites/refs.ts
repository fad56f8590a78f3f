/**
 * Naming pending invitations on the command line. E-mail invitations and reusable links number their IDs
 * independently (a server may have e-mail invitation 3 and link 3), so an argument never leaves the kind to
 * what happens to be pending: a bare ID (or `email:ID`) names an e-mail invitation, as `invite list` shows
 * them, and `link:ID` or a link's URL names a link. An address names the e-mail invitations to it. Once the
 * invitation an argument named is gone, the same argument names nothing, never the other kind's: a revoke
 * run again cannot revoke what it did not revoke the first time.
 */
import type { Invite } from '../../api/operations/invites.js';
import { roleName } from '../../api/roles.js';

export type InviteKind = 'email' | 'link';

export const kindOf = (invite: Invite): InviteKind => (invite.is_multiuse ? 'link' : 'email');

/** An invitation as `invite revoke` takes it back: a bare ID for an e-mail invitation, `link:ID` for a link. */
const refOf = (invite: Invite): string => (invite.is_multiuse ? `link:${invite.id}` : String(invite.id));

/** An invitation for a person: `invitation 4 (alice@example.com)`, `link 3 (https://…/join/…/)`. */
export const inviteLabel = (invite: Invite): string =>
  invite.is_multiuse ? `link ${invite.id} (${invite.link_url})` : `invitation ${invite.id} (${invite.email})`;

/** What one argument names. */
export interface RefMatch {
  /** The pending invitations it names (several for an address invited more than once); none when gone. */
  invites: Invite[];
  /** The kind it names. */
  kind: InviteKind;
  /** The ID it names, when it is one. */
  id?: number;
  /** For a person, what it names when nothing pending matches: `invitation 4`, `the invitation to ada@…`. */
  label: string;
  /** A pending invitation of the other kind with the same ID, which a bare ID does not name (for a hint). */
  otherKind?: Invite;
}

/** The forms an argument may take, for help texts. */
export const REF_FORMS = "an e-mail invitation's ID (as invite list shows it) or email:ID, link:ID, an invited address, or a link's URL";

const sameUrl = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** Resolves `ref` among `pending` (GET /invites). */
export function matchInviteRef(ref: string, pending: readonly Invite[]): RefMatch {
  const text = ref.trim();
  const byId = /^(?:(email|link):)?(\d+)$/i.exec(text);
  if (byId) {
    const kind: InviteKind = byId[1]?.toLowerCase() === 'link' ? 'link' : 'email';
    const id = Number(byId[2]);
    const invites = pending.filter((i) => i.id === id && kindOf(i) === kind);
    const otherKind = byId[1] === undefined && !invites.length ? pending.find((i) => i.id === id && kindOf(i) !== kind) : undefined;
    return { invites, kind, id, label: `${kind === 'link' ? 'link' : 'invitation'} ${id}`, otherKind };
  }
  if (/^https?:\/\//i.test(text)) {
    return { invites: pending.filter((i) => i.is_multiuse && sameUrl(i.link_url, text)), kind: 'link', label: `link ${text}` };
  }
  const invites = pending.filter((i) => !i.is_multiuse && typeof i.email === 'string' && i.email.toLowerCase() === text.toLowerCase());
  return { invites, kind: 'email', label: `the invitation to ${text}` };
}

/** An invitation as `invite list` shows it in text: how to name it, its kind, whom or where it invites, the role by name. */
export function displayRow(invite: Invite): Record<string, unknown> {
  return {
    ...invite,
    ref: refOf(invite),
    kind: kindOf(invite),
    address: invite.is_multiuse ? invite.link_url : invite.email,
    role: roleName(invite.invited_as),
  };
}
