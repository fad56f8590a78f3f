/**
 * How a Zulip server reads an outgoing-webhook integration's 2xx reply (zulip-behaviour §2.20): the embedded
 * server acts on it, and `chatctl webhook trigger` tells an integration's author what the server would do.
 */
import { isPlainObject } from './schema.js';

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
