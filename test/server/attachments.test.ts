import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAttachments, removeAttachment, uploadFile } from '../../src/api/operations/attachments.js';
import { sendMessage, updateMessage } from '../../src/api/operations/messages.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';
import { storedFile } from '../helpers/uploads.js';

/** A queue of `attachment` events only (sending and editing also produce message events). */
const attachmentQueue = (org: TestOrg, user: TestUser) => openQueue(org, user, { eventTypes: ['attachment'] });

describe.each(TRANSPORTS)('attachments over %s', (kind) => {
  let org: TestOrg;
  let ann: TestUser;
  let bob: TestUser;
  const upload = async (user: TestUser, name: string, text: string) => {
    const res = await (await clientFor(org, kind, user)).call(
      uploadFile,
      {},
      { files: [{ field: 'f', filename: name, contentType: 'text/plain', data: new TextEncoder().encode(text) }] },
    );
    const pathId = decodeURIComponent(res.uri.slice('/user_uploads/'.length));
    const { id } = org.db.prepare('SELECT id FROM attachments WHERE path_id = ?').get(pathId) as { id: number };
    return { id, pathId, uri: res.uri, file: storedFile(org, pathId) };
  };

  /** A direct message through the real send, which links the uploads it mentions. */
  const sendDirect = async (sender: TestUser, to: TestUser, content: string) =>
    (await (await clientFor(org, kind, sender)).call(sendMessage, { type: 'direct', to: JSON.stringify([to.id]), content })).id;
  const edit = async (user: TestUser, messageId: number, content: string) =>
    (await clientFor(org, kind, user)).call(updateMessage, { message_id: messageId, content });

  beforeAll(() => {
    org = createTestOrg();
    ann = org.addUser({ name: 'Ann' });
    bob = org.addUser({ name: 'Bob' });
  });
  afterAll(() => org.close());

  describe('GET /attachments', () => {
    it("lists the caller's own uploads, in milliseconds, with the whole organization's usage", async () => {
      const mine = await upload(ann, 'mine.txt', '12345');
      await upload(bob, 'theirs.txt', '1234567');
      const res = await (await clientFor(org, kind, ann)).call(getAttachments, {});
      expect(openapiErrors('get', '/attachments', 200, res)).toEqual([]);
      expect(res.attachments.find((a) => a.id === mine.id)).toEqual({
        id: mine.id,
        name: 'mine.txt',
        path_id: mine.pathId,
        size: 5,
        create_time: org.clock.now() * 1000,
        messages: [],
      });
      const owners = org.db
        .prepare('SELECT DISTINCT owner_id FROM attachments WHERE id IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify(res.attachments.map((a) => a.id)));
      expect(owners).toEqual([{ owner_id: ann.id }]);
      const total = (org.db.prepare('SELECT sum(size) AS n FROM attachments').get() as { n: number }).n;
      expect(res.upload_space_used).toBe(total);
      expect(total).toBeGreaterThanOrEqual(12);
    });

    it('lists an empty set for someone who never uploaded', async () => {
      const res = await (await clientFor(org, kind, org.addUser())).call(getAttachments, {});
      expect(res.attachments).toEqual([]);
    });

    it('lists the messages linking each upload, with date_sent in milliseconds', async () => {
      const file = await upload(ann, 'plan.txt', 'plan');
      const q = attachmentQueue(org, ann);
      org.clock.advance(30);
      const first = await sendDirect(ann, bob, `see [plan](${file.uri})`);
      org.clock.advance(30);
      const second = await sendDirect(ann, bob, `again: ${await org.http()}${file.uri} and text`);
      const res = await (await clientFor(org, kind, ann)).call(getAttachments, {});
      const listed = res.attachments.find((a) => a.id === file.id)!;
      const sent = (id: number) => (org.db.prepare('SELECT date_sent FROM messages WHERE id = ?').get(id) as { date_sent: number }).date_sent * 1000;
      expect(listed.messages).toEqual([
        { id: first, date_sent: sent(first) },
        { id: second, date_sent: sent(second) },
      ]);
      expect(openapiErrors('get', '/attachments', 200, res)).toEqual([]);
      const events = takeEvents(org, q);
      expect(events.map((e) => e.op)).toEqual(['update', 'update']);
      expect(events[1]).toMatchObject({ type: 'attachment', op: 'update', attachment: { id: file.id, messages: [{ id: first }, { id: second }] } });
      expect(eventErrors(events[1]!)).toEqual([]);
    });
  });

  describe('linking uploads to messages', () => {
    it("links only the sender's own uploads, written plainly or URL-encoded", async () => {
      const accented = await upload(ann, 'café menu.txt', 'menu');
      const bobs = await upload(bob, 'bob.txt', 'bob');
      expect(accented.uri).toContain('caf%C3%A9-menu.txt');
      const plain = await sendDirect(ann, bob, `/user_uploads/${accented.pathId} and /user_uploads/${bobs.pathId}`);
      const encoded = await sendDirect(ann, bob, `[menu](${accented.uri})`);
      const links = org.db
        .prepare('SELECT message_id, attachment_id FROM attachment_messages WHERE message_id IN (?, ?) ORDER BY message_id')
        .all(plain, encoded);
      expect(links).toEqual([
        { message_id: plain, attachment_id: accented.id },
        { message_id: encoded, attachment_id: accented.id },
      ]);
    });

    it('replaces the links when the content changes, announcing only new ones', async () => {
      const a = await upload(ann, 'a.txt', 'a');
      const b = await upload(ann, 'b.txt', 'b');
      const id = await sendDirect(ann, bob, `[a](${a.uri})`);
      const q = attachmentQueue(org, ann);
      await edit(ann, id, `[a](${a.uri}) [b](${b.uri})`);
      expect(takeEvents(org, q)).toMatchObject([{ op: 'update', attachment: { id: b.id } }]);
      await edit(ann, id, `[b](${b.uri})`);
      expect(takeEvents(org, q)).toEqual([]);
      expect(org.db.prepare('SELECT attachment_id FROM attachment_messages WHERE message_id = ?').all(id)).toEqual([{ attachment_id: b.id }]);
      await edit(ann, id, 'nothing left');
      expect(org.db.prepare('SELECT attachment_id FROM attachment_messages WHERE message_id = ?').all(id)).toEqual([]);
    });
  });

  describe('DELETE /attachments/{attachment_id}', () => {
    it('deletes the record and the file, and tells the owner', async () => {
      const file = await upload(ann, 'gone.txt', 'bye');
      await sendDirect(ann, bob, file.uri);
      const q = attachmentQueue(org, ann);
      const res = await (await clientFor(org, kind, ann)).call(removeAttachment, { attachment_id: file.id });
      expect(res).toEqual({ result: 'success', msg: '' });
      expect(existsSync(file.file)).toBe(false);
      expect(org.db.prepare('SELECT 1 FROM attachments WHERE id = ?').get(file.id)).toBeUndefined();
      expect(org.db.prepare('SELECT 1 FROM attachment_messages WHERE attachment_id = ?').get(file.id)).toBeUndefined();
      const total = (org.db.prepare('SELECT coalesce(sum(size), 0) AS n FROM attachments').get() as { n: number }).n;
      const events = takeEvents(org, q);
      expect(events).toEqual([{ type: 'attachment', op: 'remove', attachment: { id: file.id }, upload_space_used: total }]);
      expect(eventErrors(events[0]!)).toEqual([]);
    });

    it("refuses someone else's upload, an unknown one, and one already deleted, as an invalid attachment", async () => {
      const file = await upload(ann, 'kept.txt', 'kept');
      const invalid = { result: 'error', msg: 'Invalid attachment', code: 'BAD_REQUEST' };
      const del = (user: TestUser | null, id: number) => rawRequest(org, kind, { method: 'DELETE', path: `/attachments/${id}` }, user);
      expect((await del(bob, file.id)).body).toEqual(invalid);
      expect((await del(org.owner, file.id)).body).toEqual(invalid);
      expect((await del(ann, 999999)).body).toEqual(invalid);
      expect(existsSync(file.file)).toBe(true);
      expect((await del(ann, file.id)).status).toBe(200);
      const again = await del(ann, file.id);
      expect(again.status).toBe(400);
      expect(again.body).toEqual(invalid);
      const anonymous = await del(null, file.id);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ code: 'UNAUTHORIZED' });
    });
  });
});
