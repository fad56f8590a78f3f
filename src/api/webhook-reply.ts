/**
 * How a Zulip server calls an outgoing-webhook integration and reads its reply (zulip-behaviour §2.20): how
 * long it waits, which answers fail and how it words the failure. The embedded server acts on it, and
 * `chatctl webhook trigger` tells an integration's author what the server would do.
 */
import { isPlainObject } from './schema.js';

/** How long a Zulip server waits for an integration before it gives up and retries (OUTGOING_WEBHOOK_TIMEOUT_SECONDS). */
export const OUTGOING_WEBHOOK_TIMEOUT_SECONDS = 10;

/** Whether an integration's HTTP status is an answer to read; any other fails with statusProblem. */
export const isSuccessStatus = (status: number): boolean => status >= 200 && status <= 299;

export const statusProblem = (status: number): string => `Third party responded with ${status}`;

/** What a server posts in the conversation when a call fails. */
export const failureReply = (problem: string): string => `Failure! ${problem}`;

export type ReplyReading =
  | { kind: 'failure'; problem: 'Invalid JSON in response' | 'Invalid response format' }
  | { kind: 'none'; reason: 'empty' | 'response_not_required' | 'no content' | 'content is not a string' }
  | { kind: 'post'; content: string };

/** `slack`: the Slack-compatible interface, whose reply text is under `text`. */
export function readReply(text: string, slack: boolean): ReplyReading {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: 'failure', problem: 'Invalid JSON in response' };
  }
  // JSON "" was the "no response" of older bot servers.
  if (data === '') return { kind: 'none', reason: 'empty' };
  if (!isPlainObject(data)) return { kind: 'failure', problem: 'Invalid response format' };
  if (!slack && data.response_not_required) return { kind: 'none', reason: 'response_not_required' };
  const content = slack
    ? data.text
    : 'response_string' in data
      ? typeof data.response_string === 'string'
        ? data.response_string
        : JSON.stringify(data.response_string)
      : data.content;
  if (content === undefined || content === null) return { kind: 'none', reason: 'no content' };
  if (typeof content !== 'string') return { kind: 'none', reason: 'content is not a string' };
  if (content.trim() === '') return { kind: 'none', reason: 'no content' };
  return { kind: 'post', content };
}
