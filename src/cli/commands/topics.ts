import { getStreams, getSubscriptions, updateUserTopic, type UserTopic, type VisibilityPolicy } from '../../api/operations/channels.js';
import type { ChatClient } from '../../client/client.js';
import { defineCommand, type CommandSpec } from '../command/command.js';
import type { Context } from '../command/context.js';
import { printDryRun } from '../bulk/dry-run.js';
import { flag, type Values } from '../core/flags.js';
import type { OutputSpec } from '../output/output.js';
import { matchIdsOrNames, requireResolved, resolveChannel } from '../lookup/resolve.js';
import { fetchState } from '../lookup/state.js';

export const POLICY_NAMES: Record<VisibilityPolicy, string> = { 0: 'inherit', 1: 'muted', 2: 'unmuted', 3: 'followed' };

/**
 * `--topic ''` and `--topic '(no topic)'` both name the general-chat topic: "" on the wire, which the
 * client spells as older servers want it.
 */
export const topicName = (value: string): string => (value === '(no topic)' ? '' : value);

/** A blank --channel names no channel: it is as missing. */
const channelRef = (value: string): string | undefined => (value.trim() === '' ? undefined : value);

const TOPIC_FLAGS = {
  channel: flag.required(flag.custom('--channel <channel>', 'the channel, by ID or name (required)', channelRef), '--channel is required'),
  topic: flag.required(
    flag.string('--topic <topic>', 'the topic; \'\' or "(no topic)" is the general-chat topic (required)'),
    "--topic is required ('' for the general-chat topic)",
  ),
};

type Verb = 'mute' | 'unmute' | 'follow' | 'unfollow' | 'reset';

const PAST: Record<Verb, string> = { mute: 'muted', unmute: 'unmuted', follow: 'followed', unfollow: 'unfollowed', reset: 'reset' };

/** What `unmute` means to a person: not muted. In a muted channel that takes the explicit "unmuted" policy. */
async function unmutePolicy(client: ChatClient, streamId: number): Promise<VisibilityPolicy> {
  const { subscriptions } = await client.call(getSubscriptions, {});
  return subscriptions.find((s) => s.stream_id === streamId)?.is_muted ? 2 : 0;
}

async function setPolicy(ctx: Context, verb: Verb, t: Values<typeof TOPIC_FLAGS> & { dryRun: boolean }): Promise<void> {
  const client = await ctx.client();
  const streamId = await resolveChannel(client, t.channel);
  const topic = topicName(t.topic);
  const policy: VisibilityPolicy = verb === 'mute' ? 1 : verb === 'follow' ? 3 : verb === 'unmute' ? await unmutePolicy(client, streamId) : 0;
  const params = { stream_id: streamId, topic, visibility_policy: policy };
  if (t.dryRun) {
    printDryRun(ctx, await client.prepare(updateUserTopic, params));
    return;
  }
  await client.call(updateUserTopic, params, { signal: ctx.signal });
  ctx.info(`chatctl: ${t.channel} > ${topic === '' ? '(no topic)' : topic}: ${PAST[verb]}`);
}

function policyCommand(verb: Verb, summary: string, description: string, examples: string[]): CommandSpec {
  return defineCommand({
    path: ['topics', verb],
    summary,
    description:
      `${description}\n\nTopic policies (POST /user_topics): inherit (0: follow the channel), muted (1), unmuted (2: shown ` +
      'even in a muted channel), followed (3). The general-chat topic is --topic \'\' (or "(no topic)"). ' +
      'Servers below feature level 170 only mute and unmute (PATCH /users/me/subscriptions/muted_topics).',
    examples,
    options: TOPIC_FLAGS,
    mutating: true,
    run: (opts, ctx) => setPolicy(ctx, verb, opts),
  });
}

const TOPIC_FIELDS = ['stream_id', 'channel', 'topic_name', 'visibility_policy', 'policy', 'last_updated'] as const;
const TOPIC_COLUMNS = ['channel', 'topic_name', 'policy', 'last_updated'] as const;
const TOPIC_OUTPUT: OutputSpec = { fields: TOPIC_FIELDS, columns: TOPIC_COLUMNS, times: { last_updated: 's' }, key: ['stream_id', 'channel', 'topic_name'] };

interface TopicRow extends UserTopic {
  channel: string | null;
  policy: string;
}

/** Policies from the initial state (older servers' muted topics, as the catalogue declares). */
const topicPolicies = async (client: ChatClient): Promise<UserTopic[]> => (await fetchState(client, ['user_topic'])).user_topics ?? [];

export const commands: CommandSpec[] = [
  policyCommand('mute', 'mute a topic: no notifications, hidden from unread counts', 'Mutes the topic for you (policy muted).', [
    'chatctl topics mute --channel general --topic "lunch orders"',
    "chatctl topics mute --channel 5 --topic ''",
  ]),
  policyCommand(
    'unmute',
    'unmute a topic',
    'Makes the topic not muted. In an unmuted channel that is policy inherit (nothing set); in a muted channel it ' +
      "is policy unmuted, so the topic shows although the channel is muted. The channel's state is read from your " +
      'subscriptions.',
    ['chatctl topics unmute --channel general --topic "lunch orders"'],
  ),
  policyCommand('follow', 'follow a topic: notifications for every message', 'Follows the topic (policy followed).', [
    'chatctl topics follow --channel design --topic "release notes"',
  ]),
  policyCommand('unfollow', 'stop following a topic', 'Stops following the topic: policy inherit, so it behaves as the channel does.', [
    'chatctl topics unfollow --channel design --topic "release notes"',
  ]),
  policyCommand(
    'reset',
    'forget any policy for a topic (muted, unmuted or followed)',
    "Removes the topic's policy (inherit): it behaves as its channel does.",
    ['chatctl topics reset --channel design --topic "release notes"'],
  ),
  defineCommand({
    path: ['topics', 'list'],
    aliases: ['ls'],
    summary: 'list your topic policies (muted, unmuted, followed)',
    description:
      'Lists the topics you set a policy for, read from the initial state of an event queue (POST /register with ' +
      'user_topic; the queue is deleted at once), by channel and topic. Topics of channels you can no longer see show no ' +
      'channel name.',
    examples: ['chatctl topics list', 'chatctl topics list --channel general --policy muted', 'chatctl topics list --json'],
    options: {
      channel: flag.string('--channel <channel>', 'only this channel (ID or name)'),
      policy: flag.choice('--policy <policy>', 'only this policy', ['muted', 'unmuted', 'followed']),
    },
    output: TOPIC_OUTPUT,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const { streams } = await client.call(getStreams, {});
      const index = streams.map((s) => ({ id: s.stream_id, name: s.name }));
      const { channel, policy } = opts;
      const only =
        channel === undefined
          ? undefined
          : requireResolved(
              matchIdsOrNames([channel], index, (n) => `Channel '${n}' does not exist`),
              [channel],
            )[0];
      const names = new Map(index.map((c) => [c.id, c.name]));
      const rows: TopicRow[] = (await topicPolicies(client))
        .filter((t) => (only === undefined || t.stream_id === only) && (policy === undefined || POLICY_NAMES[t.visibility_policy] === policy))
        .map((t) => ({ ...t, channel: names.get(t.stream_id) ?? null, policy: POLICY_NAMES[t.visibility_policy] }))
        // By channel, then topic: the server's order (when each was set, to the second) ties and varies between runs.
        .sort((a, b) => a.stream_id - b.stream_id || a.topic_name.localeCompare(b.topic_name));
      await out.list(rows);
    },
  }),
];
