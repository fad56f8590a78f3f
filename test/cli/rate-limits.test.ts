/**
 * A bulk run the server's hourly rate limit cannot take: a real server on 127.0.0.1 whose user has made
 * 1,995 of the hour's 2,000 requests already (the limiter of `serve --rate-limit`, with its headers), and a
 * delete of 20 attachments with a --max-wait far shorter than the hour.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API_BY_USER } from '../../src/api/rate-limits.js';
import { RateLimiter } from '../../src/server/rate-limit.js';
import { jsonLines, runCli, tempHome } from '../helpers/cli.js';
import { json, startServer, SUCCESS, type TestServer } from '../client/servers.js';

const creds = { ZULIP_EMAIL: 'iago@zulip.com', ZULIP_API_KEY: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv' };

/** A server whose one user has `used` requests of the hour behind them, spread over the last 50 minutes. */
async function busyServer(used: number, onDelete: (count: number) => void = () => {}) {
  let now = Date.now() - 50 * 60_000;
  const limiter = new RateLimiter(() => now);
  for (let i = 0; i < used; i++) {
    if (i % 150 === 0) now += 60_000;
    limiter.admit('iago', API_BY_USER);
  }
  now = Date.now();
  const deleted: string[] = [];
  const t = await startServer((req, res) => {
    now = Date.now();
    const m = /^\/api\/v1\/attachments\/(\d+)$/.exec(req.url ?? '');
    if (req.method !== 'DELETE' || !m) return json(res, 404, { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    const { headers, refusal } = limiter.admit('iago', API_BY_USER);
    if (refusal) return json(res, refusal.status, refusal.body, refusal.headers);
    deleted.push(m[1]!);
    json(res, 200, SUCCESS, headers);
    onDelete(deleted.length);
  });
  return { t, deleted };
}

describe('a bulk run past the hourly rate limit', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('says so up front, sends what fits, reports the rest as skipped without sending them, and exits 75', async () => {
    const { t, deleted } = await busyServer(1995);
    server = t;
    const ids = Array.from({ length: 20 }, (_, i) => String(i + 1));
    const r = await runCli(['--server', t.url, '--max-wait', '5', 'attachments', 'delete', ...ids, '--yes', '--json'], {
      env: { ...tempHome().env, ...creds },
    });
    expect(r.code).toBe(75);
    const rows = jsonLines(r.stdout);
    // 5 were left: the first 4 requests go together (nothing is known before the first answer); the last
    // stays in reserve for the user's other clients.
    expect(rows.filter((x) => x.ok).map((x) => x.target)).toEqual(['1', '2', '3', '4']);
    expect(deleted).toEqual(['1', '2', '3', '4']);
    const skipped = rows.filter((x) => !x.ok);
    expect(skipped.map((x) => x.target)).toEqual(ids.slice(4));
    expect(skipped.every((x) => x.status === 'skipped' && x.code === null)).toBe(true);
    expect(skipped[0]!.error).toBe("not sent: the server's rate limit is used up for about 1 h");
    expect(r.stderr).toBe(
      "chatctl: 16 more requests to send, but the server's rate limit (2000 per 1 h) takes 0 now; the rest would wait about 1 h, more than --max-wait: sending no more, then stopping\n" +
        'chatctl: 4 deleted, 16 failed (16 skipped)\n' +
        `${JSON.stringify({ error: { message: "16 rows not sent: the server's rate limit is used up", code: 'TEMPORARY', exit_code: 75, hint: 'run the skipped rows again later' } })}\n`,
    );
  });

  it('with a --max-wait longer than the wait, says so up front and waits (here until Ctrl-C)', async () => {
    const interrupt = new AbortController();
    // Once the budget is spent, the run can only be waiting: interrupt it then.
    const { t, deleted } = await busyServer(1995, (n) => n === 4 && setTimeout(() => interrupt.abort(), 200));
    server = t;
    const ids = Array.from({ length: 20 }, (_, i) => String(i + 1));
    const r = await runCli(['--server', t.url, '--max-wait', '4000', 'attachments', 'delete', ...ids, '--yes', '--json'], {
      env: { ...tempHome().env, ...creds },
      signal: interrupt.signal,
    });
    expect(r.stderr).toContain(
      "chatctl: 16 more requests to send, but the server's rate limit (2000 per 1 h) takes 0 now; the rest would wait about 1 h: waiting as needed (--max-wait)\n",
    );
    expect(r.stderr).toMatch(/^chatctl: rate limit nearly used up; waiting 3[56]\d\d\.\d s$/m);
    expect(r.code).toBe(130);
    expect(deleted).toEqual(['1', '2', '3', '4']);
  });

  it('a run the hourly limit takes whole says nothing and sends everything', async () => {
    const { t, deleted } = await busyServer(1900);
    server = t;
    const r = await runCli(['--server', t.url, '--max-wait', '5', 'attachments', 'delete', '1', '2', '3', '--yes', '--json'], {
      env: { ...tempHome().env, ...creds },
    });
    expect(r.code).toBe(0);
    expect(deleted.sort()).toEqual(['1', '2', '3']);
    expect(r.stderr).toBe('chatctl: 3 deleted, 0 failed\n');
  });
});
