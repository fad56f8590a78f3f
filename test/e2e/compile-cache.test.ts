/**
 * On Node 20, bin/load-cli.cjs keeps V8's compiled code of the CLI bundle in the user's cache directory
 * (Node 22.1+ keeps it itself, and these cases do not apply there).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, tempHome } from '../helpers/cli.js';

const nodeKeepsItsOwn = 'enableCompileCache' in Module;

describe.skipIf(nodeKeepsItsOwn)("the CLI's compiled code, kept between runs", () => {
  const cacheOf = (home: string) => join(home, '.cache', 'chatctl');
  const onlyFile = (dir: string) => {
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    return join(dir, files[0]!);
  };

  it('is kept in the cache directory, for its owner only, and later runs use it, packages loaded with import() too', async () => {
    const { home, env } = tempHome();
    const first = await spawnCli(['whoami'], { env });
    expect(first.code).toBe(0);
    const dir = cacheOf(home);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const file = onlyFile(dir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const kept = readFileSync(file);
    // Handlebars is imported with import(), from code that now comes from the cache.
    const listed = await spawnCli(['users', 'list', '--template', '{{#each this}}{{email}}{{/each}}'], { env });
    expect(listed).toMatchObject({ code: 0, stdout: 'owner@localhost' });
    expect(readFileSync(file).equals(kept)).toBe(true);
  });

  it('is made again when the kept code is damaged, and what was kept for another build is dropped', async () => {
    const { home, env } = tempHome();
    expect((await spawnCli(['whoami'], { env })).code).toBe(0);
    const file = onlyFile(cacheOf(home));
    const older = join(cacheOf(home), 'chatctl-1-2-v8-0.cache');
    writeFileSync(older, 'kept for an earlier build');
    writeFileSync(file, 'not compiled code');
    const again = await spawnCli(['whoami', '--json'], { env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ email: 'owner@localhost' });
    expect(readFileSync(file).length).toBeGreaterThan(10_000);
    expect(existsSync(older)).toBe(false);
    onlyFile(cacheOf(home));
  });

  it('is not kept with NODE_DISABLE_COMPILE_CACHE, and a cache directory that cannot be made changes nothing else', async () => {
    const off = tempHome();
    expect((await spawnCli(['whoami'], { env: { ...off.env, NODE_DISABLE_COMPILE_CACHE: '1' } })).code).toBe(0);
    expect(existsSync(join(off.home, '.cache'))).toBe(false);
    const blocked = tempHome();
    writeFileSync(join(blocked.home, '.cache'), 'a file where the directory would go');
    expect(await spawnCli(['users', 'list', '--format', 'csv', '--fields', 'email'], { env: blocked.env })).toMatchObject({
      code: 0,
      stdout: 'email\nowner@localhost\n',
    });
  });
});
