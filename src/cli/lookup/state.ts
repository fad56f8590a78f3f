import { deleteQueue, register, type RegisterResponse } from '../../api/operations/events.js';
import type { ChatClient } from '../../client/client.js';
import type { ParamLabels } from '../../client/shape.js';

/**
 * The initial state of some event types (POST /register with fetch_event_types), read from a queue that is
 * deleted at once: how a client reads state that has no GET of its own (topic policies, thresholds).
 */
export async function fetchState(
  client: ChatClient,
  types: string[],
  extra: { slim_presence?: boolean; presence_history_limit_days?: number } = {},
  labels?: ParamLabels,
): Promise<RegisterResponse> {
  const state = await client.call(register, { event_types: types, fetch_event_types: types, ...extra }, { labels });
  // A queue left behind expires on its own; failing to delete it does not spoil what was read.
  if (state.queue_id) await client.call(deleteQueue, { queue_id: state.queue_id }).catch(() => undefined);
  return state;
}
