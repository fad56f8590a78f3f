/**
 * The one table of server answers chatctl recognises: an answer of each entry (in a stock Zulip server's
 * words, from zulip.yaml where it documents one) is classified as that entry and exits with its kind; the
 * embedded server's helpers say what the table recognises; chatctl's own refusals exit with the kind they
 * declare, whatever they say. Stand-in servers answering as a stock one check the exit codes end to end.
 */
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ApiError, insufficientPermission, mustBe } from '../../src/api/errors.js';
import { classify, SERVER_MESSAGES, type Meaning } from '../../src/api/server-messages.js';
import { exitKindOf, reportError } from '../../src/cli/core/errors.js';
import { Refusal, refusalOf, unknownRef } from '../../src/cli/core/refusal.js';
import { EXIT, notFound } from '../../src/errors.js';
import { documentedExample } from '../client/examples.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { standInStockServer } from '../helpers/stock-server.js';

/** A server's error answer, as the client rebuilds it from the response. */
const answer = (msg: string, code: string | null = 'BAD_REQUEST', status = 400): ApiError => new ApiError(msg, code, status);

/** The answer zulip.yaml documents for `METHOD path` failing with `status`. */
function documented(method: string, path: string, status = 400): ApiError {
  const body = documentedExample(method, path, status);
  return answer(String(body.msg), typeof body.code === 'string' ? body.code : null, status);
}

