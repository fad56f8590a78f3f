/**
 * The `narrow` of an event queue: a filter on the message events the queue receives, as Zulip's Tornado
 * applies it (zerver/lib/narrow_predicate.py). It is not GET /messages's narrow: only a few operators, never
 * negated, legacy `[operator, operand]` pairs only, and matched against the message as the event carries it
 * and the flags the event gives the queue.
 */
import { badRequest } from '../../api/errors.js';
import { RESOLVED_TOPIC_PREFIX } from './resolved-topic.js';

export type EventNarrow = readonly (readonly [operator: string, operand: string])[];

const CHANNEL_OPERATORS = ['channel', 'stream'];
/** zerver/lib/narrow_predicate.py check_narrow_for_events: what a queue's narrow may use. */
const SUPPORTED_OPERATORS = [...CHANNEL_OPERATORS, 'topic', 'sender', 'is'];
const UNSUPPORTED_IS_OPERANDS = ['followed'];

/**
 * The decoded `narrow` parameter of POST /register, checked as a Zulip server does before it allocates the
 * queue (zerver/views/events_register.py takes a list of string pairs; zerver/lib/events.py
 * do_events_register calls check_narrow_for_events).
 */
export function eventNarrow(raw: readonly unknown[]): EventNarrow {
  const terms = raw.map((term, i): [string, string] => {
    if (!Array.isArray(term)) throw badRequest(`narrow[${i}] is not a list`);
    if (term.length !== 2) throw badRequest(`narrow[${i}] should have exactly 2 items`);
    const [operator, operand] = term.map((x: unknown, j) => {
      if (typeof x !== 'string') throw badRequest(`narrow[${i}][${j}] is not a string`);
      return x;
    });
    return [operator, operand];
  });
  for (const [operator, operand] of terms) {
    if (!SUPPORTED_OPERATORS.includes(operator)) throw badRequest(`Operator ${operator} not supported.`);
    if (operator === 'is' && UNSUPPORTED_IS_OPERANDS.includes(operand)) throw badRequest(`Operand ${operand} not supported.`);
  }
  return terms;
}

/** The fields of a message event the narrow reads. */
export interface NarrowedMessage {
  type: unknown;
  display_recipient?: unknown;
  subject?: unknown;
  sender_email?: unknown;
}

const lower = (v: unknown): string => String(v).toLowerCase();

/**
 * Whether a message event passes every term. An `is:` operand the predicate does not know passes, as on a
 * Zulip server (it checks `dm`/`private`, `starred`, `unread`, `mentioned`/`alerted` and `resolved` only).
 */
export function matchesEventNarrow(narrow: EventNarrow, message: NarrowedMessage, flags: readonly string[]): boolean {
  const isChannel = message.type === 'stream';
  return narrow.every(([operator, operand]) => {
    if (CHANNEL_OPERATORS.includes(operator)) return isChannel && lower(operand) === lower(message.display_recipient);
    if (operator === 'topic') return isChannel && lower(operand) === lower(message.subject);
    if (operator === 'sender') return lower(operand) === lower(message.sender_email);
    if (operator !== 'is') return true;
    switch (operand) {
      case 'dm':
      case 'private':
        return message.type === 'private';
      case 'starred':
        return flags.includes('starred');
      case 'unread':
        return !flags.includes('read');
      case 'mentioned':
      case 'alerted':
        return flags.includes('mentioned');
      case 'resolved':
        return isChannel && String(message.subject).startsWith(RESOLVED_TOPIC_PREFIX);
      default:
        return true;
    }
  });
}
