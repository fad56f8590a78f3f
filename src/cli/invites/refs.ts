/**
 * Naming pending invitations on the command line. E-mail invitations and reusable links number their IDs
 * independently (a server may have e-mail invitation 3 and link 3), so a bare ID is looked up among both
 * kinds in GET /invites and must name exactly one; `email:ID` and `link:ID` say which kind. An address
 * names the e-mail invitations to it, never a link; a link's URL names that link.
 */
import type { Invite } from '../../api/operations/invites.js';
import { roleName } from '../../api/roles.js';
import { usageError } from '../errors.js';
import { unknownRef, type Refusal } from '../refusal.js';
import { isId } from '../resolve.js';

export type InviteKind = 'email' | 'link';

export const kindOf = (invite: Invite): InviteKind => (invite.is_multiuse ? 'link' : 'email');

/** One invitation of one kind. */
export interface InviteKey {
  kind: InviteKind;
  id: number;
}

/** What one argument names: the invitations (possibly several, for an address), or why none. */
export type RefMatch = { ok: true; invites: InviteKey[] } | { ok: false; error: Refusal };

/** The forms an argument may take, for help texts. */
export const REF_FORMS = "an ID, email:ID or link:ID (the kinds number their IDs apart), an invited address, or a link's URL";

const sameUrl = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * Resolves `ref` among `pending`, for a command that acts on invitations of the kinds `acts` (resend: e-mail
 * invitations only). A bare ID that is an invitation's of each such kind is a usage error (nothing is
 * sent), since guessing would revoke the wrong one.
 */
export function matchInviteRef(ref: string, pending: readonly Invite[], acts: readonly InviteKind[] = ['email', 'link']): RefMatch {
  const text = ref.trim();
  const typed = /^(email|link):(\d+)$/i.exec(text);
  if (typed || isId(text)) {
    const kind: InviteKind | undefined = typed ? (typed[1]!.toLowerCase() === 'link' ? 'link' : 'email') : undefined;
    const id = Number(typed ? typed[2] : text);
    const all = pending.filter((i) => i.id === id && (kind === undefined || kindOf(i) === kind));
    // Of an ID both kinds share, the kind the command acts on is meant; a kind it does not act on is
    // still returned alone, so the caller can say why it cannot act on it.
    const found = all.length > 1 ? all.filter((i) => acts.includes(kindOf(i))) : all;
    if (found.length > 1) {
      throw usageError(`${id} is the ID of both an e-mail invitation and a link`, `say email:${id} or link:${id} (see chatctl invite list)`);
    }
    return found.length ? { ok: true, invites: [{ kind: kindOf(found[0]!), id }] } : { ok: false, error: unknownRef(`No such invitation: ${text}`) };
  }
  const isUrl = /^https?:\/\//i.test(text);
  const found = pending.filter((i) =>
    i.is_multiuse ? isUrl && sameUrl(i.link_url, text) : !isUrl && typeof i.email === 'string' && i.email.toLowerCase() === text.toLowerCase(),
  );
  return found.length
    ? { ok: true, invites: found.map((i) => ({ kind: kindOf(i), id: i.id })) }
    : { ok: false, error: unknownRef(`No such invitation: ${text}`) };
}

/** An invitation as `invite list` shows it in text: its kind, whom or where it invites, the role by name. */
export function displayRow(invite: Invite): Record<string, unknown> {
  return {
    ...invite,
    kind: kindOf(invite),
    address: invite.is_multiuse ? invite.link_url : invite.email,
    role: roleName(invite.invited_as),
  };
}
