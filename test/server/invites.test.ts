import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createInviteLink, getInvites, resendInvite, revokeInvite, revokeInviteLink, sendInvites, type Invite } from '../../src/api/operations/invites.js';
import { deactivateUser } from '../../src/api/operations/users.js';
import type { InviteRow, LinkRow } from '../../src/server/model/invites.js';
import { setSetting } from '../../src/server/model/realm.js';
import { setGroupSetting } from '../helpers/realm-settings.js';
import { bad, flatFailureWithExtra } from '../helpers/api.js';
import { newStream } from '../helpers/channels.js';
import { openQueue, takeEvents } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const emailOf = (i: Invite): string | null => (i.is_multiuse ? null : i.email);

describe.each(TRANSPORTS)('invitations over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  let moderator: TestUser;
  let member: TestUser;
  let other: TestUser;
  let general: number;
  let n = 0;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
    moderator = org.addUser({ role: 300 });
    member = org.addUser();
    other = org.addUser();
    general = org.db.prepare("SELECT id FROM streams WHERE name = 'general'").pluck().get() as number;
  });
  afterAll(() => org.close());
  // Each test starts a new day, away from the daily limit.
  beforeEach(() => org.clock.advance(86401));

  const as = (user: TestUser) => clientFor(org, kind, user);
  const address = (base = 'guest') => `${base}-${kind}-${++n}@example.com`;
  const rowsFor = (email: string) => org.db.prepare('SELECT * FROM invites WHERE email = ?').all(email) as InviteRow[];

  it('stores one invitation per address, with its settings, and tells administrators and the inviter', async () => {
    const adminQueue = openQueue(org, admin);
    const inviterQueue = openQueue(org, member);
    const otherQueue = openQueue(org, other);
    const [a, b] = [address(), address()];
    const res = await (await as(member)).call(sendInvites, {
      invitee_emails: `${a}, Bea Person <${b}>\n${a}\n`,
      stream_ids: [general],
      include_realm_default_subscriptions: true,
      notify_referrer_on_join: false,
    });
    expect(openapiErrors('post', '/invites', 200, res)).toEqual([]);
    const now = org.clock.now();
    expect(rowsFor(a)).toEqual([
      {
        id: expect.any(Number),
        email: a,
        referrer_id: member.id,
        invited_as: 400,
        invited: now,
        expiry_date: now + 14400 * 60,
        stream_ids: `[${general}]`,
        group_ids: '[]',
        include_realm_default_subscriptions: 1,
        notify_referrer_on_join: 0,
        welcome_message_custom_text: null,
        status: 0,
      },
    ]);
    expect(rowsFor(b)).toHaveLength(1);
    expect(takeEvents(org, adminQueue)).toEqual([{ type: 'invites_changed' }]);
    expect(takeEvents(org, inviterQueue)).toEqual([{ type: 'invites_changed' }]);
    expect(takeEvents(org, otherQueue)).toEqual([]);
  });

  it('sets the expiry in minutes, or never', async () => {
    const [soon, never] = [address(), address()];
    const client = await as(member);
    await client.call(sendInvites, { invitee_emails: soon, stream_ids: [], invite_expires_in_minutes: 60 });
    await client.call(sendInvites, { invitee_emails: never, stream_ids: [], invite_expires_in_minutes: null });
    expect(rowsFor(soon)[0]!.expiry_date).toBe(org.clock.now() + 3600);
    expect(rowsFor(never)[0]!.expiry_date).toBeNull();
  });

  it('keeps the welcome message of administrators only, at most 8000 characters', async () => {
    const [fromAdmin, fromMember] = [address(), address()];
    await (await as(admin)).call(sendInvites, { invitee_emails: fromAdmin, stream_ids: [], welcome_message_custom_text: 'Welcome aboard' });
    await (await as(member)).call(sendInvites, { invitee_emails: fromMember, stream_ids: [], welcome_message_custom_text: 'Hi' });
    expect(rowsFor(fromAdmin)[0]!.welcome_message_custom_text).toBe('Welcome aboard');
    expect(rowsFor(fromMember)[0]!.welcome_message_custom_text).toBeNull();
    const res = await rawRequest(
      org,
      kind,
      {
        method: 'POST',
        path: '/invites',
        body: [
          ['invitee_emails', address()],
          ['stream_ids', '[]'],
          ['welcome_message_custom_text', 'w'.repeat(8001)],
        ],
      },
      admin,
    );
    expect(res.body).toEqual({ result: 'error', msg: 'welcome_message_custom_text is too long (limit: 8000 characters)', code: 'BAD_REQUEST' });
  });

  it('limits invite_as to the caller’s role or a more restricted one', async () => {
    expect(await flatFailureWithExtra((await as(admin)).call(sendInvites, { invitee_emails: address(), stream_ids: [], invite_as: 100 }))).toEqual({
      msg: 'Must be an organization owner',
      code: 'UNAUTHORIZED_PRINCIPAL',
      status: 400,
    });
    expect(await flatFailureWithExtra((await as(moderator)).call(sendInvites, { invitee_emails: address(), stream_ids: [], invite_as: 200 }))).toEqual(
      bad('Must be an organization administrator'),
    );
    expect(await flatFailureWithExtra((await as(member)).call(sendInvites, { invitee_emails: address(), stream_ids: [], invite_as: 300 }))).toEqual(
      bad('Must be an organization administrator'),
    );
    const asModerator = address();
    await (await as(moderator)).call(sendInvites, { invitee_emails: asModerator, stream_ids: [], invite_as: 300 });
    const asOwner = address();
    await (await as(org.owner)).call(sendInvites, { invitee_emails: asOwner, stream_ids: [], invite_as: 100 });
    expect([rowsFor(asModerator)[0]!.invited_as, rowsFor(asOwner)[0]!.invited_as]).toEqual([300, 100]);
  });

  it('checks, in order: permission, role, addresses, channels, subscribing others, groups', async () => {
    const client = await as(member);
    const secret = newStream(org, `secret-${kind}`, { inviteOnly: true, subscribers: [admin] });
    const open = newStream(org, `open-${kind}`);
    setGroupSetting(org.db, 'can_invite_users_group', 'role:administrators');
    try {
      expect(await flatFailureWithExtra(client.call(sendInvites, { invitee_emails: '', stream_ids: [999] }))).toEqual(bad('Insufficient permission'));
    } finally {
      setGroupSetting(org.db, 'can_invite_users_group', 'role:members');
    }
    expect(await flatFailureWithExtra(client.call(sendInvites, { invitee_emails: '  ', stream_ids: [999] }))).toEqual(
      bad('You must specify at least one email address.'),
    );
    expect(await flatFailureWithExtra(client.call(sendInvites, { invitee_emails: ',\n', stream_ids: [] }))).toEqual(
      bad('You must specify at least one email address.'),
    );
    expect(await flatFailureWithExtra(client.call(sendInvites, { invitee_emails: address(), stream_ids: [general, 999] }))).toEqual(
      bad('Invalid channel ID 999. No invites were sent.'),
    );
    expect(await flatFailureWithExtra(client.call(sendInvites, { invitee_emails: address(), stream_ids: [secret] }))).toEqual(
      bad(`Invalid channel ID ${secret}. No invites were sent.`),
    );
    await (await as(admin)).call(sendInvites, { invitee_emails: address(), stream_ids: [secret] });
    setGroupSetting(org.db, 'can_add_subscribers_group', 'role:administrators');
    try {
      expect(await flatFailureWithExtra(client.call(sendInvites, { invitee_emails: address(), stream_ids: [open] }))).toEqual(
        bad('You do not have permission to subscribe other users to channels.'),
      );
      // Default channels are every new user's anyway.
      await client.call(sendInvites, { invitee_emails: address(), stream_ids: [general] });
    } finally {
      setGroupSetting(org.db, 'can_add_subscribers_group', 'role:members');
    }
    const team = Number(
      org.db.prepare('INSERT INTO user_groups (name, creator_id, date_created) VALUES (?, ?, ?)').run(`team-${kind}`, member.id, org.clock.now())
        .lastInsertRowid,
    );
    const members = org.db.prepare("SELECT id FROM user_groups WHERE name = 'role:members'").pluck().get() as number;
    expect(await flatFailureWithExtra(client.call(sendInvites, { invitee_emails: address(), stream_ids: [], group_ids: [999] }))).toEqual(
      bad('Invalid user group'),
    );
    expect(await flatFailureWithExtra(client.call(sendInvites, { invitee_emails: address(), stream_ids: [], group_ids: [members] }))).toEqual(
      bad('Insufficient permission'),
    );
    expect(await flatFailureWithExtra((await as(other)).call(sendInvites, { invitee_emails: address(), stream_ids: [], group_ids: [team] }))).toEqual(
      bad('Insufficient permission'),
    );
    const joiner = address();
    await client.call(sendInvites, { invitee_emails: joiner, stream_ids: [], group_ids: [team] });
    expect(rowsFor(joiner)[0]!.group_ids).toBe(`[${team}]`);
  });

  it('sends nothing when an address does not validate, listing existing accounts too', async () => {
    const fresh = address();
    const err = await flatFailureWithExtra(
      (await as(member)).call(sendInvites, { invitee_emails: `${fresh}, not-an-address, ${other.email}`, stream_ids: [] }),
    );
    expect(err).toEqual({
      msg: "Some emails did not validate, so we didn't send any invitations.",
      code: 'INVITATION_FAILED',
      status: 400,
      errors: [
        ['not-an-address', 'Invalid address.', false],
        [other.email, 'Already has an account.', false],
      ],
      sent_invitations: false,
      license_limit_reached: false,
      daily_limit_reached: false,
    });
    expect(rowsFor(fresh)).toEqual([]);
  });

  it('reads a long run of "<" without a ">" as one (invalid) address, at once', async () => {
    // A backtracking `<(.*)>` is quadratic here: ~15 s of the server's only thread for 200 kB.
    const junk = `Pat ${'<'.repeat(200_000)}`;
    const err = await flatFailureWithExtra((await as(member)).call(sendInvites, { invitee_emails: junk, stream_ids: [] }));
    expect(err).toMatchObject({ code: 'INVITATION_FAILED', errors: [[junk, 'Invalid address.', false]], sent_invitations: false });
  }, 5000);

  it('refuses addresses outside the allowed domains', async () => {
    setSetting(org.db, 'emails_restricted_to_domains', true);
    org.db.prepare("INSERT INTO realm_domains (domain) VALUES ('example.com')").run();
    try {
      const err = await flatFailureWithExtra((await as(member)).call(sendInvites, { invitee_emails: `someone-${kind}@elsewhere.org`, stream_ids: [] }));
      expect(err).toMatchObject({ code: 'INVITATION_FAILED', errors: [[`someone-${kind}@elsewhere.org`, 'Outside your domain.', false]] });
    } finally {
      setSetting(org.db, 'emails_restricted_to_domains', false);
      org.db.prepare('DELETE FROM realm_domains').run();
    }
  });

  it('invites nobody when every address has an account, and says which are deactivated', async () => {
    const gone = org.addUser({ active: false });
    const err = await flatFailureWithExtra((await as(member)).call(sendInvites, { invitee_emails: `${other.email},${gone.email}`, stream_ids: [] }));
    expect(err).toEqual({
      msg: "We weren't able to invite anyone.",
      code: 'INVITATION_FAILED',
      status: 400,
      errors: [
        [other.email, 'Already has an account.', false],
        [gone.email, 'Account has been deactivated.', true],
      ],
      sent_invitations: false,
      license_limit_reached: false,
      daily_limit_reached: false,
    });
    const raw = await rawRequest(
      org,
      kind,
      {
        method: 'POST',
        path: '/invites',
        body: [
          ['invitee_emails', other.email],
          ['stream_ids', '[]'],
        ],
      },
      member,
    );
    expect(openapiErrors('post', '/invites', 400, raw.body)).toEqual([]);
  });

  it('invites the others when some addresses have accounts, and still reports an error', async () => {
    const fresh = address();
    const q = openQueue(org, admin);
    const err = await flatFailureWithExtra((await as(member)).call(sendInvites, { invitee_emails: `${fresh}\n${other.email}`, stream_ids: [] }));
    expect(err).toMatchObject({
      msg: "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      code: 'INVITATION_FAILED',
      errors: [[other.email, 'Already has an account.', false]],
      sent_invitations: true,
    });
    expect(rowsFor(fresh)).toHaveLength(1);
    expect(takeEvents(org, q)).toEqual([{ type: 'invites_changed' }]);
  });

  it('stops at the daily limit of the organization, sending nothing', async () => {
    setSetting(org.db, 'max_invites_per_day', 2);
    try {
      const client = await as(member);
      await client.call(sendInvites, { invitee_emails: address(), stream_ids: [] });
      const [a, b] = [address(), address()];
      const err = await flatFailureWithExtra(client.call(sendInvites, { invitee_emails: `${a},${b}`, stream_ids: [] }));
      expect(err).toEqual({
        msg: 'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.',
        code: 'INVITATION_FAILED',
        status: 400,
        errors: [],
        sent_invitations: false,
        license_limit_reached: false,
        daily_limit_reached: true,
      });
      expect([...rowsFor(a), ...rowsFor(b)]).toEqual([]);
      org.clock.advance(86401);
      await client.call(sendInvites, { invitee_emails: `${a},${b}`, stream_ids: [] });
    } finally {
      setSetting(org.db, 'max_invites_per_day', null);
    }
  });

  it('lists pending, unexpired invitations: all for administrators, their own for others', async () => {
    const [mine, theirs, expiring] = [address(), address(), address()];
    await (await as(member)).call(sendInvites, { invitee_emails: mine, stream_ids: [] });
    await (await as(other)).call(sendInvites, { invitee_emails: theirs, stream_ids: [] });
    await (await as(member)).call(sendInvites, { invitee_emails: expiring, stream_ids: [], invite_expires_in_minutes: 1, notify_referrer_on_join: false });
    const forMember = await (await as(member)).call(getInvites, {});
    expect(openapiErrors('get', '/invites', 200, forMember)).toEqual([]);
    const emails = forMember.invites.map(emailOf);
    expect(emails).toContain(mine);
    expect(emails).toContain(expiring);
    expect(emails).not.toContain(theirs);
    expect(forMember.invites.find((i) => emailOf(i) === mine)).toEqual({
      id: rowsFor(mine)[0]!.id,
      invited_by_user_id: member.id,
      invited: org.clock.now(),
      expiry_date: org.clock.now() + 14400 * 60,
      invited_as: 400,
      email: mine,
      is_multiuse: false,
      // Level 267, zerver/actions/invites.py do_get_invites_controlled_by_user: what the invitation was sent with.
      notify_referrer_on_join: true,
    });
    expect(forMember.invites.find((i) => emailOf(i) === expiring)).toMatchObject({ notify_referrer_on_join: false });
    org.clock.advance(61);
    const forAdmin = (await (await as(admin)).call(getInvites, {})).invites.map(emailOf);
    expect(forAdmin).toEqual(expect.arrayContaining([mine, theirs]));
    expect(forAdmin).not.toContain(expiring);
  });

  it('revokes: the inviter and administrators; owners for owner invitations', async () => {
    const [byMember, byOwner] = [address(), address()];
    await (await as(member)).call(sendInvites, { invitee_emails: byMember, stream_ids: [] });
    await (await as(org.owner)).call(sendInvites, { invitee_emails: byOwner, stream_ids: [], invite_as: 100 });
    const memberInvite = rowsFor(byMember)[0]!.id;
    const ownerInvite = rowsFor(byOwner)[0]!.id;
    expect(await flatFailureWithExtra((await as(other)).call(revokeInvite, { invite_id: memberInvite }))).toEqual(bad('Must be an organization administrator'));
    expect(await flatFailureWithExtra((await as(admin)).call(revokeInvite, { invite_id: ownerInvite }))).toEqual({
      msg: 'Must be an organization owner',
      code: 'UNAUTHORIZED_PRINCIPAL',
      status: 400,
    });
    const q = openQueue(org, member);
    const res = await (await as(admin)).call(revokeInvite, { invite_id: memberInvite });
    expect(openapiErrors('delete', '/invites/{invite_id}', 200, res)).toEqual([]);
    expect(rowsFor(byMember)[0]!.status).toBe(2);
    expect(takeEvents(org, q)).toEqual([{ type: 'invites_changed' }]);
    expect(await flatFailureWithExtra((await as(admin)).call(revokeInvite, { invite_id: memberInvite }))).toEqual(bad('No such invitation'));
    expect(await flatFailureWithExtra((await as(admin)).call(revokeInvite, { invite_id: 999999 }))).toEqual(bad('No such invitation'));
    await (await as(org.owner)).call(revokeInvite, { invite_id: ownerInvite });
    const own = address();
    await (await as(member)).call(sendInvites, { invitee_emails: own, stream_ids: [] });
    await (await as(member)).call(revokeInvite, { invite_id: rowsFor(own)[0]!.id });
  });
});

