import { getStreams } from '../../api/operations/channels.js';
import { getUsers } from '../../api/operations/users.js';
import { COMPLETION_TIMEOUT_MS } from '../../timeouts.js';
import { defineCommand } from '../command/command.js';
import { arg } from '../core/flags.js';

const KINDS = ['channels', 'users'] as const;

/**
 * The names a shell offers for --channel and --user: one request to the target every command would use,
 * given COMPLETION_TIMEOUT_MS, one name a line. A Tab must never hang, prompt, create an organization or
 * print an error under the command line, so any failure (no credentials, a broken config, a slow server)
 * prints nothing.
 */
export const commands = [
  defineCommand({
    path: ['__complete'],
    summary: 'names for shell completion (used by the completion scripts)',
    description:
      'Prints the channel names (GET /streams) or the e-mail addresses of the active users (GET /users) of the ' +
      `current target, one a line, for the completion scripts. Gives up silently after ${COMPLETION_TIMEOUT_MS / 1000} s, ` +
      'and prints nothing without stored credentials: it never creates the embedded organization.',
    examples: ['chatctl __complete channels', 'chatctl __complete users'],
    args: { kind: arg.choice(`one of ${KINDS.join(', ')}`, KINDS, { what: 'kind' }) },
    async run(opts, ctx) {
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(COMPLETION_TIMEOUT_MS)]);
      let names: string[];
      try {
        if (!ctx.target().credentials) return;
        const client = await ctx.client();
        names =
          opts.kind === 'channels'
            ? (await client.call(getStreams, {}, { signal })).streams.map((c) => c.name)
            : (await client.call(getUsers, {}, { signal })).members.filter((u) => u.is_active).map((u) => u.delivery_email ?? u.email);
      } catch {
        return;
      }
      ctx.io.stdout.write(names.map((n) => `${n}\n`).join(''));
    },
  }),
];
