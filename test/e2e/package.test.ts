/**
 * chatctl installs as a package: the tarball `npm pack` makes, installed globally into a temporary prefix as a
 * user would (`npm install -g --prefix`), runs on a fresh HOME, and brings its man pages.
 *
 * Two things keep it to seconds rather than minutes on two cores:
 * - `npm pack --ignore-scripts` packs the dist/ that `npm run build` made (every e2e test runs after it), instead
 *   of rebuilding dist/ under the other e2e tests in `prepare`.
 * - better-sqlite3's install script still runs (prebuild-install, as on any machine), but finds its binary in a
 *   local prebuild made from the binding this checkout built (npm_config_better_sqlite3_local_prebuilds, the
 *   directory prebuild-install looks in before downloading), instead of downloading one, which is not offered
 *   for every Node, or building it from source (about 1.5 minutes here). The binding is the same compiled
 *   code either way; what this proves is the package: its files, its dependencies, the install script, the bin
 *   link and the man pages.
 * The dependencies come from the registry, or npm's cache once they are in it (--prefer-offline).
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { lintRoff } from '../helpers/roff-lint.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg: { version: string; man: string[] } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
/** man(1), where installed, reads the installed page as a user would; the roff lint runs everywhere. */
const HAS_MAN = spawnSync('man', ['--version']).status === 0;
const BINDING = 'build/Release/better_sqlite3.node';
const sqlite: { version: string } = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8'));

/** The environment without the outer npm's and vitest's variables, which would steer the inner npm. */
const cleanEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|VITEST)/i.test(key)));

/** The name prebuild-install gives better-sqlite3's binary for this Node (glibc Linux and macOS name no libc). */
function prebuildName(): string {
  // Node's report names the glibc it runs on; on Linux without one, the libc is musl.
  const glibc = JSON.stringify(process.report.getReport()).includes('"glibcVersionRuntime"');
  const libc = process.platform === 'linux' && !glibc ? 'musl' : '';
  return `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}${libc}-${process.arch}.tar.gz`;
}

describe('the package', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chatctl-package-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs from the packed tarball and runs chatctl --version, users list on a fresh HOME and man', { timeout: 180_000 }, async () => {
    expect(existsSync(join(ROOT, 'dist/chatctl.cjs')), 'dist/ is missing: npm run build').toBe(true);
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, env: cleanEnv() });
    const [{ filename }] = JSON.parse(packed.stdout) as { filename: string }[];

    const prebuilds = join(dir, 'prebuilds');
    mkdirSync(prebuilds);
    await run('tar', ['-czf', join(prebuilds, prebuildName()), '-C', join(ROOT, 'node_modules/better-sqlite3'), BINDING]);

    const prefix = join(dir, 'prefix');
    await run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', `./${filename}`], {
      cwd: dir,
      env: { ...cleanEnv(), npm_config_better_sqlite3_local_prebuilds: prebuilds },
      maxBuffer: 16 * 1024 * 1024,
    });
    const installed = join(prefix, 'lib/node_modules/chatctl');
    expect(statSync(join(installed, 'node_modules/better-sqlite3', BINDING)).size).toBeGreaterThan(0);

    // Only the installed bin and node on the PATH; a HOME with nothing in it, and no chatctl or Zulip variables.
    const home = join(dir, 'home');
    mkdirSync(home);
    const env = { PATH: [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter), HOME: home };
    const version = await run('chatctl', ['--version'], { cwd: home, env });
    expect(version.stdout.trim()).toBe(pkg.version);
    const users = await run('chatctl', ['users', 'list', '--format', 'tsv', '--fields', 'user_id,email,role'], { cwd: home, env });
    expect(users.stdout).toBe('4\towner@localhost\t100\n');
    expect(users.stderr).toContain(`chatctl: created an embedded organization in ${join(home, '.local/share/chatctl')}`);

    // npm links every page package.json lists into the prefix's man1, where man finds them.
    const man1 = join(prefix, 'share/man/man1');
    for (const page of pkg.man) expect(existsSync(join(man1, page.replace(/^man\//, ''))), page).toBe(true);
    const page = readFileSync(join(man1, 'chatctl-users.1'), 'utf8');
    expect(lintRoff(page)).toEqual([]);
    if (!HAS_MAN) return;
    const man = await run('man', ['-l', join(man1, 'chatctl-users.1')], { env: { ...env, MANWIDTH: '100' } });
    expect(man.stdout).toContain('chatctl users list [options]');
  });
});
