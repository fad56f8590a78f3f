/**
 * Durations have one reading: s, m, h, d and w in lower case. `1M` (months to systemd, minutes to the old
 * parser), `6mo` and `1y` are refused on every flag that takes a duration, before anything is read or sent,
 * with the units listed: a cron job's `attachments clean --older-than 1M --yes` no longer deletes every
 * upload older than a minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from '../../src/api/operations/attachments.js';
import { allCommands } from '../../src/cli/commands/completion.js';
import { DURATION_HELP, DURATION_UNITS, parseDuration } from '../../src/cli/core/units.js';
import { cliTarget, fakeCreds, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

/** Every flag that takes a duration, with a command line it completes: the test below proves the list whole. */
const DURATION_FLAGS: readonly { command: string; flag: string; argv: readonly string[] }[] = [
  { command: 'attachments clean', flag: '--older-than', argv: ['attachments', 'clean', '--yes'] },
  { command: 'users list', flag: '--inactive-since', argv: ['users', 'list'] },
  { command: 'channels list', flag: '--quiet-since', argv: ['channels', 'list'] },
  { command: 'events register', flag: '--lifespan', argv: ['events', 'register'] },
  { command: 'invite send', flag: '--expires', argv: ['invite', 'send', 'new@example.com'] },
  { command: 'invite link create', flag: '--expires', argv: ['invite', 'link', 'create'] },
];

const AMBIGUOUS = ['1M', '6mo', '1y', '2Y', '3mon', '12H', '30D'];

describe('parseDuration', () => {
  it.each([
    ['45s', 45],
    ['90m', 5400],
    ['12h', 43_200],
    ['30d', 2_592_000],
    ['2w', 1_209_600],
    ['1h30m', 5400],
    [' 1h 30m ', 5400],
    ['1.5h', 5400],
  ])('reads %j as %i seconds', (text, seconds) => expect(parseDuration(text)).toBe(seconds));

  it.each(AMBIGUOUS)('refuses %j, listing the units', (text) => {
    let caught: unknown;
    try {
      parseDuration(text, '--older-than');
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({
      kind: 'usage',
      message: `--older-than takes a duration like 30d or 12h, not "${text}": the units are ${DURATION_UNITS}, in lower case`,
      hint: expect.stringContaining('for months or years give days or weeks (30d, 52w)'),
    });
  });
});

describe('every duration flag', () => {
  it('is in the table below, and says its units in its help', async () => {
    const found: string[] = [];
    for (const [, specs] of await allCommands()) {
      for (const spec of specs) {
        for (const f of Object.values(spec.flags)) {
          if (f.kind === 'flag' && f.flags.includes('<duration>')) {
            found.push(`${spec.path.join(' ')} ${f.flags.split(' ')[0]}`);
            expect(f.description, `${spec.path.join(' ')} ${f.flags}`).toContain(DURATION_HELP);
          }
        }
      }
    }
    expect(found.sort()).toEqual(DURATION_FLAGS.map((d) => `${d.command} ${d.flag}`).sort());
  });

  it.each(DURATION_FLAGS.flatMap((d) => AMBIGUOUS.slice(0, 3).map((text) => [d.command, d.flag, text, d.argv] as const)))(
    '%s %s %s is a usage error, nothing sent',
    async (_command, flag, text, argv) => {
      let opened = 0;
      const r = await runCli([...argv, flag, text], {
        env: fakeCreds(),
        openTransport: async () => {
          opened++;
          throw new Error('nothing may be sent');
        },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`chatctl: ${flag} takes a duration like 30d or 12h, not "${text}": the units are s (seconds), m (minutes), h (hours)`);
      expect(r.stdout).toBe('');
      expect(opened).toBe(0);
    },
  );

  it('chatctl help durations says what the units are and why months are refused', async () => {
    const r = await runCli(['help', 'durations']);
    expect(r.code).toBe(0);
    // Help wraps at the terminal's width: the words, not the line breaks, are the point.
    const words = r.stdout.replace(/\s+/g, ' ');
    expect(words).toContain(DURATION_UNITS);
    expect(words).toContain('1M (months to systemd, minutes');
  });
});

describe.each(TRANSPORTS)('attachments clean --older-than over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('1M deletes nothing; 1m means minutes', async () => {
    const user = org.addUser();
    const res = await (await clientFor(org, kind, user)).call(
      uploadFile,
      {},
      {
        files: [{ field: 'f', filename: 'report.txt', contentType: 'text/plain', data: new Uint8Array(10).fill(65) }],
      },
    );
    // Uploaded ten minutes ago by the real clock (the CLI's).
    const pathId = decodeURIComponent(res.uri.slice('/user_uploads/'.length));
    org.db.prepare('UPDATE attachments SET create_time_ms = ? WHERE path_id = ?').run(Date.now() - 10 * 60_000, pathId);
    const count = () => org.db.prepare('SELECT count(*) FROM attachments WHERE owner_id = ?').pluck().get(user.id);
    const t = await cliTarget(org, kind, user);
    const refused = await runCli([...t.args, 'attachments', 'clean', '--older-than', '1M', '--yes'], { env: t.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the units are s (seconds), m (minutes)');
    expect(count()).toBe(1);
    const months = await runCli([...t.args, 'attachments', 'clean', '--older-than', '30d', '--yes', '--json'], { env: t.env });
    expect(months).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(count()).toBe(1);
    const minutes = await runCli([...t.args, 'attachments', 'clean', '--older-than', '1m', '--yes', '--json'], { env: t.env });
    expect(minutes.code).toBe(0);
    expect(JSON.parse(minutes.stdout)).toMatchObject([{ name: 'report.txt' }]);
    expect(count()).toBe(0);
  });
});
