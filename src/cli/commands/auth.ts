import { defineCommand } from '../command/command.js';
import { noCredentials } from '../target/connect.js';
import { usageError } from '../core/errors.js';
import { flag } from '../core/flags.js';

export const commands = [
  defineCommand({
    path: ['auth', 'token'],
    summary: 'print the API key chatctl would use, for scripts',
    description:
      'Prints the API key of the credentials every other command would use, chosen in the usual order (--zuliprc, ' +
      '--server, --data-dir, --profile, then the environment, then the default profile), on one line on stdout, ' +
      'as `gh auth token` does. It sends no request and writes nothing else, so the key appears in no log or ' +
      'trace. Printed only into a pipe or a file: on a terminal, where anyone looking at the screen or its ' +
      'scrollback would see it, only with --show. Pair it with the e-mail from `chatctl whoami --jq .email` ' +
      'for HTTP basic auth.',
    examples: [
      'curl -u "$(chatctl whoami --jq .email):$(chatctl auth token)" https://chat.example.com/api/v1/users/me',
      'chatctl auth token --profile work > key.txt',
      'chatctl auth token --show',
    ],
    options: { show: flag.bool('--show', 'print the key on a terminal too') },
    async run(opts, ctx) {
      const target = ctx.target();
      if (!target.credentials) throw noCredentials(target);
      if (ctx.io.stdoutIsTTY && !opts.show) {
        throw usageError(
          'not printing the API key to a terminal',
          'pipe it where it is needed (chatctl auth token | ...; KEY=$(chatctl auth token)), or pass --show to see it here',
        );
      }
      ctx.io.stdout.write(`${target.credentials.apiKey}\n`);
    },
  }),
];
