/**
 * `--template` on real command output over both transports: tables, times, colour (as --color and
 * NO_COLOR decide), lists, a template file, bulk outcomes, and a bad template refused before anything is sent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTarget, runCli, spawnCli, tempHome } from '../helpers/cli.js';
import { createTestOrg, TestClock, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

// Every fixture joined three days (and a minute) before the real now, which `timeago` measures from.
const JOINED = Math.floor(Date.now() / 1000) - 3 * 86400 - 60;
const JOINED_RFC3339 = new Date(JOINED * 1000).toISOString().replace(/\.000Z$/, 'Z');
const BOLD = '\u001b[1m';

describe.each(TRANSPORTS)('--template over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg({ clock: new TestClock(JOINED) });
    org.addUser({ email: 'ada@example.com', name: 'Ada', role: 200 });
    org.addUser({ email: 'bob@example.com', name: 'Bob Longname', role: 400 });
  });
  afterAll(() => org.close());

  const run = async (args: string[], o: { env?: Record<string, string>; tty?: boolean } = {}) => {
    const t = await cliTarget(org, kind);
    return runCli([...t.args, ...args], { env: { ...t.env, ...o.env }, tty: o.tty });
  };

  it('prints a table of rows aligned, with times relative and in RFC 3339', async () => {
    const r = await run(['users', 'list', '--template', '{{#each .}}{{tablerow full_name email (timeago date_joined) (rfc3339 date_joined)}}{{/each}}']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(
      [
        `Olivia Owner  owner@example.com  3 days ago  ${JOINED_RFC3339}`,
        `Ada           ada@example.com    3 days ago  ${JOINED_RFC3339}`,
        `Bob Longname  bob@example.com    3 days ago  ${JOINED_RFC3339}`,
        '',
      ].join('\n'),
    );
  });

  it('renders the table where tablerender stands, and joins plucked fields', async () => {
    const r = await run(['users', 'list', '--template', '{{#each .}}{{tablerow email role}}{{/each}}{{tablerender}}emails: {{join (pluck . "email") "; "}}\n']);
    expect(r.stdout).toBe(
      'owner@example.com  100\nada@example.com    200\nbob@example.com    400\nemails: owner@example.com; ada@example.com; bob@example.com\n',
    );
  });

  it('colours only when colour is on: --color always, not NO_COLOR, not a pipe', async () => {
    const template = ['users', 'get', 'ada@example.com', '--template', '{{color "bold+red" full_name}}'];
    expect((await run([...template, '--color', 'always'])).stdout).toBe(`${BOLD}\u001b[31mAda\u001b[39m\u001b[22m`);
    expect((await run(template, { tty: true })).stdout).toContain(BOLD);
    expect((await run(template, { tty: true, env: { NO_COLOR: '1' } })).stdout).toBe('Ada');
    expect((await run(template)).stdout).toBe('Ada');
    const typo = await run(['users', 'get', 'ada@example.com', '--template', '{{color "rad" full_name}}']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('template: unknown colour "rad"');
  });

  it('runs once per record with --format ndjson, and over bulk outcomes as one list', async () => {
    expect((await run(['users', 'list', '--format', 'ndjson', '--template', '{{user_id}}:{{json is_active}},'])).stdout).toMatch(/^(\d+:true,){3}$/);
    const [active, inactive] = [org.addUser(), org.addUser({ active: false })];
    const r = await run(['users', 'deactivate', String(active.id), String(inactive.id), '--yes', '--template', '{{#each .}}{{tablerow row status}}{{/each}}']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1  deactivated\n2  unchanged\n');
  });

  it('reads a template from @FILE', async () => {
    const file = join(tempHome().home, 'users.hbs');
    writeFileSync(file, '{{full_name}} <{{email}}>\n');
    expect((await run(['users', 'get', 'ada@example.com', '--template', `@${file}`])).stdout).toBe('Ada <ada@example.com>\n');
    const missing = await run(['users', 'get', 'ada@example.com', '--template', `@${file}.gone`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read template file');
  });

  it('refuses a bad template or an unknown helper with exit 2 before anything is sent', async () => {
    const user = org.addUser();
    const t = await cliTarget(org, kind);
    let opened = 0;
    for (const template of ['{{#each .}}', '{{nosuchhelper full_name}}']) {
      const r = await runCli([...t.args, 'users', 'deactivate', String(user.id), '--yes', '--template', template], {
        env: t.env,
        openTransport: async () => {
          opened++;
          throw new Error('nothing may be sent');
        },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('chatctl: invalid --template:');
    }
    expect(opened).toBe(0);
    expect((org.db.prepare('SELECT is_active FROM users WHERE id = ?').get(user.id) as { is_active: number }).is_active).toBe(1);
  });
});

describe('--template from the installed command', () => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('loads Handlebars in a real process, and NO_COLOR wins over a forced colour', async () => {
    const t = await cliTarget(org, 'embedded');
    const r = await spawnCli([...t.args, 'whoami', '--template', '{{color "bold" email}}'], { env: { ...t.env, FORCE_COLOR: '1' } });
    expect(r).toMatchObject({ code: 0, stdout: `${BOLD}${org.owner.email}\u001b[22m`, stderr: '' });
    const plain = await spawnCli([...t.args, 'whoami', '--template', '{{color "bold" email}}'], { env: { ...t.env, FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(plain).toMatchObject({ code: 0, stdout: org.owner.email });
  });
});
