/**
 * A linkifier pattern that backtracks catastrophically (`(a+)+$`) renders a long message in linear time.
 * Run in a child process so a backtracking engine, which would need longer than the age of the universe
 * for this input, shows as a killed process instead of a hung test run.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, tempHome } from '../helpers/cli.js';

describe('a pathological linkifier pattern', () => {
  it('renders a 100,000-character message that would never finish on a backtracking engine', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    expect((await spawnCli(['init', '--data-dir', dir, '--email', 'boss@acme.test', '--password-stdin'], { env, stdin: 'linear-pass-1\n' })).code).toBe(0);
    const add = await spawnCli(['api', 'POST', '/realm/filters', '-f', 'pattern=(a+)+$', '-f', 'url_template=https://x.example/'], { env });
    expect(add.code, add.stderr).toBe(0);
    // V8's engine needs about 30 s for 28 `a`s here, doubling with each one more; RE2 is linear.
    const render = await spawnCli(['api', 'POST', '/messages/render', '-f', `content=${'a'.repeat(100_000)}!`], { env, timeoutMs: 30_000 });
    expect(render.code, render.stderr).toBe(0);
    expect(JSON.parse(render.stdout)).toMatchObject({ rendered: `<p>${'a'.repeat(100_000)}!</p>` });
    const linked = await spawnCli(['api', 'POST', '/messages/render', '-f', `content=see ${'a'.repeat(50_000)}`], { env });
    expect(JSON.parse(linked.stdout)).toMatchObject({
      rendered: `<p>see <a href="https://x.example/">${'a'.repeat(50_000)}</a></p>`,
    });
  });
});
