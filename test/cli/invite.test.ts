import nock from 'nock';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/api/operations/channels.js';
import { createUserGroup } from '../../src/api/operations/groups.js';
import type { InviteRow, LinkRow } from '../../src/server/model/invites.js';
import { documentedExample } from '../client/examples.js';
import { cliTarget, expectUsageError, fakeCreds, jsonLines, parse, runCli, scriptedPrompter, tempHome, summariesIn } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe('invite: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse([
      'invite',
      'send',
      'a@x.test',
      'b@x.test',
      '--channel',
      'general',
      '--channel',
      '5',
      '--as',
      'guest',
      '--expires',
      '7d',
      '--group',
      'eng',
      '--default-channels',
      '--no-notify',
      '--welcome-text',
      'Hi',
      '--dry-run',
    ]);
    expect(p.spec.path).toEqual(['invite', 'send']);
    expect(p.opts).toMatchObject({
      emails: ['a@x.test', 'b@x.test'],
      channel: ['general', '5'],
      as: 600,
      expires: 7 * 24 * 60,
      group: ['eng'],
      defaultChannels: true,
      notify: false,
      welcomeText: 'Hi',
      dryRun: true,
    });
    const plain = await parse(['invite', 'send', '--from-file', '-', '--fail-fast', '--json']);
    expect(plain.opts).toMatchObject({ fromFile: '-', failFast: true, json: true, notify: true });
    const revoke = await parse(['invite', 'revoke', '3', 'a@x.test', '-y']);
    expect(revoke.opts).toMatchObject({ invites: ['3', 'a@x.test'], yes: true });
    const list = await parse(['invite', 'ls', '--fields', 'id,email']);
    expect(list.spec.path).toEqual(['invite', 'list']);
    const link = await parse([
      'invite',
      'link',
      'create',
      '--as',
      'guest',
      '--expires',
      'never',
      '--channel',
      'design',
      '--group',
      'eng',
      '--group',
      '7',
      '--default-channels',
      '--dry-run',
    ]);
    expect(link.spec.path).toEqual(['invite', 'link', 'create']);
    expect(link.opts).toMatchObject({ as: 600, expires: null, channel: ['design'], group: ['eng', '7'], defaultChannels: true, dryRun: true });
    const resend = await parse(['invite', 'resend', '4', 'a@x.test', '--json']);
    expect(resend.opts).toMatchObject({ invites: ['4', 'a@x.test'], json: true });
  });

  it.each([
    [['invite', 'send'], 'name at least one e-mail address, or pass --from-file'],
    [['invite', 'send', 'a@x.test', '--as', 'king'], 'unknown role "king"'],
    [['invite', 'send', 'a@x.test', '--expires', 'soon'], '--expires takes a duration like 30d or 12h, not "soon"'],
    [['invite', 'send', 'a@x.test', '--expires', '90s'], '--expires takes whole minutes or more (e.g. 30m, 12h, 7d) or never, not "90s"'],
    [['invite', 'send', 'a@x.test', '--from-file', 'x.csv'], 'give addresses as arguments or with --from-file, not both'],
    [['invite', 'revoke'], "missing required argument 'invites'"],
    [['invite', 'list', '--fields', 'nope'], 'unknown field "nope"'],
    [['invite', 'resend'], "missing required argument 'invites'"],
    [['invite', 'link', 'create', '--as', 'king'], 'unknown role "king"'],
    [['invite', 'link', 'create', '--expires', 'soon'], '--expires takes a duration like 30d or 12h, not "soon"'],
  ])('%j is a usage error', expectUsageError);

  it('invite list --help says how times are printed: UNIX seconds in JSON, RFC 3339 elsewhere', async () => {
    const r = await runCli(['invite', 'list', '--help']);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('Times are UNIX seconds in JSON, and RFC 3339 (UTC) in tables, TSV and CSV');
  });

  it('refuses a file with an unknown column, naming the columns it takes', async () => {
    const file = join(tempHome().home, 'bad.csv');
    writeFileSync(file, 'email,role\na@x.test,admin\n');
    const r = await runCli(['invite', 'send', '--from-file', file], { env: fakeCreds() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 1, column role: unknown column');
    expect(r.stderr).toContain('hint: columns: email (required), channels, groups, as, expires, default_channels, notify, welcome_text');
  });
});

/** A fresh organization with the channel `design` (the owner subscribed) and the group `engineering`. */
async function inviteOrg(kind: (typeof TRANSPORTS)[number]): Promise<{ org: TestOrg; design: number; engineering: number }> {
  const org = createTestOrg();
  const owner = await clientFor(org, kind);
  await owner.call(subscribe, { subscriptions: [{ name: 'design' }] });
  const design = org.db.prepare("SELECT id FROM streams WHERE name = 'design'").pluck().get() as number;
  const engineering = (await owner.call(createUserGroup, { name: 'engineering', description: 'builders', members: [org.owner.id] })).group_id;
  return { org, design, engineering };
}

