import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTarget, expectUsageError, parse, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

describe('status: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse([
      'status',
      'set',
      'ada@example.com',
      '--text',
      '',
      '--emoji',
      'octopus',
      '--emoji-code',
      '1f419',
      '--reaction-type',
      'unicode_emoji',
      '--dry-run',
    ]);
    expect(p.spec.path).toEqual(['status', 'set']);
    expect(p.opts).toMatchObject({ user: 'ada@example.com', text: '', emoji: 'octopus', emojiCode: '1f419', reactionType: 'unicode_emoji', dryRun: true });
    expect((await parse(['status', 'clear', '8', '--json'])).opts).toMatchObject({ user: '8', json: true });
    expect((await parse(['status', 'get', '8', '--fields', 'status_text'])).opts).toMatchObject({ user: '8', fields: ['status_text'] });
  });

  it.each([
    [['status', 'set', '8'], 'nothing to set: pass --text or --emoji'],
    [['status', 'set', '8', '--emoji-code', '1f419'], '--emoji-code and --reaction-type go with --emoji'],
    [['status', 'set', '8', '--text', 'x', '--reaction-type', 'sticker'], "argument 'sticker' is invalid"],
    [['status', 'get'], "missing required argument 'user'"],
    [['status', 'clear'], "missing required argument 'user'"],
    [['status', 'get', '8', '--fields', 'mood'], 'unknown field "mood"'],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('status commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it("sets another user's text and emoji by e-mail, and status get shows it", async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'status', 'set', user.email, '--text', 'On vacation', '--emoji', 'palm_tree', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ row: 1, target: user.email, ok: true, status: 'set', id: user.id, error: null, code: null });
    const got = await runCli([...t.args, 'status', 'get', String(user.id), '--json'], { env: t.env });
    expect(JSON.parse(got.stdout)).toEqual({ status_text: 'On vacation', emoji_name: 'palm_tree', emoji_code: '1f334', reaction_type: 'unicode_emoji' });
    const piped = await runCli([...t.args, 'status', 'get', user.email], { env: t.env });
    expect(piped.stdout).toBe('\tOn vacation\tpalm_tree\t1f334\tunicode_emoji\n');
    const field = await runCli([...t.args, 'status', 'get', user.email, '--fields', 'status_text'], { env: t.env });
    expect(field.stdout).toBe('On vacation\n');
  });

  it('--text "" clears only the text; an explicit code and type are checked by the server', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind);
    await runCli(
      [...t.args, 'status', 'set', user.email, '--text', 'Busy', '--emoji', 'octopus', '--emoji-code', '1f419', '--reaction-type', 'unicode_emoji'],
      { env: t.env },
    );
    const cleared = await runCli([...t.args, 'status', 'set', user.email, '--text', ''], { env: t.env });
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toBe(`1\t${user.email}\ttrue\tset\t${user.id}\t\t\n`);
    const got = await runCli([...t.args, 'status', 'get', user.email, '--json'], { env: t.env });
    expect(JSON.parse(got.stdout)).toEqual({ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' });
    const wrong = await runCli([...t.args, 'status', 'set', user.email, '--emoji', 'octopus', '--emoji-code', '1f334', '--reaction-type', 'unicode_emoji'], {
      env: t.env,
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('chatctl: Invalid emoji name. (BAD_REQUEST)');
  });

  it('clears text and emoji; status get then shows {} in JSON and every field, empty, in a table', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind);
    await runCli([...t.args, 'status', 'set', String(user.id), '--text', 'Lunch', '--emoji', 'octopus'], { env: t.env });
    const r = await runCli([...t.args, 'status', 'clear', user.email], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`1\t${user.email}\ttrue\tcleared\t${user.id}\t\t\n`);
    expect(r.stderr).toBe(`Cleared ${user.email}.\n`);
    const json = await runCli([...t.args, 'status', 'get', user.email, '--json'], { env: t.env });
    expect(json.stdout).toBe('{}\n');
    const table = await runCli([...t.args, 'status', 'get', user.email], { env: { ...t.env, NO_COLOR: '1' }, tty: true });
    expect(table.stdout.split('\n').map((l) => l.trim())).toEqual([
      'FIELD          VALUE',
      'away',
      'status_text',
      'emoji_name',
      'emoji_code',
      'reaction_type',
      '',
    ]);
  });

  it("shows the server's message for a text over 60 characters, exit 1", async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'status', 'set', user.email, '--text', 'x'.repeat(61)], { env: t.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('chatctl: status_text is too long (limit: 60 characters) (BAD_REQUEST)');
    expect(r.stdout).toBe(`1\t${user.email}\tfalse\tfailed\t\tstatus_text is too long (limit: 60 characters)\tBAD_REQUEST\n`);
  });

  it('exit 6 for an unknown emoji or user, exit 5 for a member', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind);
    const emoji = await runCli([...t.args, 'status', 'set', user.email, '--emoji', 'no_such_emoji'], { env: t.env });
    expect(emoji.code).toBe(6);
    expect(emoji.stderr).toContain("Emoji 'no_such_emoji' does not exist");
    const nobody = await runCli([...t.args, 'status', 'clear', 'nobody@example.com'], { env: t.env });
    expect(nobody.code).toBe(6);
    expect(nobody.stderr).toContain('No such user: nobody@example.com');
    expect((await runCli([...t.args, 'status', 'get', 'nobody@example.com'], { env: t.env })).code).toBe(6);
    const member = await cliTarget(org, kind, org.addUser());
    const refused = await runCli([...member.args, 'status', 'set', user.email, '--text', 'hacked'], { env: member.env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('Insufficient permission');
  });

  it('prints the request with --dry-run and changes nothing', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'status', 'set', user.email, '--text', 'Away', '--emoji', 'octopus', '--dry-run'], { env: t.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ method: 'POST', path: `/api/v1/users/${user.id}/status`, body: { status_text: 'Away', emoji_name: 'octopus' } });
    const clear = await runCli([...t.args, 'status', 'clear', user.email, '--dry-run'], { env: t.env });
    expect(JSON.parse(clear.stdout)).toEqual({ method: 'POST', path: `/api/v1/users/${user.id}/status`, body: { status_text: '', emoji_name: '' } });
    const got = await runCli([...t.args, 'status', 'get', user.email, '--json'], { env: t.env });
    expect(got.stdout).toBe('{}\n');
  });
});
