/**
 * `chatctl init --demo`: a small organization to explore, created through the API as the owner, like any
 * client would, so the demo data is exactly what the operations produce: users of every role and a bot,
 * channels in a folder, topics, messages with an edit, reactions and an attachment, a user group,
 * linkifiers and a custom profile field.
 */
import { uploadFile } from '../../api/operations/attachments.js';
import { createBot } from '../../api/operations/bots.js';
import { subscribe } from '../../api/operations/channels.js';
import { createChannelFolder } from '../../api/operations/folders.js';
import { createUserGroup } from '../../api/operations/groups.js';
import { addLinkifier } from '../../api/operations/linkifiers.js';
import { sendMessage, updateMessage } from '../../api/operations/messages.js';
import { createCustomProfileField } from '../../api/operations/profile-fields.js';
import { addReaction } from '../../api/operations/reactions.js';
import { createUser, updateUser } from '../../api/operations/users.js';
import { ROLE, type Role } from '../../api/roles.js';
import type { ChatClient } from '../../client/client.js';
import { randomAlphanumeric } from '../../random.js';

const PEOPLE: readonly { email: string; full_name: string; role: Role }[] = [
  { email: 'prospero@example.com', full_name: 'Prospero', role: ROLE.owner },
  { email: 'iago@example.com', full_name: 'Iago', role: ROLE.admin },
  { email: 'cordelia@example.com', full_name: 'Cordelia', role: ROLE.moderator },
  { email: 'hamlet@example.com', full_name: 'King Hamlet', role: ROLE.member },
  { email: 'polonius@example.com', full_name: 'Polonius', role: ROLE.guest },
];

export async function seedDemo(client: ChatClient): Promise<string> {
  const ids: number[] = [];
  for (const person of PEOPLE) {
    // Demo accounts get passwords nobody knows; their owner can reset them.
    const { user_id } = await client.call(createUser, { email: person.email, full_name: person.full_name, password: randomAlphanumeric(24) });
    if (person.role !== ROLE.member) await client.call(updateUser, { user_id, role: person.role });
    ids.push(user_id);
  }
  await client.call(createBot, { full_name: 'Deploy Bot', short_name: 'deploy', bot_type: 1 });
  const pronouns = await client.call(createCustomProfileField, { name: 'Pronouns', hint: 'How to refer to you', field_type: 8 });
  await client.call(updateUser, { user_id: ids[3]!, profile_data: [{ id: pronouns.id, value: 'he/him' }] });

  const { channel_folder_id } = await client.call(createChannelFolder, { name: 'Engineering', description: 'Where things get built' });
  await client.call(subscribe, {
    subscriptions: [
      { name: 'design', description: 'Look and feel' },
      { name: 'backend', description: 'Servers and storage' },
    ],
    principals: ids,
    folder_id: channel_folder_id,
  });
  await client.call(subscribe, { subscriptions: [{ name: 'general' }], principals: ids });
  await client.call(addLinkifier, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' });
  await client.call(createUserGroup, { name: 'designers', description: 'People who care about #design', members: [ids[1]!, ids[2]!] });

  const notes = await client.call(
    uploadFile,
    {},
    {
      files: [{ field: 'file', filename: 'release-notes.txt', contentType: 'text/plain', data: new TextEncoder().encode('Version 1.0: everything is new.\n') }],
    },
  );
  const say = async (to: string, topic: string, content: string) => (await client.call(sendMessage, { type: 'stream', to, topic, content })).id;
  const welcome = await say('general', 'welcome', 'Welcome to the demo organization! Say hi to @**Iago** and @**Cordelia**.');
  await say('general', 'welcome', 'Everyone in one place: **general** is for everything.');
  const release = await say('backend', 'release 1.0', `Release notes are up: [release-notes.txt](${notes.url}). Fixes #42.`);
  await say('design', 'colours', 'Should the sidebar be *darker*?');
  const typo = await say('design', 'colours', 'I think teh current one works.');
  await client.call(updateMessage, { message_id: typo, content: 'I think the current one works.' });
  await client.call(addReaction, { message_id: welcome, emoji_name: 'wave' });
  await client.call(addReaction, { message_id: release, emoji_name: 'tada' });
  await client.call(addReaction, { message_id: release, emoji_name: 'zulip' });
  return `${PEOPLE.length} users of every role, a bot, 3 channels in a folder, 5 messages (one edited) with reactions and an attachment, a user group, a linkifier, a profile field`;
}