describe.each(TRANSPORTS)('invite commands over %s', (kind) => {
  let org: TestOrg;
  let design: number;
  let engineering: number;
  const invites = (where = '1 = 1', ...args: unknown[]) => org.db.prepare(`SELECT * FROM invites WHERE ${where} ORDER BY id`).all(...args) as InviteRow[];
  const invitedEmails = () => invites('status = 0').map((i) => i.email);

  beforeAll(async () => {
    ({ org, design, engineering } = await inviteOrg(kind));
  });
  afterAll(() => org.close());

  it('lists nothing at first: [] in JSON, nothing on a pipe, a note on a terminal', async () => {
    const t = await cliTarget(org, kind);
    const json = await runCli([...t.args, 'invite', 'list', '--json'], { env: t.env });
    expect(json).toMatchObject({ code: 0, stdout: '[]\n' });
    const piped = await runCli([...t.args, 'invite', 'list'], { env: t.env });
    expect(piped).toMatchObject({ code: 0, stdout: '' });
    const tty = await runCli([...t.args, 'invite', 'list'], { env: t.env, tty: true });
    expect(tty).toMatchObject({ code: 0, stdout: '' });
    expect(tty.stderr).toContain('no pending invitations');
  });

  it('invites several addresses in one request, with channels and groups by name or ID, role and expiry', async () => {
    const t = await cliTarget(org, kind);
    const a = `ada-${kind}@example.com`;
    const b = `bob-${kind}@example.com`;
    const r = await runCli(
      [
        ...t.args,
        'invite',
        'send',
        a,
        b,
        '--channel',
        'Design',
        '--channel',
        '1',
        '--group',
        'engineering',
        '--as',
        'moderator',
        '--expires',
        '7d',
        '--no-notify',
        '--welcome-text',
        'Welcome!',
        '--json',
      ],
      { env: t.env },
    );
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([
      { row: 1, target: a, ok: true, status: 'invited', id: null, error: null, code: null },
      { row: 2, target: b, ok: true, status: 'invited', id: null, error: null, code: null },
    ]);
    expect(r.stderr).toContain('chatctl: 2 invited, 0 failed');
    const stored = invites('email IN (?, ?)', a, b);
    expect(stored).toHaveLength(2);
    for (const i of stored) {
      expect(i).toMatchObject({ invited_as: 300, notify_referrer_on_join: 0, include_realm_default_subscriptions: 0, welcome_message_custom_text: 'Welcome!' });
      expect(JSON.parse(i.stream_ids)).toEqual([1, design].sort((x, y) => x - y));
      expect(JSON.parse(i.group_ids)).toEqual([engineering]);
      expect(i.expiry_date).toBe(i.invited + 7 * 86400);
    }

    const listed = await runCli([...t.args, 'invite', 'list', '--json'], { env: t.env });
    const rows = (JSON.parse(listed.stdout) as Record<string, unknown>[]).filter((i) => i.email === a);
    expect(rows).toEqual([
      {
        id: stored[0]!.id,
        email: a,
        invited_by_user_id: org.owner.id,
        invited: stored[0]!.invited,
        expiry_date: stored[0]!.expiry_date,
        invited_as: 300,
        is_multiuse: false,
        notify_referrer_on_join: false,
      },
    ]);
    const tsv = await runCli([...t.args, 'invite', 'list', '--fields', 'email,invited_as'], { env: t.env });
    expect(tsv.stdout.split('\n')).toContain(`${b}\t300`);
    const table = await runCli([...t.args, 'invite', 'list', '--fields', 'id,email'], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+EMAIL$/);
  });

  it('never-expiring invitations and default channels', async () => {
    const t = await cliTarget(org, kind);
    const email = `nev-${kind}@example.com`;
    const r = await runCli([...t.args, 'invite', 'send', email, '--expires', 'never', '--default-channels'], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`1\t${email}\ttrue\tinvited\t\t\t\n`);
    expect(invites('email = ?', email)[0]).toMatchObject({
      expiry_date: null,
      include_realm_default_subscriptions: 1,
      invited_as: 400,
      notify_referrer_on_join: 1,
    });
    const listed = await runCli([...t.args, 'invite', 'list', '--json'], { env: t.env });
    expect((JSON.parse(listed.stdout) as { email: string; expiry_date: unknown }[]).find((i) => i.email === email)!.expiry_date).toBeNull();
  });

  it('reports an address that already has an account on its own; the others are invited (sent_invitations)', async () => {
    const existing = org.addUser();
    const t = await cliTarget(org, kind);
    const c = `cy-${kind}@example.com`;
    const d = `di-${kind}@example.com`;
    const r = await runCli([...t.args, 'invite', 'send', c, existing.email, d], { env: t.env });
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n').slice(0, 3)).toEqual([
      `1\t${c}\ttrue\tinvited\t\t\t`,
      `2\t${existing.email}\tfalse\tfailed\t\tAlready has an account.\tINVITATION_FAILED`,
      `3\t${d}\ttrue\tinvited\t\t\t`,
    ]);
    expect(r.stderr).toContain('chatctl: 2 invited, 1 failed');
    expect(invitedEmails()).toEqual(expect.arrayContaining([c, d]));
    expect(invitedEmails()).not.toContain(existing.email);
  });

  it('re-sends the others when an invalid address made the server send none', async () => {
    const t = await cliTarget(org, kind);
    const e = `eve-${kind}@example.com`;
    const f = `fay-${kind}@example.com`;
    const r = await runCli([...t.args, 'invite', 'send', e, 'not-an-address', f, '--json'], { env: t.env });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout).map((o) => [o.target, o.ok, o.error ?? null])).toEqual([
      [e, true, null],
      ['not-an-address', false, 'Invalid address.'],
      [f, true, null],
    ]);
    expect(invites('email IN (?, ?)', e, f)).toHaveLength(2);
  });

  it('fails a row whose channel does not exist before sending it: exit 3 alone or among others', async () => {
    const t = await cliTarget(org, kind);
    const before = invites().length;
    const alone = await runCli([...t.args, 'invite', 'send', `gus-${kind}@example.com`, '--channel', 'nowhere'], { env: t.env });
    expect(alone.code).toBe(3);
    expect(alone.stderr).toContain("chatctl: Channel 'nowhere' does not exist");
    expect(invites().length).toBe(before);

    const file = join(tempHome().home, 'mixed.csv');
    writeFileSync(
      file,
      `email,channels,as\nhal-${kind}@example.com,design,guest\nivy-${kind}@example.com,nowhere,\njo-${kind}@example.com,"general,design",member\n`,
    );
    const r = await runCli([...t.args, 'invite', 'send', '--from-file', file, '--json'], { env: t.env });
    expect(r.code).toBe(3);
    const outcomes = jsonLines(r.stdout);
    expect(outcomes.map((o) => [o.row, o.ok])).toEqual([
      [1, true],
      [2, false],
      [3, true],
    ]);
    expect(outcomes[1]).toMatchObject({ target: `ivy-${kind}@example.com`, status: 'failed', error: "Channel 'nowhere' does not exist" });
    expect(invites('email = ?', `hal-${kind}@example.com`)[0]).toMatchObject({ invited_as: 600, stream_ids: `[${design}]` });
    expect(invites('email = ?', `jo-${kind}@example.com`)[0]).toMatchObject({ invited_as: 400 });
  });

  it('takes JSON lines on stdin, with lists as arrays and flags as defaults', async () => {
    const t = await cliTarget(org, kind);
    const stdin = [
      JSON.stringify({ email: `ken-${kind}@example.com`, channels: ['#design'], groups: [engineering], expires: '12h' }),
      JSON.stringify({ email: `lu-${kind}@example.com`, notify: false }),
    ].join('\n');
    const r = await runCli([...t.args, 'invite', 'send', '--from-file', '-', '--as', 'guest', '--json'], { env: t.env, stdin });
    expect(r.code).toBe(0);
    const ken = invites('email = ?', `ken-${kind}@example.com`)[0]!;
    expect(ken).toMatchObject({ invited_as: 600, stream_ids: `[${design}]`, group_ids: `[${engineering}]`, notify_referrer_on_join: 1 });
    expect(ken.expiry_date).toBe(ken.invited + 12 * 3600);
    expect(invites('email = ?', `lu-${kind}@example.com`)[0]).toMatchObject({ invited_as: 600, notify_referrer_on_join: 0, stream_ids: '[]' });
  });

  it('prints the requests with --dry-run, one per set of options, and sends nothing', async () => {
    const t = await cliTarget(org, kind);
    const file = join(tempHome().home, 'dry.csv');
    writeFileSync(file, `email,channels,expires\nm1-${kind}@example.com,design,\nm2-${kind}@example.com,design,\nm3-${kind}@example.com,,never\n`);
    const before = invites().length;
    const r = await runCli([...t.args, 'invite', 'send', '--from-file', file, '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([
      { method: 'POST', path: '/api/v1/invites', body: { stream_ids: `[${design}]`, invitee_emails: `m1-${kind}@example.com,m2-${kind}@example.com` } },
      { method: 'POST', path: '/api/v1/invites', body: { stream_ids: '[]', invite_expires_in_minutes: 'null', invitee_emails: `m3-${kind}@example.com` } },
    ]);
    expect(r.stderr).toContain('dry run: 2 requests not sent');
    expect(invites().length).toBe(before);

    writeFileSync(file, `email,channels,notify\nn1-${kind}@example.com,nowhere,\nn2-${kind}@example.com,,maybe\nn3-${kind}@example.com,,\n`);
    const bad = await runCli([...t.args, 'invite', 'send', '--from-file', file, '--dry-run'], { env: t.env });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain(`row 1 (n1-${kind}@example.com): Channel 'nowhere' does not exist`);
    expect(bad.stderr).toContain(`row 2 (n2-${kind}@example.com): notify must be true or false, not "maybe"`);
    expect(jsonLines(bad.stdout)).toHaveLength(1);
    expect(invites().length).toBe(before);
  });

  it('invites an address on several rows once, whatever its case: the others are duplicates, in the plan, the rows and the summary', async () => {
    const t = await cliTarget(org, kind);
    const file = join(tempHome().home, 'dupes.csv');
    const d = `dup-${kind}@example.com`;
    const e = `dupe-other-${kind}@example.com`;
    // Rows 3 and 5 repeat row 1; row 4 asks for another role than row 2, which one invitation cannot give.
    writeFileSync(file, `email,as\n${d},member\n${e},member\n${d.toUpperCase()},member\n${e},guest\n ${d} ,member\n`);
    const plan = await runCli([...t.args, 'invite', 'send', '--from-file', file, '--dry-run'], { env: t.env });
    expect(plan.code).toBe(3);
    expect(jsonLines(plan.stdout)).toEqual([
      { method: 'POST', path: '/api/v1/invites', body: { stream_ids: '[]', invite_as: '400', invitee_emails: `${d},${e}` } },
    ]);
    expect(plan.stderr).toContain(`row 3 (${d.toUpperCase()}): duplicate of row 1, not sent`);
    expect(plan.stderr).toContain(`row 5 (${d}): duplicate of row 1, not sent`);
    expect(plan.stderr).toContain(`row 4 (${e}): row 2 invites this address with other options: one invitation an address`);

    const r = await runCli([...t.args, 'invite', 'send', '--from-file', file, '--json'], { env: t.env });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout).map((o) => [o.row, o.status])).toEqual([
      [1, 'invited'],
      [2, 'invited'],
      [3, 'duplicate'],
      [4, 'failed'],
      [5, 'duplicate'],
    ]);
    expect(summariesIn(r.stderr)).toEqual(['2 invited, 2 duplicates (not sent), 1 failed']);
    expect(invites('lower(email) = ?', d)).toHaveLength(1);
    expect(invites('email = ?', e)).toHaveLength(1);
  });

  it('stops at the first failed request with --fail-fast; the rest are skipped', async () => {
    const t = await cliTarget(org, kind);
    const file = join(tempHome().home, 'ff.csv');
    writeFileSync(file, `email,channels\nol-${kind}@example.com,nowhere\npat-${kind}@example.com,\n`);
    const r = await runCli([...t.args, 'invite', 'send', '--from-file', file, '--fail-fast', '--json'], { env: t.env });
    expect(r.code).toBe(3);
    expect(jsonLines(r.stdout).map((o) => o.status)).toEqual(['failed', 'skipped']);
    expect(invites('email = ?', `pat-${kind}@example.com`)).toHaveLength(0);
  });

  it('is refused for a member inviting an administrator: its row fails, exit 3', async () => {
    const member = org.addUser();
    const t = await cliTarget(org, kind, member);
    const r = await runCli([...t.args, 'invite', 'send', `q-${kind}@example.com`, '--as', 'admin'], { env: t.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Must be an organization administrator');
  });

  it('revokes by ID and by address, only with --yes when not on a terminal; a re-run is unchanged, exit 0', async () => {
    const t = await cliTarget(org, kind);
    const r1 = `r1-${kind}@example.com`;
    const r2 = `r2-${kind}@example.com`;
    expect((await runCli([...t.args, 'invite', 'send', r1, r2], { env: t.env })).code).toBe(0);
    const [i1, i2] = invites('email IN (?, ?)', r1, r2);
    const refused = await runCli([...t.args, 'invite', 'revoke', String(i1!.id)], { env: t.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Revoke invitation ${i1!.id} (${r1}): not running interactively; pass --yes`);

    const dry = await runCli([...t.args, 'invite', 'revoke', r2, '--dry-run'], { env: t.env });
    expect(jsonLines(dry.stdout)).toEqual([{ method: 'DELETE', path: `/api/v1/invites/${i2!.id}`, target: `invitation ${i2!.id} (${r2})` }]);
    expect(invites('id = ?', i2!.id)[0]!.status).toBe(0);

    const done = await runCli([...t.args, 'invite', 'revoke', String(i1!.id), r2.toUpperCase(), '--yes', '--json'], { env: t.env });
    expect(done.code).toBe(0);
    expect(jsonLines(done.stdout)).toEqual([
      { row: 1, target: String(i1!.id), ok: true, status: 'revoked', id: i1!.id, error: null, code: null },
      { row: 2, target: r2.toUpperCase(), ok: true, status: 'revoked', id: i2!.id, error: null, code: null },
    ]);
    const listed = await runCli([...t.args, 'invite', 'list', '--fields', 'email'], { env: t.env });
    expect(listed.stdout.split('\n')).not.toContain(r1);
    expect(listed.stdout.split('\n')).not.toContain(r2);

    const again = await runCli([...t.args, 'invite', 'revoke', String(i1!.id), '--yes'], { env: t.env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`Invitation ${i1!.id} unchanged: already revoked.`);
    const rerun = await runCli([...t.args, 'invite', 'revoke', String(i1!.id), r2, '--yes', '--json'], { env: t.env });
    expect(rerun.code).toBe(0);
    expect(jsonLines(rerun.stdout)).toEqual([
      { row: 1, target: String(i1!.id), ok: true, status: 'unchanged', id: i1!.id, error: null, code: null },
      { row: 2, target: r2, ok: true, status: 'unchanged', id: null, error: null, code: null },
    ]);
  });

  it('asks on a terminal, and revokes nothing when the answer is no', async () => {
    const t = await cliTarget(org, kind);
    const email = `s-${kind}@example.com`;
    await runCli([...t.args, 'invite', 'send', email], { env: t.env });
    const id = invites('email = ?', email)[0]!.id;
    const no = scriptedPrompter({ confirm: [false] });
    const r = await runCli([...t.args, 'invite', 'revoke', email], { env: t.env, tty: true, prompter: no });
    expect(no.asked).toEqual([`Revoke invitation ${id} (${email})?`]);
    expect(r.code).toBe(130);
    expect(invites('id = ?', id)[0]!.status).toBe(0);
    const yes = scriptedPrompter({ confirm: [true] });
    const ok = await runCli([...t.args, 'invite', 'revoke', email], { env: { ...t.env, NO_COLOR: '1' }, tty: true, prompter: yes });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('');
    expect(ok.stderr).toContain(`Revoked invitation ${id} (${email}).\n`);
    expect(invites('id = ?', id)[0]!.status).not.toBe(0);
  });
});

describe.each(TRANSPORTS)('invitations of both kinds over %s', (kind) => {
  let org: TestOrg;
  let design: number;
  let engineering: number;
  const links = () => org.db.prepare('SELECT * FROM multiuse_invites ORDER BY id').all() as LinkRow[];
  const emailInvite = (email: string) => org.db.prepare('SELECT * FROM invites WHERE email = ?').get(email) as InviteRow;

  beforeAll(async () => {
    // A fresh organization: its first e-mail invitation and its first link are both number 1.
    ({ org, design, engineering } = await inviteOrg(kind));
  });
  afterAll(() => org.close());

  it("creates a link with its role, expiry, channels and groups, and prints it (--json: the server's answer)", async () => {
    const t = await cliTarget(org, kind);
    const dry = await runCli([...t.args, 'invite', 'link', 'create', '--as', 'guest', '--channel', 'design', '--dry-run'], { env: t.env });
    expect(dry.code).toBe(0);
    expect(jsonLines(dry.stdout)).toEqual([{ method: 'POST', path: '/api/v1/invites/multiuse', body: { invite_as: '600', stream_ids: `[${design}]` } }]);
    expect(links()).toEqual([]);

    const r = await runCli(
      [...t.args, 'invite', 'link', 'create', '--as', 'guest', '--expires', '7d', '--channel', 'design', '--group', 'engineering', '--default-channels'],
      { env: t.env },
    );
    expect(r.code).toBe(0);
    const [link] = links();
    expect(r.stdout).toMatch(new RegExp(`^http://[^/]+/join/${link!.link_key}/\n$`));
    expect(link).toMatchObject({ id: 1, invited_as: 600, stream_ids: `[${design}]`, group_ids: `[${engineering}]`, include_realm_default_subscriptions: 1 });
    expect(link!.expiry_date).toBe(link!.invited + 7 * 86400);

    const json = await runCli([...t.args, 'invite', 'link', 'create', '--expires', 'never', '--json'], { env: t.env });
    expect(Object.keys(JSON.parse(json.stdout) as object)).toEqual(['invite_link']);
    expect(links()[1]).toMatchObject({ id: 2, invited_as: 400, expiry_date: null, stream_ids: '[]', group_ids: '[]' });
  });

  it('refuses a link naming a channel that does not exist (exit 6), and a member by default (exit 5)', async () => {
    const t = await cliTarget(org, kind);
    const before = links().length;
    const missing = await runCli([...t.args, 'invite', 'link', 'create', '--channel', 'nowhere'], { env: t.env });
    expect(missing.code).toBe(6);
    expect(missing.stderr).toContain("Channel 'nowhere' does not exist");
    const member = await cliTarget(org, kind, org.addUser());
    const refused = await runCli([...member.args, 'invite', 'link', 'create'], { env: member.env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('Insufficient permission');
    expect(links().length).toBe(before);
  });

  it("lists both kinds: kind, address or link, role and times in text; the server's objects in JSON", async () => {
    const t = await cliTarget(org, kind);
    const email = `both-${kind}@example.com`;
    expect((await runCli([...t.args, 'invite', 'send', email, '--as', 'moderator'], { env: t.env })).code).toBe(0);
    const url = (await runCli([...t.args, 'invite', 'link', 'create', '--json'], { env: t.env })).stdout;
    const linkUrl = (JSON.parse(url) as { invite_link: string }).invite_link;
    const tsv = await runCli([...t.args, 'invite', 'list'], { env: t.env });
    const lines = tsv.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    const sent = emailInvite(email);
    const linkId = links().at(-1)!.id;
    expect(lines).toContainEqual([
      String(sent.id),
      'email',
      email,
      'moderator',
      new Date(sent.invited * 1000).toISOString().replace('.000Z', 'Z'),
      new Date(sent.expiry_date! * 1000).toISOString().replace('.000Z', 'Z'),
    ]);
    // The first column is what invite revoke takes: a link's ID is link:ID, never the bare ID an e-mail invitation may have.
    expect(lines.find((l) => l[2] === linkUrl)!.slice(0, 4)).toEqual([`link:${linkId}`, 'link', linkUrl, 'member']);

    const json = JSON.parse((await runCli([...t.args, 'invite', 'list', '--json'], { env: t.env })).stdout) as Record<string, unknown>[];
    const link = json.find((i) => i.link_url === linkUrl)!;
    expect(Object.keys(link).sort()).toEqual(['expiry_date', 'id', 'invited', 'invited_as', 'invited_by_user_id', 'is_multiuse', 'link_url']);
    const fields = await runCli([...t.args, 'invite', 'list', '--json', '--fields', 'kind,address'], { env: t.env });
    expect(JSON.parse(fields.stdout)).toContainEqual({ kind: 'link', address: linkUrl });
  });

  it('a bare ID names the e-mail invitation, never the link with the same ID, on a re-run too', async () => {
    const t = await cliTarget(org, kind);
    // A fresh pair sharing an ID: send e-mail invitations until one has the next link's ID, then make that link.
    const email = `shared-${kind}@example.com`;
    const nextLink = links().at(-1)!.id + 1;
    for (let i = 0; !org.db.prepare('SELECT 1 FROM invites WHERE id = ?').get(nextLink); i++) {
      expect((await runCli([...t.args, 'invite', 'send', `${i}-${email}`], { env: t.env })).code).toBe(0);
    }
    const url = (JSON.parse((await runCli([...t.args, 'invite', 'link', 'create', '--json'], { env: t.env })).stdout) as { invite_link: string }).invite_link;
    const id = links().at(-1)!.id;
    expect(id).toBe(nextLink);
    const invitee = (org.db.prepare('SELECT email FROM invites WHERE id = ?').pluck().get(id) as string) ?? '';
    const linkStatus = () => links().find((l) => l.id === id)!.status;

    const dry = await runCli([...t.args, 'invite', 'revoke', String(id), `link:${id}`, '--dry-run'], { env: t.env });
    expect(jsonLines(dry.stdout)).toEqual([
      { method: 'DELETE', path: `/api/v1/invites/${id}`, target: `invitation ${id} (${invitee})` },
      { method: 'DELETE', path: `/api/v1/invites/multiuse/${id}`, target: `link ${id} (${url})` },
    ]);
    const first = await runCli([...t.args, 'invite', 'revoke', String(id), '--yes'], { env: t.env });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`Revoked invitation ${id} (${invitee}).`);
    expect(linkStatus()).toBe(0);

    // Run again: the e-mail invitation is gone, and the link with its ID is left alone, with a hint.
    const again = await runCli([...t.args, 'invite', 'revoke', String(id), '--yes'], { env: t.env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`Invitation ${id} unchanged: already revoked.`);
    expect(again.stderr).toContain(`to revoke link ${id}, say link:${id}`);
    expect(linkStatus()).toBe(0);

    const link = await runCli([...t.args, 'invite', 'revoke', `link:${id}`, '--yes', '--json'], { env: t.env });
    expect(jsonLines(link.stdout)).toEqual([{ row: 1, target: `link:${id}`, ok: true, status: 'revoked', id, error: null, code: null }]);
    expect(linkStatus()).toBe(2);
    const linkAgain = await runCli([...t.args, 'invite', 'revoke', `link:${id}`, url, '--yes', '--json'], { env: t.env });
    expect(linkAgain.code).toBe(0);
    expect(jsonLines(linkAgain.stdout).map((o) => o.status)).toEqual(['unchanged', 'unchanged']);
  });

  it('revokes a link by its URL or link:ID, asking with its URL; an address never names a link; what is not pending is unchanged', async () => {
    const t = await cliTarget(org, kind);
    const created = await runCli([...t.args, 'invite', 'link', 'create', '--json'], { env: t.env });
    const url = (JSON.parse(created.stdout) as { invite_link: string }).invite_link;
    const id = links().at(-1)!.id;
    const byUrl = await runCli([...t.args, 'invite', 'revoke', url, '--dry-run'], { env: t.env });
    expect(jsonLines(byUrl.stdout)).toEqual([{ method: 'DELETE', path: `/api/v1/invites/multiuse/${id}`, target: `link ${id} (${url})` }]);
    const prompt = scriptedPrompter({ confirm: [true] });
    const byId = await runCli([...t.args, 'invite', 'revoke', `link:${id}`], { env: t.env, tty: true, prompter: prompt });
    expect(prompt.asked).toEqual([`Revoke link ${id} (${url})?`]);
    expect(byId.code).toBe(0);
    expect(links().at(-1)!.status).toBe(2);

    const nobody = await runCli([...t.args, 'invite', 'revoke', org.owner.email, '9999', '--yes', '--json'], { env: t.env });
    expect(nobody.code).toBe(0);
    expect(jsonLines(nobody.stdout).map((o) => [o.target, o.status, o.id])).toEqual([
      [org.owner.email, 'unchanged', null],
      ['9999', 'unchanged', 9999],
    ]);
  });

  it('asks once, naming the count and the first few, for several invitations', async () => {
    const t = await cliTarget(org, kind);
    const emails = [1, 2, 3, 4].map((n) => `many${n}-${kind}@example.com`);
    expect((await runCli([...t.args, 'invite', 'send', ...emails], { env: t.env })).code).toBe(0);
    const ids = emails.map((e) => emailInvite(e).id);
    const prompt = scriptedPrompter({ confirm: [false] });
    const r = await runCli([...t.args, 'invite', 'revoke', ...emails], { env: t.env, tty: true, prompter: prompt });
    expect(r.code).toBe(130);
    expect(prompt.asked).toEqual([
      `Revoke 4 invitations: invitation ${ids[0]} (${emails[0]}), invitation ${ids[1]} (${emails[1]}), invitation ${ids[2]} (${emails[2]}) and 1 more?`,
    ]);
  });

  it('resends e-mail invitations by ID or address; a link cannot be resent', async () => {
    const t = await cliTarget(org, kind);
    const email = `again-${kind}@example.com`;
    expect((await runCli([...t.args, 'invite', 'send', email], { env: t.env })).code).toBe(0);
    const id = emailInvite(email).id;
    const dry = await runCli([...t.args, 'invite', 'resend', email, '--dry-run'], { env: t.env });
    expect(jsonLines(dry.stdout)).toEqual([{ method: 'POST', path: `/api/v1/invites/${id}/resend`, target: `invitation ${id} (${email})` }]);
    const r = await runCli([...t.args, 'invite', 'resend', String(id), email.toUpperCase(), '--json'], { env: t.env });
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((o) => [o.target, o.status, o.id])).toEqual([
      [String(id), 'resent', id],
      [email.toUpperCase(), 'resent', id],
    ]);
    expect((await runCli([...t.args, 'invite', 'link', 'create'], { env: t.env })).code).toBe(0);
    const linkId = links().at(-1)!.id;
    const link = await runCli([...t.args, 'invite', 'resend', `link:${linkId}`], { env: t.env });
    expect(link.code).toBe(3);
    expect(link.stderr).toContain(`link ${linkId} is a reusable link: only e-mail invitations are resent`);
    const unknown = await runCli([...t.args, 'invite', 'resend', 'nobody@example.com'], { env: t.env });
    expect(unknown.code).toBe(3);
  });
});

describe('invitations on a stock server (nock)', () => {
  const SITE = 'http://stock.chat.test';
  const creds = { ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };
  const ok = { result: 'success', msg: '' };
  const run = (argv: string[]) => runCli(['--server', SITE, ...argv], { env: { ...tempHome().env, ...creds } });
  const LIMIT_MSG =
    'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.';

  beforeEach(() => {
    nock.disableNetConnect();
    nock(SITE)
      .get('/api/v1/server_settings')
      .reply(200, { ...documentedExample('GET', '/server_settings'), zulip_feature_level: 442, realm_url: SITE, realm_uri: SITE })
      .persist();
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  /** GET /invites as a server at level 442 answers it: e-mail invitation 7, links 7 and 8 (no `email`). */
  function pendingInvites(): void {
    const base = { invited_by_user_id: 9, invited: 1710606654, expiry_date: null, invited_as: 400 };
    nock(SITE)
      .get('/api/v1/invites')
      .reply(200, {
        ...ok,
        invites: [
          { ...base, id: 7, email: 'ada@example.com', is_multiuse: false, notify_referrer_on_join: true },
          { ...base, id: 7, link_url: `${SITE}/join/yddhtzk4jgl7rsmazc5fyyyy/`, is_multiuse: true },
          { ...base, id: 8, link_url: `${SITE}/join/abcdefghijklmnopqrstuvwx/`, is_multiuse: true },
        ],
      });
  }

  it('revokes by address past link entries, a bare ID as an e-mail invitation, and a link by link:ID', async () => {
    pendingInvites();
    const email = nock(SITE).delete('/api/v1/invites/7').reply(200, ok);
    const byAddress = await run(['invite', 'revoke', 'ADA@example.com', '--yes']);
    expect(byAddress.code).toBe(0);
    expect(email.isDone()).toBe(true);

    pendingInvites();
    const link = nock(SITE).delete('/api/v1/invites/multiuse/8').reply(200, ok);
    const byId = await run(['invite', 'revoke', 'link:8', '--yes']);
    expect(byId.code).toBe(0);
    expect(link.isDone()).toBe(true);

    pendingInvites();
    const shared = nock(SITE).delete('/api/v1/invites/7').reply(200, ok);
    const bare = await run(['invite', 'revoke', '7', '--yes']);
    expect(bare.code).toBe(0);
    expect(shared.isDone()).toBe(true);

    // Only a link is 8: a bare 8 names no pending e-mail invitation, and sends nothing.
    pendingInvites();
    const onlyLink = await run(['invite', 'revoke', '8', '--yes']);
    expect(onlyLink.code).toBe(0);
    expect(onlyLink.stderr).toContain('Invitation 8 unchanged: already revoked.');
    expect(onlyLink.stderr).toContain('to revoke link 8, say link:8');
  });

  it('resends the e-mail invitation of an ID a link shares, and refuses to resend a link', async () => {
    pendingInvites();
    const resent = nock(SITE).post('/api/v1/invites/7/resend').reply(200, ok);
    const shared = await run(['invite', 'resend', '7']);
    expect(shared.code).toBe(0);
    expect(resent.isDone()).toBe(true);

    pendingInvites();
    const link = await run(['invite', 'resend', 'link:8']);
    expect(link.code).toBe(3);
    expect(link.stderr).toContain('link 8 is a reusable link: only e-mail invitations are resent');
    pendingInvites();
    const bare = await run(['invite', 'resend', '8']);
    expect(bare.code).toBe(3);
    expect(bare.stderr).toContain('No such invitation: 8 (link 8 is a reusable link: only e-mail invitations are resent)');
  });

  it('lists both kinds from a stock server', async () => {
    pendingInvites();
    const r = await run(['invite', 'list', '--fields', 'ref,id,kind,address']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `7\t7\temail\tada@example.com\nlink:7\t7\tlink\t${SITE}/join/yddhtzk4jgl7rsmazc5fyyyy/\nlink:8\t8\tlink\t${SITE}/join/abcdefghijklmnopqrstuvwx/\n`,
    );
  });

  /**
   * A stock server with open realm creation and `left` invitations left today: it refuses any request that
   * would go over, sending none of it. Records how many addresses each request carried.
   */
  function dailyLimitServer(left: number): number[] {
    const sizes: number[] = [];
    // Nothing pending yet: the run looks first for what an earlier run invited.
    nock(SITE)
      .get('/api/v1/invites')
      .reply(200, { ...ok, invites: [] });
    nock(SITE)
      .post('/api/v1/invites')
      .reply((_uri, body) => {
        const emails = new URLSearchParams(body as string).get('invitee_emails')!.split(',');
        sizes.push(emails.length);
        if (emails.length > left) {
          return [
            400,
            {
              result: 'error',
              code: 'INVITATION_FAILED',
              msg: LIMIT_MSG,
              errors: [],
              sent_invitations: false,
              license_limit_reached: false,
              daily_limit_reached: true,
            },
          ];
        }
        left -= emails.length;
        return [200, ok];
      })
      .persist();
    return sizes;
  }

  it('sends a large file in requests of 100, and at the daily limit fails only the rows over it, with the reason', async () => {
    const sizes = dailyLimitServer(130);
    const file = join(tempHome().home, 'many.csv');
    writeFileSync(file, `email\n${Array.from({ length: 250 }, (_, i) => `p${i + 1}@example.com`).join('\n')}\n`);
    const r = await run(['invite', 'send', '--from-file', file, '--json', '--concurrency', '1']);
    expect(r.code).toBe(3);
    const outcomes = jsonLines(r.stdout);
    expect(outcomes).toHaveLength(250);
    expect(outcomes.slice(0, 130).every((o) => o.ok === true && o.status === 'invited')).toBe(true);
    expect(outcomes.slice(130).every((o) => o.ok === false && o.error === LIMIT_MSG && o.code === 'INVITATION_FAILED')).toBe(true);
    expect(summariesIn(r.stderr)).toEqual(['130 invited, 120 failed']);
    // 100 fit; the second hundred is halved until the 30 that fit are found; the third is never sent.
    expect(sizes).toEqual([100, 100, 50, 25, 25, 13, 7, 4, 3, 2, 1, 1]);
  });

  it("fails a single address over the daily limit with the server's reason", async () => {
    dailyLimitServer(0);
    const r = await run(['invite', 'send', 'late@example.com']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(`1\tlate@example.com\tfalse\tfailed\t\t${LIMIT_MSG}\tINVITATION_FAILED\n`);
  });
});
