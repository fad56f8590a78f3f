import { deleteQueue, register } from '../../api/operations/events.js';
import { converted } from '../core/args.js';
import { confirmAndRun, OUTCOME_FIELDS, planCall, rowCalls } from '../bulk/runner.js';
import { defineCommand } from '../command/command.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { arg, flag } from '../core/flags.js';
import type { OutputSpec } from '../output/output.js';

const QUEUE_OUTPUT: OutputSpec = { fields: ['queue_id', 'last_event_id'] };

/** `message,reaction`: at least one event type. */
function parseEventTypes(value: string): string[] {
  const types = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (!types.length) throw usageError('--event-types takes comma-separated event types, e.g. message,reaction');
  return types;
}

/** Queue IDs as given, trimmed; an empty one names no queue. */
function parseQueueIds(values: readonly string[]): string[] {
  const ids = values.map((q) => q.trim());
  if (ids.some((q) => !q)) throw usageError('queue IDs cannot be empty');
  return ids;
}

export const commands = [
  defineCommand({
    path: ['events', 'register'],
    summary: 'register an event queue and print its ID',
    description:
      'Registers an event queue (POST /register) and prints its queue_id and last_event_id, so a script can read ' +
      'events with GET /events (chatctl api GET /events -f queue_id=... -f last_event_id=...) and delete the queue ' +
      'when done. No initial state is fetched. Without --event-types the queue gets every event type. An idle queue ' +
      "expires after --lifespan (the server's default is 10 minutes).",
    examples: [
      'chatctl events register --json',
      'Q=$(chatctl events register --event-types message,reaction --fields queue_id)',
      'chatctl events register --event-types presence --lifespan 1h --json',
    ],
    options: {
      eventTypes: flag.custom('--event-types <types>', 'comma-separated event types to queue (default: all)', parseEventTypes),
      lifespan: flag.duration('--lifespan <duration>', 'delete the queue after it is idle this long (e.g. 30m, 1h)'),
    },
    output: QUEUE_OUTPUT,
    mutating: true,
    async run(opts, ctx) {
      const params = {
        event_types: opts.eventTypes,
        // Only the queue is wanted: fetching no initial state keeps the response small.
        fetch_event_types: [],
        queue_lifespan_secs: opts.lifespan,
      };
      const out = ctx.output(opts);
      const client = await ctx.client();
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(register, params));
        return;
      }
      const res = await client.call(register, params, { signal: ctx.signal });
      await out.item({ queue_id: res.queue_id, last_event_id: res.last_event_id });
      if (!out.isJson) ctx.info(`chatctl: delete it when done: chatctl events delete ${res.queue_id} --yes`);
    },
  }),

  defineCommand({
    path: ['events', 'delete'],
    aliases: ['rm'],
    summary: 'delete event queues',
    description:
      "Deletes event queues by ID (DELETE /events), e.g. those a script registered. Each ID's outcome is printed " +
      '(one JSON line each with --json); exit 3 when any failed (one that does not exist or ' +
      'has expired: BAD_EVENT_QUEUE_ID), the only one given too. Asks for confirmation on a terminal; elsewhere --yes is required.',
    examples: ['chatctl events delete 1517975029:0 --yes', 'chatctl events delete "$Q" --yes --json'],
    args: { queueIds: converted(arg.variadic('queue IDs (from events register or POST /register)', { required: true, label: 'queue_ids' }), parseQueueIds) },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const ids = opts.queueIds;
      const calls = rowCalls(ids, 'deleted', (queueId) => planCall(deleteQueue, { queue_id: queueId }, { id: queueId }), 'event queue');
      await confirmAndRun(ctx, opts, calls, 'deleted', `Delete ${ids.length === 1 ? `event queue ${ids[0]}` : `${ids.length} event queues`}?`);
    },
  }),
];
