import { catalogue } from '../../api/catalogue.js';
import type { WireRequest } from '../../api/wire.js';
import { unwrap } from '../../client/client.js';
import { defineCommand } from '../command.js';
import { usageError } from '../errors.js';
import { arg, flag } from '../flags.js';
import { basicAuthHeader } from '../../api/wire.js';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

/** An HTTP method in any case (`get` is GET). */
function parseMethod(value: string): string {
  const method = value.toUpperCase();
  if (!METHODS.some((m) => m === method)) throw usageError(`unknown method "${value}"`, `methods: ${METHODS.join(', ')}`);
  return method;
}

/** A `key=value` pair; the value goes on the wire as written (pass JSON for lists, integers, booleans). */
function parseField(value: string): [string, string] {
  const eq = value.indexOf('=');
  if (eq <= 0) throw usageError(`-f takes key=value, not "${value}"`);
  return [value.slice(0, eq), value.slice(eq + 1)];
}

export const commands = [
  defineCommand({
    path: ['api'],
    summary: 'send a raw API request and print the response envelope',
    description:
      "Sends METHOD PATH (below /api/v1) with the profile's credentials and prints the JSON response as it came. " +
      'Parameters go in the query string for GET and in the form body otherwise; values are sent as written, so ' +
      'lists, integers and booleans are given as JSON (-f user_ids=[1,2], -f client_gravatar=false). The exit code ' +
      'follows the response (see chatctl help exit-codes).\n\nKnown operations:\n' +
      catalogue.map((op) => `  ${op.method.padEnd(6)} ${op.path}`).join('\n'),
    examples: [
      'chatctl api GET /users/me',
      "chatctl api GET /users -f 'user_ids=[8,9]'",
      'chatctl api POST /users/me/presence -f status=active -f ping_only=true',
    ],
    args: {
      method: arg.custom(`HTTP method (${METHODS.join(', ')})`, parseMethod, { suggestions: METHODS }),
      path: arg.required('path below /api/v1, e.g. /users/me'),
    },
    options: { field: flag.list('-f, --field <key=value>', 'a parameter (repeatable)', parseField) },
    async run(opts, ctx) {
      const { method, field: fields } = opts;
      const [pathPart = '', queryPart] = opts.path.replace(/^\/?(api\/v1)?/, '/').split('?', 2);
      const client = await ctx.client({ auth: false });
      const req: WireRequest = {
        method,
        path: pathPart.replace(/^\/+/, '/'),
        query: [...new URLSearchParams(queryPart ?? ''), ...(method === 'GET' ? fields : [])],
        body: method === 'GET' ? [] : fields,
        headers: client.credentials ? { authorization: basicAuthHeader(client.credentials.email, client.credentials.apiKey) } : {},
      };
      const res = await client.send(req, ctx.signal);
      ctx.io.stdout.write(`${JSON.stringify(res.body, null, ctx.io.stdoutIsTTY ? 2 : undefined)}\n`);
      unwrap(res);
    },
  }),
];
