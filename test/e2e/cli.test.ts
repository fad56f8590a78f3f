/** The installed entry point, as a person or a cron job runs it: a child process with its own HOME. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, spawnCli, tempHome } from '../helpers/cli.js';

describe('bin/chatctl.cjs', () => {
  it('prints its version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const r = await spawnCli(['--version'], { env: tempHome().env });
    expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('on a machine with nothing configured, creates the embedded organization and lists its users', async () => {
    const { env } = tempHome();
    const r = await spawnCli(['users', 'list', '--json'], { env });
    expect(r.code).toBe(0);
    // The system bots hold IDs 1-3 and are not listed: the owner is the one user.
    expect(JSON.parse(r.stdout)).toMatchObject([{ user_id: 4, delivery_email: 'owner@localhost', role: 100 }]);
    expect(r.stderr).toContain('created an embedded organization');
  });

  it('exits 2 on a usage error and 6 for a missing user', async () => {
    const { env } = tempHome();
    expect((await spawnCli(['users', 'list', '--no-such-flag'], { env })).code).toBe(2);
    expect((await spawnCli(['api', 'GET', '/users/99'], { env })).code).toBe(6);
  });

  it('stops quietly with exit 0 when the reader of its output goes away (| head)', async () => {
    const { env } = tempHome();
    const child = spawn(process.execPath, [BIN, 'users', 'list', '--format', 'ndjson'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reading end closes before chatctl writes anything: every write to stdout fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });

  it('serve answers Zulip clients over HTTP, logs each request, and stops cleanly on SIGTERM', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    const init = await spawnCli(['init', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], { env, stdin: 'serve-pass-1\n' });
    expect(init.code).toBe(0);
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dir, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 15_000);
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /at (http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const settings = (await (await fetch(`${url}/api/v1/server_settings`)).json()) as Record<string, unknown>;
    expect(settings).toMatchObject({ result: 'success', realm_url: url, realm_name: 'Embedded organization' });

    // Another HOME logs in over HTTP, as any client would.
    const other = tempHome().env;
    const login = await spawnCli(['login', '--server', url, '--email', 'boss@acme.test', '--password-stdin'], { env: other, stdin: 'serve-pass-1\n' });
    expect(login.code).toBe(0);
    const users = await spawnCli(['users', 'list', '--json'], { env: other });
    expect(JSON.parse(users.stdout)).toMatchObject([{ delivery_email: 'boss@acme.test' }]);

    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(stderr).toMatch(/"GET \/api\/v1\/server_settings" 200 [\d.]+ms/);
    expect(stderr).toMatch(/"POST \/api\/v1\/fetch_api_key" 200/);
    // The log is written a batch at a time, its lines in the order the requests were answered.
    expect(stderr.indexOf('"GET /api/v1/server_settings" 200')).toBeLessThan(stderr.indexOf('"POST /api/v1/fetch_api_key" 200'));
    expect(stderr).toContain('stopping');
    expect(stderr).not.toContain('serve-pass-1');
  });
});
