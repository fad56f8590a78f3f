/**
 * A fresh clone's tests need nothing beside the checkout: the commit under test is cloned into an empty
 * temporary folder (no sibling of the clone to read from) and suites that read the Zulip OpenAPI description
 * run there. Dependencies are linked from this checkout rather than installed, which would take minutes.
 * Uncommitted work is not in the clone: this proves the commit, as CI's clean clone does.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Suites that read the vendored description: OpenAPI body checks (server), documented examples (client, api). */
const SUITES = ['test/server/register-bots.test.ts', 'test/client/features.test.ts', 'test/api/server-messages.test.ts'];

/** The environment without the outer run's VITEST* variables, which would make the inner vitest a worker of it. */
const innerEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));

describe('a fresh clone', () => {
  const parent = mkdtempSync(join(tmpdir(), 'chatctl-clone-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('passes the suites that read the Zulip OpenAPI description with nothing beside the checkout', { timeout: 90_000 }, async () => {
    const { stdout: head } = await run('git', ['-C', ROOT, 'rev-parse', 'HEAD']);
    const clone = join(parent, 'chatctl');
    // --shared borrows this repository's objects, so the clone is quick and holds whichever commit HEAD is.
    await run('git', ['clone', '--quiet', '--shared', '--no-checkout', ROOT, clone]);
    await run('git', ['-C', clone, 'checkout', '--quiet', '--detach', head.trim()]);
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(clone, 'node_modules'), 'dir');
    expect(readdirSync(parent)).toEqual(['chatctl']);
    for (const suite of SUITES) expect(existsSync(join(clone, suite)), suite).toBe(true);

    const report = join(clone, '.vitest-report.json');
    const vitest = join(clone, 'node_modules', 'vitest', 'vitest.mjs');
    // A failing suite exits 1 and still writes the report; a run that wrote none says why on stderr.
    const stderr = await run(process.execPath, [vitest, 'run', ...SUITES, '--maxWorkers=1', '--reporter=json', `--outputFile=${report}`], {
      cwd: clone,
      env: innerEnv(),
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      (r) => r.stderr,
      (e: { stderr?: string }) => e.stderr ?? String(e),
    );
    expect(existsSync(report), stderr).toBe(true);
    const result = JSON.parse(readFileSync(report, 'utf8')) as { numTotalTests: number; numPassedTests: number; numFailedTests: number };
    expect(result.numFailedTests).toBe(0);
    expect(result.numPassedTests).toBe(result.numTotalTests);
    expect(result.numTotalTests).toBeGreaterThan(10);
  });
});
