import { STATUS_CODES } from 'node:http';
import { catalogue } from '../../api/catalogue.js';
import { isPlainObject } from '../../api/schema.js';
import type { WireResponse } from '../../api/wire.js';
import { unwrap } from '../../client/client.js';
import { parseHeader, parseRawField, parseTypedField } from '../api/fields.js';
import { checkPaginate, DEFAULT_BATCH, messagePages } from '../api/paginate.js';
import { buildRequest } from '../api/request.js';
import { defineCommand } from '../command/command.js';
import type { Context } from '../command/context.js';
import { usageError } from '../core/errors.js';
import { arg, flag } from '../core/flags.js';
import type { OutputSpec } from '../output/output.js';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

/** An HTTP method in any case (`get` is GET). */
function parseMethod(value: string): string {
  const method = value.toUpperCase();
  if (!METHODS.some((m) => m === method)) throw usageError(`unknown method "${value}"`, `methods: ${METHODS.join(', ')}`);
  return method;
}

/**
 * What api prints: a response as it came (JSON), or with --paginate its messages, whose fields --fields
 * picks and whose table or CSV shows these columns.
 */
const API_OUTPUT: OutputSpec = {
  fields: [
    'id',
    'sender_id',
    'sender_email',
    'sender_full_name',
    'timestamp',
    'type',
    'stream_id',
    'display_recipient',
    'subject',
    'content',
    'content_type',
    'flags',
    'reactions',
    'recipient_id',
    'client',
    'is_me_message',
    'last_edit_timestamp',
  ],
  columns: ['id', 'timestamp', 'sender_email', 'display_recipient', 'subject', 'content'],
  times: { timestamp: 's', last_edit_timestamp: 's' },
};

/** The catalogue's operations, each method and path once (older forms of an operation share them). */
const operationList = (): string => [...new Set(catalogue.map((op) => `  ${op.method.padEnd(6)} ${op.path}`))].join('\n');

/** `-i`: the status line and headers, as curl and gh print them before the body. */
function writeHead(ctx: Context, res: WireResponse): void {
  const head = [`HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd(), ...Object.entries(res.headers).map(([k, v]) => `${k}: ${v}`)];
  ctx.io.stdout.write(`${head.join('\r\n')}\r\n\r\n`);
}

async function* messagesOf(pages: AsyncIterable<object[]>): AsyncGenerator<object> {
  for await (const page of pages) yield* page;
}

export const commands = [
  defineCommand({
    path: ['api'],
    summary: 'send a raw API request and print the response',
    description:
      "Sends METHOD PATH (below /api/v1) with the profile's credentials and prints the JSON response as it came. " +
      'Parameters go in the query string for GET and in the form body otherwise, as a Zulip server reads them: ' +
      '-f key=value sends the value as written; -F key=value types it first (5 and 1.5 are numbers, true, false ' +
      'and null are those values, [..] and {..} are JSON; anything else is a string), and a typed value goes on ' +
      'the wire JSON-encoded, as Zulip expects. -F key=@FILE uploads a file as a multipart part named key ' +
      '(@- uploads stdin, named "stdin"). --input FILE (- for stdin) gives a whole body: a JSON object whose ' +
      'values become parameters (strings as they are, others JSON-encoded), or form-encoded text (a=1&b=2); -f ' +
      'and -F add to it and replace its keys. -H adds a header (never shown by --verbose). -i prints the status ' +
      'line and the headers before the body.\n\n' +
      `--paginate walks GET /messages by anchor (anchor, default oldest; num_after, default ${DEFAULT_BATCH}, the ` +
      'batch size), each batch after the last message of the one before, until found_newest: one message per ' +
      'line (NDJSON), or one JSON array with --slurp; --format and --fields apply to those messages.\n\n' +
      'The exit code follows the response (see chatctl help exit-codes).\n\nKnown operations:\n' +
      operationList(),
    examples: [
      'chatctl api GET /users/me',
      "chatctl api GET /users -F 'user_ids=[8,9]'",
      'chatctl api POST /users/me/presence -f status=active -F ping_only=true',
      'chatctl api POST /user_uploads -F file=@note.txt',
      'chatctl api GET /messages -F \'narrow=[{"operator":"channel","operand":"general"}]\' --paginate',
      'echo \'{"status": "active", "ping_only": true}\' | chatctl api POST /users/me/presence --input -',
      'chatctl api -i GET /server_settings',
    ],
    args: {
      method: arg.custom(`HTTP method (${METHODS.join(', ')})`, parseMethod, { suggestions: METHODS }),
      path: arg.required('path below /api/v1, e.g. /users/me'),
    },
    options: {
      field: flag.list('-f, --field <key=value>', 'a parameter sent as written (repeatable)', parseRawField),
      typedField: flag.list('-F, --typed-field <key=value>', 'a typed parameter: number, true/false/null, JSON, @file upload (repeatable)', parseTypedField),
      input: flag.string('--input <file>', 'the parameters as a JSON object or form text (- for stdin)', { complete: 'files' }),
      header: flag.list('-H, --header <name: value>', 'an HTTP header (repeatable)', parseHeader),
      include: flag.bool('-i, --include', 'print the response status and headers before the body'),
      paginate: flag.bool('--paginate', `walk GET /messages by anchor to the newest message (batches of num_after, default ${DEFAULT_BATCH})`),
      slurp: flag.bool('--slurp', 'with --paginate: one JSON array of every message'),
    },
    output: API_OUTPUT,
    check({ typedField, input, paginate, slurp, include, fields, format }) {
      const stdin = typedField.filter((f) => f.value.kind === 'file' && f.value.path === '-').length + (input === '-' ? 1 : 0);
      if (stdin > 1) throw usageError('stdin (-) can be read once: for --input or for one -F key=@-');
      if (slurp && !paginate) throw usageError('--slurp goes with --paginate');
      if (include && paginate) throw usageError('-i shows one response; --paginate prints the messages of many');
      if (!paginate && fields !== undefined) throw usageError('--fields picks fields of the messages --paginate prints');
      if (!paginate && format !== undefined && format !== 'json' && format !== 'ndjson') {
        throw usageError(`--format ${format} goes with --paginate; a single response prints as JSON`);
      }
    },
    async run(opts, ctx) {
      const client = await ctx.client({ auth: false });
      const req = await buildRequest(
        ctx,
        { method: opts.method, path: opts.path, fields: [...opts.field, ...opts.typedField], input: opts.input, headers: opts.header },
        client.credentials,
      );
      if (opts.paginate) {
        checkPaginate(req);
        const out = ctx.output({ ...opts, format: opts.format ?? (opts.json || opts.slurp ? 'json' : 'ndjson') });
        await out.list(messagesOf(messagePages(client, req, ctx.signal)));
        return;
      }
      const res = await client.send(req, ctx.signal);
      if (opts.include) writeHead(ctx, res);
      if (isPlainObject(res.body)) await ctx.output({ ...opts, format: opts.format ?? 'json' }).item(res.body);
      else ctx.io.stdout.write(`${JSON.stringify(res.body)}\n`);
      unwrap(res);
    },
  }),
];
