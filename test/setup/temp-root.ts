/**
 * Run once around the whole suite (vitest.config.ts `globalSetup`): every temporary directory a test makes
 * (`mkdtemp` under the system's temporary directory: HOMEs, data dirs, certificates) goes under one directory
 * of this run, removed when the run ends, so that a test that does not remove its own leaves nothing behind
 * (tens of thousands of empty HOMEs had piled up). Test workers and the processes they spawn inherit TMPDIR.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'chatctl-tests-'));
  // As open to look through as the system's own: a test runs chatctl as another user (nobody) in a directory of its own in here.
  chmodSync(root, 0o755);
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
