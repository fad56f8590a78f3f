import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { saveProfile } from '../../../config/profiles.js';
import type { Env } from '../../../config/paths.js';
import { defineCommand } from '../../command/command.js';
import type { Context } from '../../command/context.js';
import { ChatctlError, EXIT, type ExitKind } from '../../core/errors.js';
import { arg, flag } from '../../core/flags.js';
import { planRehearsal } from '../../org/rehearsal.js';
import { fromFlag, mirrorProfile, saveCopyProfile } from './mirror.js';
import { EXIT_ZERO, PLAN_OUTPUT, showPlan } from './plan.js';

/** The copy's profile in the rehearsal's own config dir: the only one the command can name. */
const COPY_PROFILE = 'rehearsal';

/** Variables that would send the command somewhere else than the copy, or as someone else. */
const ELSEWHERE = ['ZULIP_CONFIG', 'ZULIP_SITE', 'ZULIP_EMAIL', 'ZULIP_API_KEY'];

/**
 * The command's environment: chatctl pointed at the copy (CHATCTL_DATA_DIR and CHATCTL_PROFILE), with a
 * config dir holding the copy's profile alone, so that a `--profile prod` in a script fails (no such profile)
 * instead of reaching production.
 */
function commandEnv(env: Env, configDir: string, dataDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !ELSEWHERE.includes(k)) out[k] = v;
  return { ...out, CHATCTL_CONFIG_DIR: configDir, CHATCTL_DATA_DIR: dataDir, CHATCTL_PROFILE: COPY_PROFILE };
}

/** The exit of the command, as chatctl's own kind when it is one of chatctl's codes (1 otherwise). */
const isKind = (k: string): k is ExitKind => Object.hasOwn(EXIT, k);
const kindOf = (code: number): ExitKind => Object.keys(EXIT).find((k): k is ExitKind => isKind(k) && k !== 'ok' && EXIT[k] === code) ?? 'failure';

/** Runs `argv` with `env`, its output forwarded; its exit code (128 + n for a signal n, 130 for Ctrl-C). */
function runCommand(ctx: Context, argv: readonly string[], env: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], signal: ctx.signal });
    child.stdout.on('data', (d: Buffer) => ctx.io.stdout.write(d));
    child.stderr.on('data', (d: Buffer) => ctx.io.stderr.write(d));
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.name === 'AbortError') return;
      fail(new ChatctlError(`cannot run ${argv[0]}: ${e.code === 'ENOENT' ? 'no such command' : e.message}`, e.code === 'ENOENT' ? 'notFound' : 'failure'));
    });
    child.on('close', (code, signal) => done(ctx.signal.aborted ? EXIT.interrupted : (code ?? (signal ? 128 + (constants.signals[signal] ?? 15) : 1))));
  });
}

export const rehearseCommand = defineCommand({
  path: ['org', 'rehearse'],
  summary: 'mirror an organization, run a command against the copy, and plan what it changed',
  description:
    'Does org mirror --from PROFILE into a temporary directory (or --keep DIR, kept with a profile of its own), runs COMMAND ' +
    '(everything after --) with chatctl pointed at the copy (CHATCTL_DATA_DIR and CHATCTL_PROFILE set; ZULIP_SITE, ZULIP_CONFIG, ' +
    'ZULIP_EMAIL and ZULIP_API_KEY removed; a config dir that holds the copy’s profile alone, so a --profile in the script ' +
    'cannot reach production), forwards its output, then plans three ways against PROFILE as org plan --desired does and ' +
    'prints the plan. The copy answers at production’s feature level: what that level cannot do is refused there as production ' +
    'would refuse it.\n\nThe rehearsal stops at the first failure of COMMAND, with its exit code and no plan: a script that ' +
    'reaches something the copy does not implement, or that its level cannot do, has said which request on stderr. Otherwise ' +
    'exit 0 when nothing changed, 10 when the plan has changes (--exit-zero: 0).',
  examples: [
    'chatctl org rehearse --from prod -- chatctl channels create onboarding --description "New hires"',
    'chatctl org rehearse --from prod --out plan.json -- ./onboard.sh',
    'chatctl org rehearse --from prod --keep ./rehearsal -- ./sync-teams.sh',
  ],
  args: { command: arg.variadic('the command to run against the copy (after --)', { required: true }) },
  options: {
    from: fromFlag,
    keep: flag.string('--keep <dir>', 'make the copy in this new directory and keep it (with a profile), instead of a temporary one', { complete: 'files' }),
    ...PLAN_OUTPUT,
    exitZero: EXIT_ZERO,
  },
  async run(opts, ctx) {
    const work = mkdtempSync(join(tmpdir(), 'chatctl-rehearse-'));
    try {
      const dataDir = opts.keep ? resolve(opts.keep) : join(work, 'copy');
      const mirrored = await mirrorProfile(ctx, opts.from, dataDir);
      if (opts.keep) await saveCopyProfile(ctx, dataDir, mirrored, opts.from);
      const configDir = join(work, 'config');
      await saveProfile({ ...ctx.env, CHATCTL_CONFIG_DIR: configDir }, COPY_PROFILE, {
        embedded: dataDir,
        email: mirrored.record.operator.email,
        apiKey: mirrored.apiKey,
      });
      ctx.info(`chatctl: running ${opts.command.join(' ')} against the copy`);
      const code = await runCommand(ctx, opts.command, commandEnv(ctx.env, configDir, dataDir));
      if (code !== 0) {
        throw new ChatctlError(
          `rehearsal stopped: ${opts.command[0]} exited ${code}; nothing was planned`,
          kindOf(code),
          opts.keep ? `the copy is in ${dataDir}` : undefined,
        );
      }
      await showPlan(ctx, await planRehearsal(ctx, dataDir, opts.from), opts);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
});
