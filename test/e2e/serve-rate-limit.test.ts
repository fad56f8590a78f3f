/** `chatctl serve --rate-limit` as started from the command line: a current Zulip server's rate-limit headers. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, spawnCli, tempHome } from '../helpers/cli.js';

describe('chatctl serve --rate-limit', () => {
  it("answers with the hourly rule's headers for a user and the per-address rule without authentication", async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], { env, stdin: 'serve-pass-1\n' })).code).toBe(0);
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dir, '--port', '0', '--rate-limit'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 15_000);
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /at (http:\/\/127\.0\.0\.1:\d+)\/api\/v1 with rate limits/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    try {
      const settings = await fetch(`${url}/api/v1/server_settings`);
      expect([settings.headers.get('x-ratelimit-limit'), settings.headers.get('x-ratelimit-remaining')]).toEqual(['100', '99']);
      const login = await fetch(`${url}/api/v1/fetch_api_key`, {
        method: 'POST',
        body: new URLSearchParams({ username: 'boss@acme.test', password: 'serve-pass-1' }),
      });
      const { api_key: key } = (await login.json()) as { api_key: string };
      const me = await fetch(`${url}/api/v1/users/me`, { headers: { authorization: `Basic ${Buffer.from(`boss@acme.test:${key}`).toString('base64')}` } });
      expect(me.status).toBe(200);
      expect([me.headers.get('x-ratelimit-limit'), me.headers.get('x-ratelimit-remaining')]).toEqual(['2000', '1999']);
      expect(Number(me.headers.get('x-ratelimit-reset')) - Date.now() / 1000).toBeGreaterThan(3500);
    } finally {
      const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    }
  });
});