describe.each(TRANSPORTS)('reusable invitation links over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  let moderator: TestUser;
  let member: TestUser;
  let other: TestUser;
  let n = 0;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
    moderator = org.addUser({ role: 300 });
    member = org.addUser();
    other = org.addUser();
  });
  afterAll(() => org.close());
  beforeEach(() => org.clock.advance(86401));

  const as = (user: TestUser) => clientFor(org, kind, user);
  const address = () => `link-${kind}-${++n}@example.com`;
  const linkRow = (id: number) => org.db.prepare('SELECT * FROM multiuse_invites WHERE id = ?').get(id) as LinkRow;
  const newestLink = () => org.db.prepare('SELECT * FROM multiuse_invites ORDER BY id DESC LIMIT 1').get() as LinkRow;
  const listed = async (user: TestUser) => (await (await as(user)).call(getInvites, {})).invites;
  const links = async (user: TestUser) => (await listed(user)).filter((i) => i.is_multiuse);
  /** Members may create links from here on; administrators only, by default. */
  const membersMayCreate = () => setGroupSetting(org.db, 'create_multiuse_invite_group', 'role:members');

  it('creates a link with its settings, lists it with the e-mail invitations, and tells administrators and its maker', async () => {
    const adminQueue = openQueue(org, admin);
    const otherQueue = openQueue(org, other);
    const team = Number(
      org.db.prepare('INSERT INTO user_groups (name, creator_id, date_created) VALUES (?, ?, ?)').run(`crew-${kind}`, admin.id, org.clock.now())
        .lastInsertRowid,
    );
    const general = org.db.prepare("SELECT id FROM streams WHERE name = 'general'").pluck().get() as number;
    const res = await (await as(admin)).call(createInviteLink, {
      invite_as: 600,
      stream_ids: [general],
      group_ids: [team],
      include_realm_default_subscriptions: true,
      invite_expires_in_minutes: 60,
    });
    expect(openapiErrors('post', '/invites/multiuse', 200, res)).toEqual([]);
    expect(res.invite_link).toMatch(/^http:\/\/[^/]+\/join\/[a-z0-9]{24}\/$/);
    const row = newestLink();
    expect(row).toEqual({
      id: row.id,
      link_key: res.invite_link.split('/').at(-2),
      referrer_id: admin.id,
      invited_as: 600,
      invited: org.clock.now(),
      expiry_date: org.clock.now() + 3600,
      stream_ids: `[${general}]`,
      group_ids: `[${team}]`,
      include_realm_default_subscriptions: 1,
      status: 0,
    });
    expect(takeEvents(org, adminQueue)).toEqual([{ type: 'invites_changed' }]);
    expect(takeEvents(org, otherQueue)).toEqual([]);

    const email = address();
    await (await as(admin)).call(sendInvites, { invitee_emails: email, stream_ids: [] });
    const body = await (await as(admin)).call(getInvites, {});
    expect(openapiErrors('get', '/invites', 200, body)).toEqual([]);
    expect(body.invites.find((i) => i.is_multiuse && i.id === row.id)).toEqual({
      id: row.id,
      invited_by_user_id: admin.id,
      invited: org.clock.now(),
      expiry_date: org.clock.now() + 3600,
      invited_as: 600,
      link_url: res.invite_link,
      is_multiuse: true,
    });
    expect(body.invites.filter((i) => i.is_multiuse).every((i) => !('notify_referrer_on_join' in i))).toBe(true);
    expect(body.invites.find((i) => emailOf(i) === email)).toMatchObject({ is_multiuse: false });
    expect(body.invites.filter((i) => i.is_multiuse).every((i) => !('email' in i))).toBe(true);
  });

  it('expires links after the server default, the given minutes, or never', async () => {
    const client = await as(admin);
    await client.call(createInviteLink, {});
    expect(newestLink().expiry_date).toBe(org.clock.now() + 14400 * 60);
    await client.call(createInviteLink, { invite_expires_in_minutes: null });
    const never = newestLink();
    expect(never.expiry_date).toBeNull();
    await client.call(createInviteLink, { invite_expires_in_minutes: 1 });
    const soon = newestLink();
    org.clock.advance(61);
    const ids = (await links(admin)).map((i) => i.id);
    expect(ids).toContain(never.id);
    expect(ids).not.toContain(soon.id);
  });

  it('numbers links apart from e-mail invitations, and each DELETE finds only its own kind', async () => {
    const fresh = createTestOrg();
    try {
      const client = await clientFor(fresh, kind);
      const email = `both-${kind}@example.com`;
      await client.call(sendInvites, { invitee_emails: email, stream_ids: [] });
      await client.call(createInviteLink, {});
      const before = (await client.call(getInvites, {})).invites;
      expect(before.map((i) => [i.id, i.is_multiuse])).toEqual([
        [1, false],
        [1, true],
      ]);

      await client.call(revokeInvite, { invite_id: 1 });
      expect((await client.call(getInvites, {})).invites.map((i) => [i.id, i.is_multiuse])).toEqual([[1, true]]);
      expect(await flatFailureWithExtra(client.call(revokeInvite, { invite_id: 1 }))).toEqual(bad('No such invitation'));

      await client.call(createInviteLink, {});
      expect(await flatFailureWithExtra(client.call(revokeInvite, { invite_id: 2 }))).toEqual(bad('No such invitation'));
      const res = await client.call(revokeInviteLink, { invite_id: 1 });
      expect(openapiErrors('delete', '/invites/multiuse/{invite_id}', 200, res)).toEqual([]);
      expect((await client.call(getInvites, {})).invites.map((i) => [i.id, i.is_multiuse])).toEqual([[2, true]]);
      expect(await flatFailureWithExtra(client.call(revokeInviteLink, { invite_id: 1 }))).toEqual(bad('Invitation has already been revoked'));
      expect(await flatFailureWithExtra(client.call(revokeInviteLink, { invite_id: 99 }))).toEqual(bad('No such invitation'));
    } finally {
      await fresh.close();
    }
  });

  it('never gives a link the ID of one that is gone', async () => {
    const client = await as(admin);
    await client.call(createInviteLink, {});
    const gone = newestLink().id;
    org.db.prepare('DELETE FROM multiuse_invites WHERE id = ?').run(gone);
    await client.call(createInviteLink, {});
    expect(newestLink().id).toBeGreaterThan(gone);
  });

  it('lets administrators create links by default, members once allowed; roles as for e-mail invitations', async () => {
    expect(await flatFailureWithExtra((await as(member)).call(createInviteLink, {}))).toEqual(bad('Insufficient permission'));
    expect(await flatFailureWithExtra((await as(moderator)).call(createInviteLink, {}))).toEqual(bad('Insufficient permission'));
    expect(await flatFailureWithExtra((await as(admin)).call(createInviteLink, { invite_as: 100 }))).toEqual({
      msg: 'Must be an organization owner',
      code: 'UNAUTHORIZED_PRINCIPAL',
      status: 400,
    });
    await (await as(org.owner)).call(createInviteLink, { invite_as: 100 });
    expect(newestLink()).toMatchObject({ invited_as: 100, referrer_id: org.owner.id });
    membersMayCreate();
    try {
      await (await as(member)).call(createInviteLink, {});
      expect(newestLink()).toMatchObject({ invited_as: 400, referrer_id: member.id });
      expect(await flatFailureWithExtra((await as(member)).call(createInviteLink, { invite_as: 300 }))).toEqual(bad('Must be an organization administrator'));
      expect(await flatFailureWithExtra((await as(member)).call(createInviteLink, { stream_ids: [999] }))).toEqual(
        bad('Invalid channel ID 999. No invites were sent.'),
      );
      expect(await flatFailureWithExtra((await as(member)).call(createInviteLink, { group_ids: [999] }))).toEqual(bad('Invalid user group'));
    } finally {
      setGroupSetting(org.db, 'create_multiuse_invite_group', 'role:administrators');
    }
  });

  it('lists and revokes: the maker and administrators; owners for owner links', async () => {
    membersMayCreate();
    try {
      const maker = org.addUser();
      await (await as(maker)).call(createInviteLink, {});
      const mine = newestLink().id;
      await (await as(org.owner)).call(createInviteLink, { invite_as: 100 });
      const owners = newestLink().id;
      expect((await links(maker)).map((i) => i.id)).toEqual([mine]);
      expect((await links(other)).map((i) => i.id)).toEqual([]);
      expect((await links(admin)).map((i) => i.id)).toEqual(expect.arrayContaining([mine, owners]));

      expect(await flatFailureWithExtra((await as(other)).call(revokeInviteLink, { invite_id: mine }))).toEqual(bad('Must be an organization administrator'));
      expect(await flatFailureWithExtra((await as(admin)).call(revokeInviteLink, { invite_id: owners }))).toEqual({
        msg: 'Must be an organization owner',
        code: 'UNAUTHORIZED_PRINCIPAL',
        status: 400,
      });
      const q = openQueue(org, maker);
      await (await as(maker)).call(revokeInviteLink, { invite_id: mine });
      expect(linkRow(mine).status).toBe(2);
      expect(takeEvents(org, q)).toEqual([{ type: 'invites_changed' }]);
      await (await as(org.owner)).call(revokeInviteLink, { invite_id: owners });
      expect(linkRow(owners).status).toBe(2);
    } finally {
      setGroupSetting(org.db, 'create_multiuse_invite_group', 'role:administrators');
    }
  });

  it("revokes a user's links when the account is deactivated", async () => {
    const leaving = org.addUser({ role: 200 });
    await (await as(leaving)).call(createInviteLink, {});
    const id = newestLink().id;
    await (await as(org.owner)).call(deactivateUser, { user_id: leaving.id });
    expect(linkRow(id).status).toBe(2);
    expect((await links(admin)).map((i) => i.id)).not.toContain(id);
  });

  it('resends e-mail invitations: the inviter and administrators, pending ones only, within the daily limit', async () => {
    const [mine, revoked] = [address(), address()];
    await (await as(member)).call(sendInvites, { invitee_emails: `${mine},${revoked}`, stream_ids: [] });
    const ids = Object.fromEntries((await listed(member)).flatMap((i) => (i.is_multiuse ? [] : [[i.email, i.id]]))) as Record<string, number>;
    const q = openQueue(org, member);
    expect(await (await as(member)).call(resendInvite, { invite_id: ids[mine]! })).toEqual({ result: 'success', msg: '' });
    await (await as(admin)).call(resendInvite, { invite_id: ids[mine]! });
    expect(takeEvents(org, q)).toEqual([]);
    expect(await flatFailureWithExtra((await as(other)).call(resendInvite, { invite_id: ids[mine]! }))).toEqual(bad('Must be an organization administrator'));
    await (await as(member)).call(revokeInvite, { invite_id: ids[revoked]! });
    expect(await flatFailureWithExtra((await as(member)).call(resendInvite, { invite_id: ids[revoked]! }))).toEqual(bad('No such invitation'));
    expect(await flatFailureWithExtra((await as(member)).call(resendInvite, { invite_id: 999999 }))).toEqual(bad('No such invitation'));
    setSetting(org.db, 'max_invites_per_day', 2);
    try {
      expect(await flatFailureWithExtra((await as(member)).call(resendInvite, { invite_id: ids[mine]! }))).toMatchObject({
        code: 'INVITATION_FAILED',
        daily_limit_reached: true,
        sent_invitations: false,
      });
    } finally {
      setSetting(org.db, 'max_invites_per_day', null);
    }
  });
});