/** One answer a server gives for each entry of the table. */
const SAMPLES: Record<Meaning, ApiError> = {
  invalidApiKey: documented('POST', '/rest-error-handling'),
  userDeactivated: answer('Account is deactivated', 'USER_DEACTIVATED', 401),
  realmDeactivated: answer('This organization is deactivated', 'REALM_DEACTIVATED', 401),
  authenticationFailed: answer('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401),
  passwordAuthDisabled: answer('Password authentication is disabled in this organization', 'PASSWORD_AUTH_DISABLED', 401),
  passwordResetRequired: answer('Your password has been disabled and needs to be reset', 'PASSWORD_RESET_REQUIRED', 401),
  unauthorized: documented('DELETE', '/attachments/{attachment_id}', 401),
  rateLimited: answer('API usage exceeded rate limit', 'RATE_LIMIT_HIT', 429),
  serverError: answer('Internal server error', null, 500),
  notAuthorizedToCreateUsers: answer('User not authorized to create users'),
  roleRequired: documented('POST', '/streams/{stream_id}/delete_topic'),
  insufficientPermission: answer('Insufficient permission'),
  notForGuests: answer('Not allowed for guest users'),
  notForBots: answer('This endpoint does not accept bot requests.'),
  noPermission: answer("You don't have permission to edit this message"),
  notAuthorized: answer('User not authorized for this query'),
  cannotAccessChannel: answer('Unable to access channel (private).'),
  cannotPostHere: answer("Not authorized to send to channel 'announce'"),
  accessDenied: answer('Access denied'),
  organizationRoleOnly: answer('Only organization administrators can send to this channel.'),
  forbidden: answer('Forbidden', 'BAD_REQUEST', 403),
  noSuchUser: documented('GET', '/users/{user_id}/status'),
  invalidUserId: documented('POST', '/user_groups/create'),
  noSuchMessage: documented('GET', '/messages/{message_id}'),
  noSuchChannel: documented('GET', '/streams/{stream_id}'),
  noSuchChannelName: documented('GET', '/get_stream_id'),
  noSuchStream: answer('Invalid stream ID'),
  channelDoesNotExist: answer("Channel 'nonexistent' does not exist", 'STREAM_DOES_NOT_EXIST'),
  noSuchGroup: documented('DELETE', '/user_groups/{user_group_id}'),
  noSuchAttachment: documented('DELETE', '/attachments/{attachment_id}'),
  noSuchLinkifier: answer('Linkifier not found.'),
  noSuchChannelFolder: answer('Invalid channel folder ID'),
  noSuchDomain: answer('No entry found for domain example.com.'),
  noSuchEventQueue: documented('GET', '/events'),
  noSuchReaction: answer("Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST'),
  noSuchInvitation: documented('DELETE', '/invites/{invite_id}'),
  invalidInvitationId: answer('Invalid invitation ID'),
  noSuchCustomEmoji: answer('Invalid custom emoji.'),
  noSuchEmoji: documented('DELETE', '/realm/emoji/{emoji_name}', 404),
  narrowNamesNothing: answer("Invalid narrow operator: unknown channel 'nowhere'", 'BAD_NARROW'),
  notFound: documented('DELETE', '/drafts/{draft_id}', 404),
  channelExists: answer("Channel 'music' already exists", 'CHANNEL_ALREADY_EXISTS', 409),
  linkifierOrderMismatch: answer('The ordered list must enumerate all existing linkifiers exactly once'),
  emailInUse: answer("Email 'ada@example.com' already in use"),
  reactionExists: answer('Reaction already exists.', 'REACTION_ALREADY_EXISTS'),
};

describe('the table of server answers', () => {
  it('names each meaning once', () => {
    const meanings = SERVER_MESSAGES.map((m) => m.meaning);
    expect(new Set(meanings).size).toBe(meanings.length);
  });

  it.each(SERVER_MESSAGES.map((m) => [m.meaning, m.kind] as const))('recognises %s and exits as %s', (meaning, kind) => {
    const e = SAMPLES[meaning];
    expect(classify(e)?.meaning).toBe(meaning);
    expect(exitKindOf(e)).toBe(kind);
  });

  it('takes the status and code before the words: a 401 is for credentials, a 5xx temporary, whatever they say', () => {
    expect(exitKindOf(answer('No such user', 'UNAUTHORIZED', 401))).toBe('auth');
    expect(exitKindOf(answer('Insufficient permission', null, 503))).toBe('temporary');
    expect(exitKindOf(answer('No such user', 'BAD_REQUEST', 403))).toBe('permission');
  });

  it('recognises the variants a server adds to a message: the ID or name it did not find', () => {
    expect(classify(answer('Invalid channel ID 11. No invites were sent.'))?.meaning).toBe('noSuchChannel');
    expect(classify(answer('Invalid user ID 10'))?.meaning).toBe('invalidUserId');
    expect(classify(answer('Invalid user group ID: 5'))?.meaning).toBe('noSuchGroup');
    expect(classify(answer("Channel with ID '9' does not exist", 'STREAM_DOES_NOT_EXIST'))?.meaning).toBe('channelDoesNotExist');
    expect(classify(answer('The ordered list must not contain duplicated linkifiers'))?.meaning).toBe('linkifierOrderMismatch');
  });

  it('leaves an answer it does not know unclassified: exit 1', () => {
    const e = answer('Invitation has already been revoked');
    expect(classify(e)).toBeUndefined();
    expect(exitKindOf(e)).toBe('failure');
  });

  it("is what the embedded server's helpers say", () => {
    expect(classify(mustBe('administrator'))?.meaning).toBe('roleRequired');
    expect(classify(mustBe('owner'))?.meaning).toBe('roleRequired');
    expect(classify(insufficientPermission())?.meaning).toBe('insufficientPermission');
  });
});

describe("chatctl's own refusals", () => {
  it('exit with the kind they declare, not the one their words would suggest', () => {
    expect(exitKindOf(unknownRef('nothing named that'))).toBe('notFound');
    expect(exitKindOf(new Refusal('No such user: looks like the server, is not not-found'))).toBe('failure');
    expect(exitKindOf(refusalOf(new Error('Insufficient permission')))).toBe('failure');
    expect(refusalOf(unknownRef('kept'))).toMatchObject({ msg: 'kept', kind: 'notFound' });
    expect(exitKindOf(notFound('no profile named "x"'))).toBe('notFound');
  });

  it("are reported in the server's shape", () => {
    const r = reportError(unknownRef('No such user: ghost@example.com'));
    expect(r).toMatchObject({ exitCode: EXIT.notFound, text: 'chatctl: No such user: ghost@example.com (BAD_REQUEST)' });
    expect(r.json).toEqual({ error: { message: 'No such user: ghost@example.com', code: 'BAD_REQUEST', http_status: 400, exit_code: EXIT.notFound } });
  });
});

describe('exit codes of a stock server answering users get (nock)', () => {
  const SITE = 'http://stock.chat.test';
  const creds = { ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };

  standInStockServer(SITE);

  it.each([
    ['No such user', 'BAD_REQUEST', 400, EXIT.notFound],
    ['Insufficient permission', 'BAD_REQUEST', 400, EXIT.permission],
    ['Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL', 400, EXIT.permission],
    ['Invalid API key', 'UNAUTHORIZED', 401, EXIT.auth],
    ['Something chatctl has no entry for', 'BAD_REQUEST', 400, EXIT.failure],
  ])('%j (%s, %i) exits %i', async (msg, code, status, exitCode) => {
    const get = nock(SITE).get('/api/v1/users/42').query(true).reply(status, { result: 'error', msg, code });
    const r = await runCli(['--server', SITE, 'users', 'get', '42'], { env: { ...tempHome().env, ...creds } });
    expect(get.isDone()).toBe(true);
    expect(r.code).toBe(exitCode);
    expect(r.stderr).toContain(`chatctl: ${msg} (${code})`);
  });
});
