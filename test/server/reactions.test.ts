import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../../src/api/operations/events.js';
import { getMessages, sendMessage } from '../../src/api/operations/messages.js';
import { addReaction, deactivateCustomEmoji, getCustomEmoji, removeReaction, uploadCustomEmoji } from '../../src/api/operations/reactions.js';
import type { UploadedFile } from '../../src/api/wire.js';
import type { ChatClient } from '../../src/client/client.js';
import { failure } from '../helpers/api.js';
import { ownerChannel } from '../helpers/channels.js';
import { listen } from '../helpers/events.js';
import { unique } from '../helpers/names.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const png = (filename = 'emoji.png', data: Uint8Array = PNG): UploadedFile => ({ field: 'file', filename, contentType: 'image/png', data });

describe.each(TRANSPORTS)('reactions and custom emoji over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);

  async function channelMessage(members: TestUser[]): Promise<number> {
    const { name } = await ownerChannel(org, owner, members);
    return (await owner.call(sendMessage, { type: 'stream', to: name, topic: 't', content: 'react to me' })).id;
  }

  const reactionsOf = (messageId: number) =>
    org.db.prepare('SELECT user_id, emoji_name, emoji_code, reaction_type FROM reactions WHERE message_id = ? ORDER BY rowid').all(messageId);

  async function uploadEmoji(client: ChatClient, name = unique('custom', '_')): Promise<{ name: string; id: string }> {
    await client.call(uploadCustomEmoji, { emoji_name: name }, { files: [png()] });
    const { emoji } = await owner.call(getCustomEmoji, {});
    return { name, id: Object.values(emoji).find((e) => e.name === name && !e.deactivated)!.id };
  }

  describe('POST /messages/{message_id}/reactions', () => {
    it('adds a Unicode emoji by name, shows it on the message and tells the recipients', async () => {
      const reader = org.addUser();
      const id = await channelMessage([reader]);
      const events = await listen(await as(reader), ['reaction']);
      const res = await owner.call(addReaction, { message_id: id, emoji_name: 'octopus' });
      expect(openapiErrors('post', '/messages/{message_id}/reactions', 200, res)).toEqual([]);
      expect(reactionsOf(id)).toEqual([{ user_id: org.owner.id, emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' }]);
      const fetched = await owner.call(getMessages, { anchor: String(id), num_before: 0, num_after: 0 });
      expect(openapiErrors('get', '/messages', 200, fetched)).toEqual([]);
      expect(fetched.messages[0]!.reactions).toEqual([{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: org.owner.id }]);
      const got = await events();
      expect(got).toEqual([
        expect.objectContaining({
          type: 'reaction',
          op: 'add',
          user_id: org.owner.id,
          user: { user_id: org.owner.id, email: org.owner.email, full_name: 'Olivia Owner' },
          message_id: id,
          emoji_name: 'octopus',
          emoji_code: '1f419',
          reaction_type: 'unicode_emoji',
        }),
      ]);
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: got })).toEqual([]);
    });

    it('refuses the same reaction twice with REACTION_ALREADY_EXISTS', async () => {
      const id = await channelMessage([]);
      await owner.call(addReaction, { message_id: id, emoji_name: 'tada' });
      const res = await rawRequest(org, kind, { method: 'POST', path: `/messages/${id}/reactions`, body: [['emoji_name', 'congratulations']] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'Reaction already exists.', code: 'REACTION_ALREADY_EXISTS' });
    });

    it('joins an existing reaction under its name, even one that would not validate today', async () => {
      const a = org.addUser();
      const b = org.addUser();
      const id = await channelMessage([a, b]);
      await owner.call(addReaction, { message_id: id, emoji_name: '+1' });
      await (await as(a)).call(addReaction, { message_id: id, emoji_name: 'thumbs_up' });
      await (await as(b)).call(addReaction, { message_id: id, emoji_name: 'made up name', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
      expect(reactionsOf(id).map((r) => (r as { emoji_name: string }).emoji_name)).toEqual(['+1', '+1', '+1']);
    });

    it('resolves the special zulip emoji', async () => {
      const id = await channelMessage([]);
      await owner.call(addReaction, { message_id: id, emoji_name: 'zulip' });
      expect(reactionsOf(id)).toEqual([{ user_id: org.owner.id, emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }]);
    });

    it('prefers a custom emoji to the Unicode one of the same name', async () => {
      const id = await channelMessage([]);
      const custom = await uploadEmoji(owner, 'heart');
      await owner.call(addReaction, { message_id: id, emoji_name: 'heart' });
      expect(reactionsOf(id)).toEqual([{ user_id: org.owner.id, emoji_name: 'heart', emoji_code: custom.id, reaction_type: 'realm_emoji' }]);
      await owner.call(deactivateCustomEmoji, { emoji_name: 'heart' });
    });

    it('gives a reader who never received the message a historical copy', async () => {
      const id = await channelMessage([]);
      const outsider = org.addUser();
      await (await as(outsider)).call(addReaction, { message_id: id, emoji_name: 'eyes' });
      expect(org.db.prepare('SELECT flags FROM user_messages WHERE user_id = ? AND message_id = ?').get(outsider.id, id)).toEqual({ flags: 1 | 256 });
    });

    it('refuses invalid emoji with the server’s messages', async () => {
      const id = await channelMessage([]);
      const custom = await uploadEmoji(owner);
      const retired = await uploadEmoji(owner);
      await owner.call(deactivateCustomEmoji, { emoji_name: retired.name });
      const cases: [[string, string][], string][] = [
        [[['emoji_name', 'no_such_emoji']], "Emoji 'no_such_emoji' does not exist"],
        [
          [
            ['emoji_name', 'smile'],
            ['emoji_code', 'fffff'],
            ['reaction_type', 'unicode_emoji'],
          ],
          'Invalid emoji code.',
        ],
        [
          [
            ['emoji_name', 'smile'],
            ['emoji_code', '1f44d'],
            ['reaction_type', 'unicode_emoji'],
          ],
          'Invalid emoji name.',
        ],
        [
          [
            ['emoji_name', 'zulip'],
            ['emoji_code', 'other'],
            ['reaction_type', 'zulip_extra_emoji'],
          ],
          'Invalid emoji code.',
        ],
        [
          [
            ['emoji_name', 'zulip2'],
            ['emoji_code', 'zulip'],
            ['reaction_type', 'zulip_extra_emoji'],
          ],
          'Invalid emoji name.',
        ],
        [
          [
            ['emoji_name', 'x'],
            ['emoji_code', '99999'],
            ['reaction_type', 'realm_emoji'],
          ],
          'Invalid custom emoji.',
        ],
        [
          [
            ['emoji_name', 'wrong_name'],
            ['emoji_code', custom.id],
            ['reaction_type', 'realm_emoji'],
          ],
          'Invalid custom emoji name.',
        ],
        [
          [
            ['emoji_name', retired.name],
            ['emoji_code', retired.id],
            ['reaction_type', 'realm_emoji'],
          ],
          'This custom emoji has been deactivated.',
        ],
        [
          [
            ['emoji_name', 'smile'],
            ['emoji_code', '263a'],
            ['reaction_type', 'sticker'],
          ],
          'Invalid emoji type.',
        ],
      ];
      for (const [body, msg] of cases) {
        const res = await rawRequest(org, kind, { method: 'POST', path: `/messages/${id}/reactions`, body });
        expect(res.status, msg).toBe(400);
        expect(res.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
      }
      expect(reactionsOf(id)).toEqual([]);
    });

    it('answers Invalid message(s) for a message the caller cannot read', async () => {
      const a = org.addUser();
      const dm = await owner.call(sendMessage, { type: 'direct', to: JSON.stringify([a.id]), content: 'x' });
      const e = await failure((await as(org.addUser())).call(addReaction, { message_id: dm.id, emoji_name: 'smile' }));
      expect(e).toMatchObject({ msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
    });
  });

  describe('DELETE /messages/{message_id}/reactions', () => {
    it('removes one’s own reaction by name or code, and tells the recipients', async () => {
      const reader = org.addUser();
      const id = await channelMessage([reader]);
      await owner.call(addReaction, { message_id: id, emoji_name: 'tada' });
      await owner.call(addReaction, { message_id: id, emoji_name: 'fire' });
      const events = await listen(await as(reader), ['reaction']);
      const res = await owner.call(removeReaction, { message_id: id, emoji_name: 'congratulations' });
      expect(openapiErrors('delete', '/messages/{message_id}/reactions', 200, res)).toEqual([]);
      await owner.call(removeReaction, { message_id: id, emoji_code: '1f525' });
      expect(reactionsOf(id)).toEqual([]);
      const got = await events();
      expect(got.map((e) => [e.op, e.emoji_name, e.emoji_code])).toEqual([
        ['remove', 'tada', '1f389'],
        ['remove', 'fire', '1f525'],
      ]);
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: got })).toEqual([]);
    });

    it('takes unicode_emoji as the default type, so custom emoji need their type', async () => {
      const id = await channelMessage([]);
      const custom = await uploadEmoji(owner);
      await owner.call(addReaction, { message_id: id, emoji_name: custom.name });
      const e = await failure(owner.call(removeReaction, { message_id: id, emoji_name: custom.name }));
      expect(e).toMatchObject({ msg: "Reaction doesn't exist.", code: 'REACTION_DOES_NOT_EXIST', status: 400 });
      await owner.call(removeReaction, { message_id: id, emoji_name: custom.name, reaction_type: 'realm_emoji' });
      expect(reactionsOf(id)).toEqual([]);
    });

    it('needs a name or a code, and a reaction to remove', async () => {
      const id = await channelMessage([]);
      const none = await rawRequest(org, kind, { method: 'DELETE', path: `/messages/${id}/reactions` });
      expect(none.body).toEqual({
        result: 'error',
        msg: 'At least one of the following arguments must be present: emoji_name, emoji_code',
        code: 'BAD_REQUEST',
      });
      const missing = await rawRequest(org, kind, { method: 'DELETE', path: `/messages/${id}/reactions`, body: [['emoji_name', 'smile']] });
      expect(missing.body).toEqual({ result: 'error', msg: "Reaction doesn't exist.", code: 'REACTION_DOES_NOT_EXIST' });
      const unknown = await rawRequest(org, kind, { method: 'DELETE', path: `/messages/${id}/reactions`, body: [['emoji_name', 'no_such_emoji']] });
      expect(unknown.body).toEqual({ result: 'error', msg: "Emoji 'no_such_emoji' does not exist", code: 'BAD_REQUEST' });
    });
  });

  describe('custom emoji', () => {
    it('uploads an image, stores it in the data directory, lists it and announces the whole set', async () => {
      const member = org.addUser();
      const events = await listen(owner, ['realm_emoji']);
      const name = unique('party parrot', '_');
      const res = await (await as(member)).call(uploadCustomEmoji, { emoji_name: name }, { files: [png('Parrot.PNG')] });
      expect(openapiErrors('post', '/realm/emoji/{emoji_name}', 200, res)).toEqual([]);
      const stored = name.replace(/ /g, '_');
      const list = await owner.call(getCustomEmoji, {});
      expect(openapiErrors('get', '/realm/emoji', 200, list)).toEqual([]);
      const entry = Object.values(list.emoji).find((e) => e.name === stored)!;
      expect(entry).toEqual({
        id: entry.id,
        name: stored,
        source_url: `/user_avatars/2/emoji/images/${entry.id}.png`,
        still_url: null,
        deactivated: false,
        author_id: member.id,
      });
      expect(list.emoji[entry.id]).toBe(entry);
      const file = join(org.dataDir, 'emoji', `${entry.id}.png`);
      expect(existsSync(file)).toBe(true);
      expect(readFileSync(file).equals(PNG)).toBe(true);
      const got = await events();
      expect(got).toEqual([expect.objectContaining({ type: 'realm_emoji', op: 'update', realm_emoji: list.emoji })]);
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: got })).toEqual([]);
    });

    it('gives register the same realm_emoji as GET /realm/emoji and the realm_emoji events', async () => {
      const member = await as(org.addUser());
      await uploadEmoji(member);
      const retired = await uploadEmoji(owner);
      await owner.call(deactivateCustomEmoji, { emoji_name: retired.name });
      const list = await owner.call(getCustomEmoji, {});
      const state = await member.call(register, { fetch_event_types: ['realm_emoji'], event_types: ['realm_emoji'] });
      expect(state.realm_emoji).toEqual(list.emoji);
    });

    it('checks the name, the file and the permission in the server’s order', async () => {
      const member = await as(org.addUser());
      const taken = await uploadEmoji(owner);
      const cases: [string, UploadedFile[], string, string][] = [
        ['Upper', [png()], 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.', 'BAD_REQUEST'],
        ['trailing_', [png()], 'Emoji names must end with either a letter or digit.', 'BAD_REQUEST'],
        [taken.name, [png()], 'A custom emoji with this name already exists.', 'BAD_REQUEST'],
        [unique('none', '_'), [], 'You must upload exactly one file.', 'BAD_REQUEST'],
        [unique('two', '_'), [png('a.png'), png('b.png')], 'You must upload exactly one file.', 'BAD_REQUEST'],
        ['octopus', [png()], 'Only administrators can override default emoji.', 'BAD_REQUEST'],
        [unique('big', '_'), [png('big.png', new Uint8Array(5 * 1024 * 1024 + 1))], 'Uploaded file is larger than the allowed limit of 5 MiB', 'BAD_REQUEST'],
        [
          unique('text', '_'),
          [{ field: 'file', filename: 'notes.png', contentType: 'image/png', data: Buffer.from('not an image') }],
          'Invalid image format',
          'BAD_IMAGE',
        ],
      ];
      for (const [name, files, msg, code] of cases) {
        const e = await failure(member.call(uploadCustomEmoji, { emoji_name: name }, { files }));
        expect(e, msg).toMatchObject({ msg, code, status: 400 });
      }
      const blank = await rawRequest(org, kind, { method: 'POST', path: '/realm/emoji/%20', files: [png()] });
      expect(blank.body).toMatchObject({ msg: 'Emoji name is missing' });
    });

    it('lets an administrator override a built-in name', async () => {
      await owner.call(uploadCustomEmoji, { emoji_name: 'rocket' }, { files: [png()] });
      await owner.call(deactivateCustomEmoji, { emoji_name: 'rocket' });
    });

    it('lets the author or an administrator deactivate, and keeps the emoji listed as deactivated', async () => {
      const author = org.addUser();
      const other = org.addUser();
      const mine = await uploadEmoji(await as(author));
      const e = await failure((await as(other)).call(deactivateCustomEmoji, { emoji_name: mine.name }));
      expect(e).toMatchObject({ msg: 'Must be an organization administrator or emoji author', code: 'BAD_REQUEST' });
      const res = await (await as(author)).call(deactivateCustomEmoji, { emoji_name: mine.name });
      expect(openapiErrors('delete', '/realm/emoji/{emoji_name}', 200, res)).toEqual([]);
      expect((await owner.call(getCustomEmoji, {})).emoji[mine.id]).toMatchObject({ deactivated: true });
      const again = await rawRequest(org, kind, { method: 'DELETE', path: `/realm/emoji/${mine.name}` });
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ result: 'error', msg: `Emoji '${mine.name}' does not exist`, code: 'BAD_REQUEST' });
      const byAdmin = await uploadEmoji(await as(other));
      await owner.call(deactivateCustomEmoji, { emoji_name: byAdmin.name });
    });

    it('keeps reactions with a deactivated emoji, and lets others join them', async () => {
      const joiner = org.addUser();
      const id = await channelMessage([joiner]);
      const custom = await uploadEmoji(owner);
      await owner.call(addReaction, { message_id: id, emoji_name: custom.name });
      await owner.call(deactivateCustomEmoji, { emoji_name: custom.name });
      await (await as(joiner)).call(addReaction, { message_id: id, emoji_name: custom.name, emoji_code: custom.id, reaction_type: 'realm_emoji' });
      expect(reactionsOf(id)).toHaveLength(2);
    });
  });
});
