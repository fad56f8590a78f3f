/**
 * Members as people read them: a group's or a channel's member IDs, each shown with the user's name and
 * address from one GET /users.
 */
import type { ChatClient } from '../../client/client.js';
import type { OutputSpec } from '../output/output.js';
import { userIndex } from './resolve.js';

export const MEMBER_OUTPUT: OutputSpec = {
  fields: ['user_id', 'email', 'full_name', 'is_active', 'is_bot'],
  columns: ['user_id', 'full_name', 'email'],
  key: ['user_id', 'email', 'full_name'],
};

/** The user of each ID, in order; an ID the list does not hold is shown by its ID alone. */
export async function memberRows(client: ChatClient, ids: readonly number[]): Promise<object[]> {
  const { byId } = await userIndex(client);
  return ids.map((id) => byId.get(id) ?? { user_id: id });
}
