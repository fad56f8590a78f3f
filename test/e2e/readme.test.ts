/**
 * Every command the README shows runs, as shown, and exits 0: its ```sh blocks as bash scripts, in order, in one
 * temporary HOME and working directory (the recipes build on each other: the CSV file, the group, the map), the
 * `$ ` lines of its ```console transcript in a HOME of their own (the first command creating the organization),
 * and the command of every ```cron line. `chatctl` is this checkout's bin/chatctl.cjs; https://chat.example.com is
 * a `chatctl serve` of an organization made here with admin@example.com and $PASSWORD.
 * The ```sh install blocks install chatctl itself: CI's .ci/run runs `npm ci` and `npm test`, the package test
 * runs `npm pack` and `npm install -g --prefix`; this test checks that those lines are what those run, and runs
 * the rest (`./bin/chatctl.cjs users list`).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PASSWORD = 'correct horse battery staple';

/** The README's fenced blocks: their info string and text. */
const blocks = [...README.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: m[1]!.trim(), text: m[2]! }));
const of = (info: string) => blocks.filter((b) => b.info === info).map((b) => b.text);

/** What runs each install line: CI (.ci/run) or the package test, checked by reading them. */
const INSTALL_LINES: Record<string, { file: string; holds: string }> = {
  'npm ci': { file: '.ci/run', holds: 'npm ci ' },
  'npm test': { file: '.ci/run', holds: 'npm test ' },
  'npm pack': { file: 'test/e2e/package.test.ts', holds: "'pack'" },
  'npm install -g --prefix ~/.local ./chatctl-*.tgz': { file: 'test/e2e/package.test.ts', holds: "'install', '-g', '--prefix'" },
};

describe('the README', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chatctl-readme-'));
  const bin = join(dir, 'bin');
  let server: ChildProcess | undefined;
  let site = '';
  const envFor = (home: string): NodeJS.ProcessEnv => ({
    PATH: [bin, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: home,
    PASSWORD,
    CI: 'true',
  });
  const bash = (script: string, home: string) =>
    run('bash', ['-c', `set -euo pipefail\n${script.replaceAll('https://chat.example.com', site)}`], {
      cwd: home,
      env: envFor(home),
      maxBuffer: 16 * 1024 * 1024,
    });

  beforeAll(async () => {
    mkdirSync(bin);
    writeFileSync(join(bin, 'chatctl'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin/chatctl.cjs')}" "$@"\n`, { mode: 0o755 });
    // The remote server: an organization of its own, served on a free port.
    const home = join(dir, 'server');
    mkdirSync(home);
    await bash('printf %s "$PASSWORD" | chatctl init --org-name Example --email admin@example.com --password-stdin', home);
    server = spawn(join(bin, 'chatctl'), ['serve', '--port', '0'], { cwd: home, env: envFor(home), stdio: ['ignore', 'ignore', 'pipe'] });
    site = await new Promise<string>((resolve, reject) => {
      let err = '';
      server!.stderr!.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        const url = /https?:\/\/127\.0\.0\.1:\d+/.exec(err)?.[0];
        if (url) resolve(url);
      });
      server!.on('exit', () => reject(new Error(`serve exited: ${err}`)));
    });
  }, 60_000);
  afterAll(() => {
    server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every ```sh block runs and exits 0, in order, in one HOME', { timeout: 120_000 }, async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    const scripts = of('sh');
    expect(scripts.length).toBeGreaterThan(5);
    for (const script of scripts) {
      const result = await bash(script, home).catch((e: { code?: number; stderr?: string }) => e);
      expect('code' in result && result.code !== undefined ? `exit ${result.code}: ${result.stderr}` : 'exit 0', script).toBe('exit 0');
    }
  });

  it('every ```cron line runs and exits 0 after the blocks it follows', { timeout: 60_000 }, async () => {
    const home = join(dir, 'home');
    const lines = of('cron').flatMap((text) => text.split('\n').filter((l) => l.trim() && !l.startsWith('#')));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const command = line.trim().split(/\s+/).slice(5).join(' ');
      expect(command, line).toMatch(/^chatctl /);
      await expect(bash(command, home), line).resolves.toBeDefined();
    }
  });

  it('the ```console transcript is what a fresh HOME gets', { timeout: 60_000 }, async () => {
    const home = join(dir, 'fresh');
    mkdirSync(home);
    for (const text of of('console')) {
      const [command, ...expected] = text.trimEnd().split('\n');
      expect(command).toMatch(/^\$ chatctl /);
      const result = await bash(command!.slice(2), home);
      const lines = `${result.stderr}${result.stdout}`.trimEnd().split('\n');
      // The transcript's own path and date are the reader's; the lines are otherwise these, in this order.
      const shape = (l: string) => l.replace(/\/\S*\/chatctl$/, 'DIR').replace(/\d{4}-\d\d-\d\dT[\d:.]+\+00:00/, 'TIME');
      expect(lines.map(shape)).toEqual(expected.map(shape));
    }
  });

  it('the install blocks are what CI and the package test run, and the rest of them runs', { timeout: 60_000 }, async () => {
    const lines = of('sh install').flatMap((text) => text.split('\n').filter(Boolean));
    const home = join(dir, 'install');
    mkdirSync(home);
    let ran = 0;
    for (const line of lines) {
      for (const part of line.replace(/\s+#.*$/, '').split(' && ')) {
        if (INSTALL_LINES[part]) {
          const { file, holds } = INSTALL_LINES[part];
          expect(readFileSync(join(ROOT, file), 'utf8'), `${part}: ${file}`).toContain(holds);
        } else if (part.startsWith('./bin/chatctl.cjs ')) {
          await bash(part.replace('./bin/chatctl.cjs', 'chatctl'), home);
          ran++;
        } else {
          // Putting the checkout on the PATH: npm link, a symlink, an alias; the package test proves the tarball.
          expect(part, line).toMatch(/^(npm link|ln -s "\$PWD\/bin\/chatctl.cjs" ~\/.local\/bin\/chatctl|alias chatctl="\$PWD\/bin\/chatctl.cjs")$/);
        }
      }
    }
    expect(ran).toBe(1);
  });
});
