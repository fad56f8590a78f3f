/**
 * Runs chatctl in-process with fake streams (TTY on or off), a private HOME and config dir, and returns
 * what it printed and its exit code. `spawnCli` runs the real bin/chatctl.cjs in a child process.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { CommandSpec } from '../../src/cli/command/command.js';
import { parseValues } from '../../src/cli/core/flags.js';
import { GLOBAL_FLAGS, type GlobalOptions } from '../../src/cli/command/global-options.js';
import { main, parse as parseArgv, type MainDeps } from '../../src/cli/entry/main.js';
import type { IO } from '../../src/cli/core/io.js';
import type { Prompter } from '../../src/cli/core/prompter.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  tty?: boolean;
  columns?: number;
  prompter?: Prompter;
  signal?: AbortSignal;
  lastWords?: MainDeps['lastWords'];
  openTransport?: MainDeps['openTransport'];
}

/** A stream that keeps what is written to it. */
export class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** A fresh HOME with config and data dirs inside, for one test. */
export function tempHome(): { home: string; env: Record<string, string> } {
  const home = mkdtempSync(join(tmpdir(), 'chatctl-home-'));
  return {
    home,
    env: {
      HOME: home,
      CHATCTL_CONFIG_DIR: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      XDG_CONFIG_HOME: join(home, 'xdg-config'),
      PATH: process.env.PATH ?? '',
    },
  };
}

/** Output for parsing alone, which prints help and usage errors; nobody reads it. */
export const parseOutput = (): Pick<IO, 'stdout' | 'stderr' | 'columns'> => ({ stdout: new Sink(), stderr: new Sink(), columns: 80 });

/** A command line as the command receives it. */
export interface ParsedCommand {
  spec: CommandSpec;
  /** Its arguments and options as the typed values `run` gets (roles as numbers, durations in seconds ...). */
  opts: Readonly<Record<string, unknown>>;
  globals: GlobalOptions;
}

/** Parses and validates argv as `main` does, up to running the command; a usage error throws. */
export async function parse(argv: readonly string[]): Promise<ParsedCommand> {
  const parsed = await parseArgv(argv, parseOutput());
  if (!parsed) throw new Error(`${argv.join(' ')} selects no command`);
  const globals = parseValues(GLOBAL_FLAGS, parsed.globals);
  const { opts } = await parsed.spec.bind(parsed.opts);
  return { spec: parsed.spec, opts, globals };
}

/** A fresh HOME with made-up credentials: enough for a command to get as far as checking its arguments. */
export const fakeCreds = (): Record<string, string> => ({ ...tempHome().env, ZULIP_EMAIL: 'x@y.test', ZULIP_API_KEY: 'A'.repeat(32) });

/** The case of `it.each` tables of usage errors: `argv`, with made-up credentials, exits 2 saying `message`. */
export async function expectUsageError(argv: string[], message: string): Promise<void> {
  const r = await runCli(argv, { env: fakeCreds() });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(message);
}

/** The records of JSON-lines output. */
export const jsonLines = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/**
 * The summaries a run said on stderr: its `chatctl: ...` lines, and under --json the message of its JSON error
 * (a run whose rows failed says its summary once, as its error). One summary a run: a test can count them.
 */
export const summariesIn = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      if (line.startsWith('chatctl: ')) return [line.slice('chatctl: '.length)];
      if (!line.startsWith('{')) return [];
      const parsed = JSON.parse(line) as { error?: { message?: string } };
      return parsed.error?.message !== undefined ? [parsed.error.message] : [];
    });

export async function runCli(argv: string[], o: CliOptions = {}): Promise<CliResult> {
  const stdout = new Sink();
  const stderr = new Sink();
  const stdin = o.stdin !== undefined ? Readable.from([o.stdin]) : new PassThrough();
  if (o.stdin === undefined) (stdin as PassThrough).end();
  const deps: MainDeps = {
    io: { stdin, stdout, stderr, stdinIsTTY: Boolean(o.tty), stdoutIsTTY: Boolean(o.tty), stderrIsTTY: Boolean(o.tty), columns: o.columns ?? 120 },
    env: o.env ?? tempHome().env,
    prompter: o.prompter,
    signal: o.signal,
    lastWords: o.lastWords,
    openTransport: o.openTransport,
  };
  const code = await main(argv, deps);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

export const BIN = fileURLToPath(new URL('../../bin/chatctl.cjs', import.meta.url));

/**
 * Runs the built bin/chatctl.cjs (npm test builds first). `prefix` runs it under another command (a private
 * mount namespace, another user).
 */
export function spawnCli(
  argv: string[],
  o: { env: Record<string, string | undefined>; stdin?: string; timeoutMs?: number; prefix?: string[] },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = [...(o.prefix ?? []), process.execPath, BIN, ...argv];
    const child = spawn(command!, args, { env: o.env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.stdin.end(o.stdin ?? '');
  });
}

/** A prompter that answers from a script and fails on any question it was not given. */
export function scriptedPrompter(answers: { password?: string[]; confirm?: boolean[] }): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const passwords = [...(answers.password ?? [])];
  const confirms = [...(answers.confirm ?? [])];
  return {
    interactive: true,
    asked,
    async password(message) {
      asked.push(message);
      const a = passwords.shift();
      if (a === undefined) throw new Error(`unexpected password prompt: ${message}`);
      return a;
    },
    async confirm(message) {
      asked.push(message);
      const a = confirms.shift();
      if (a === undefined) throw new Error(`unexpected confirmation: ${message}`);
      return a;
    },
  };
}

/**
 * Arguments and environment that point chatctl at a test organization over one transport, as `user`
 * (default: its owner): `--data-dir` for the embedded transport, `--server` for HTTP on 127.0.0.1.
 */
export async function cliTarget(
  org: { dataDir: string; http(): Promise<string>; owner: { email: string; apiKey: string } },
  kind: 'embedded' | 'http',
  user: { email: string; apiKey: string } = org.owner,
): Promise<{ args: string[]; env: Record<string, string> }> {
  const { env } = tempHome();
  const creds = { ZULIP_EMAIL: user.email, ZULIP_API_KEY: user.apiKey };
  return kind === 'embedded'
    ? { args: ['--data-dir', org.dataDir], env: { ...env, ...creds } }
    : { args: ['--server', await org.http()], env: { ...env, ...creds } };
}

/** Writes a config file holding one default profile, as chatctl would (0600 in a 0700 dir); returns its path. */
/** A file named `name` holding `text`, in a directory of its own. */
export function fileIn(name: string, text: string): string {
  const file = join(tempHome().home, name);
  writeFileSync(file, text);
  return file;
}

export function writeProfile(env: Record<string, string>, profile: Record<string, unknown>, name = 'default'): string {
  mkdirSync(env.CHATCTL_CONFIG_DIR!, { recursive: true, mode: 0o700 });
  const file = join(env.CHATCTL_CONFIG_DIR!, 'config.json');
  writeFileSync(file, JSON.stringify({ defaultProfile: name, profiles: { [name]: profile } }), { mode: 0o600 });
  return file;
}
