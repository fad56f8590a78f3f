import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomProfileField, getCustomProfileFields } from '../../src/api/operations/profile-fields.js';
import { getUser, updateUser } from '../../src/api/operations/users.js';
import { bad, flatFailure } from '../helpers/api.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('custom profile fields over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  let member: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
    member = org.addUser({ name: 'Mel Member' });
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);
  let n = 0;
  const label = (base: string) => `${base} ${++n}`;

  describe('definitions', () => {
    it('creates fields of every type, lists them in order, and sends the whole list', async () => {
      const q = openQueue(org, member);
      const client = await as(admin);
      const phone = label('Phone');
      const created = await client.call(createCustomProfileField, { name: phone, field_type: 1, hint: 'With country code' });
      expect(openapiErrors('post', '/realm/profile_fields', 200, created)).toEqual([]);
      const [event] = takeEvents(org, q);
      expect(event).toMatchObject({ type: 'custom_profile_fields' });
      expect(eventErrors(event!)).toEqual([]);
      await client.call(createCustomProfileField, {
        name: label('Editor'),
        field_type: 3,
        field_data: { vim: { text: 'Vim', order: '1' }, emacs: { text: 'Emacs', order: '2' } },
      });
      await client.call(createCustomProfileField, { field_type: 7, field_data: { subtype: 'github' }, display_in_profile_summary: true, required: true });
      await client.call(createCustomProfileField, {
        name: label('Blog'),
        field_type: 7,
        field_data: { subtype: 'custom', url_pattern: 'https://blog.example.com/%(username)s' },
      });
      await client.call(createCustomProfileField, { name: label('Pronouns'), field_type: 8, editable_by_user: false });
      const list = await (await as(member)).call(getCustomProfileFields, {});
      expect(openapiErrors('get', '/realm/profile_fields', 200, list)).toEqual([]);
      const fields = list.custom_fields;
      expect(fields.map((f) => f.order)).toEqual([...fields.map((f) => f.order)].sort((a, b) => a - b));
      expect(fields.find((f) => f.id === created.id)).toEqual({
        id: created.id,
        name: phone,
        type: 1,
        hint: 'With country code',
        field_data: '',
        order: fields.find((f) => f.id === created.id)!.order,
        required: false,
        editable_by_user: true,
      });
      expect(fields.find((f) => f.type === 3)!.field_data).toBe('{"vim":{"text":"Vim","order":"1"},"emacs":{"text":"Emacs","order":"2"}}');
      // A known external account takes its own name and hint.
      expect(fields.find((f) => f.name === 'GitHub')).toMatchObject({
        type: 7,
        hint: 'Enter your GitHub username',
        field_data: '{"subtype":"github"}',
        display_in_profile_summary: true,
        required: true,
      });
      expect(fields.find((f) => f.type === 8)!.editable_by_user).toBe(false);
    });

    it.each([
      ['an unknown type', { name: 'X field', field_type: 9 }, 'Invalid field type.'],
      ['a blank label', { name: '   ', field_type: 1 }, 'Label cannot be blank.'],
      ['a long label', { name: 'L'.repeat(41), field_type: 1 }, 'name is too long (limit: 40 characters)'],
      ['a long hint', { name: 'Hinted', hint: 'h'.repeat(81), field_type: 1 }, 'hint is too long (limit: 80 characters)'],
      ['a select without choices', { name: 'Empty select', field_type: 3, field_data: {} }, 'Field must have at least one choice.'],
      [
        'duplicate choices',
        { name: 'Dup select', field_type: 3, field_data: { a: { text: 'Same', order: '1' }, b: { text: 'Same', order: '2' } } },
        'Field must not have duplicate choices.',
      ],
      ['a blank choice', { name: 'Blank choice', field_type: 3, field_data: { a: { text: ' ', order: '1' } } }, 'field_data["text"] cannot be blank.'],
      ['a choice without order', { name: 'No order', field_type: 3, field_data: { a: { text: 'A' } } }, 'order key is missing from field_data'],
      ['a choice with extras', { name: 'Extras', field_type: 3, field_data: { a: { text: 'A', order: '1', color: 'red' } } }, 'Unexpected arguments: color'],
      ['an unknown account type', { name: 'Myspace', field_type: 7, field_data: { subtype: 'myspace' } }, 'Invalid external account type'],
      [
        'a custom account without a pattern',
        { name: 'Custom', field_type: 7, field_data: { subtype: 'custom' } },
        'Custom external account must define URL pattern',
      ],
      [
        'a pattern without the username',
        { name: 'Pattern', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://example.com/' } },
        "URL pattern must contain '%(username)s'.",
      ],
      [
        'long text in the summary',
        { name: 'Long summary', field_type: 2, display_in_profile_summary: true },
        'Field type not supported for display in profile summary.',
      ],
    ])('refuses %s', async (_what, params, msg) => {
      expect(await flatFailure((await as(admin)).call(createCustomProfileField, params))).toEqual(bad(msg));
    });

    it('refuses a label in use and a third summary field', async () => {
      const client = await as(admin);
      const name = label('Twice');
      await client.call(createCustomProfileField, { name, field_type: 1, display_in_profile_summary: true });
      expect(await flatFailure(client.call(createCustomProfileField, { name: name.toUpperCase(), field_type: 1 }))).toEqual(
        bad('A field with that label already exists.'),
      );
      expect(await flatFailure(client.call(createCustomProfileField, { name: label('Third'), field_type: 1, display_in_profile_summary: true }))).toEqual(
        bad('Only 2 custom profile fields can be displayed in the profile summary.'),
      );
    });

    it('takes field_type and field_data JSON-encoded', async () => {
      const res = await rawRequest(
        org,
        kind,
        {
          method: 'POST',
          path: '/realm/profile_fields',
          body: [
            ['name', 'Raw'],
            ['field_type', 'one'],
          ],
        },
        admin,
      );
      expect(res.body).toEqual({ result: 'error', msg: 'field_type is not valid JSON', code: 'BAD_REQUEST' });
    });
  });

  describe('values', () => {
    const field = async (p: { name: string; field_type: number; field_data?: Record<string, unknown> }): Promise<number> =>
      (await (await as(admin)).call(createCustomProfileField, { ...p, name: label(p.name) })).id;

    it('stores each type, renders text as Markdown, and announces each change', async () => {
      const target = org.addUser();
      const [short, long, select, date, link, users, account, pronouns] = [
        await field({ name: 'Short', field_type: 1 }),
        await field({ name: 'Long', field_type: 2 }),
        await field({ name: 'Pick', field_type: 3, field_data: { '0': { text: 'Zero', order: '1' } } }),
        await field({ name: 'Day', field_type: 4 }),
        await field({ name: 'Site', field_type: 5 }),
        await field({ name: 'Mentor', field_type: 6 }),
        await field({ name: 'Account', field_type: 7, field_data: { subtype: 'twitter' } }),
        await field({ name: 'Pron', field_type: 8 }),
      ];
      const q = openQueue(org, member);
      await (await as(admin)).call(updateUser, {
        user_id: target.id,
        profile_data: [
          { id: short!, value: '**bold**' },
          { id: long!, value: 'line one\nline two' },
          { id: select!, value: '0' },
          { id: date!, value: '1999-12-31' },
          { id: link!, value: 'https://example.com/me' },
          { id: users!, value: [member.id, admin.id] },
          { id: account!, value: 'zulip' },
          { id: pronouns!, value: 'they/them' },
        ],
      });
      const events = takeEvents(org, q);
      expect(events).toHaveLength(8);
      for (const e of events) expect(eventErrors(e)).toEqual([]);
      expect(events[0]).toEqual({
        type: 'realm_user',
        op: 'update',
        person: { user_id: target.id, custom_profile_field: { id: short, value: '**bold**', rendered_value: '<p><strong>bold</strong></p>' } },
      });
      const view = await (await as(member)).call(getUser, { user_id: target.id, include_custom_profile_fields: true });
      expect(view.user.profile_data).toEqual({
        [short!]: { value: '**bold**', rendered_value: '<p><strong>bold</strong></p>' },
        [long!]: { value: 'line one\nline two', rendered_value: '<p>line one<br>\nline two</p>' },
        [select!]: { value: '0' },
        [date!]: { value: '1999-12-31' },
        [link!]: { value: 'https://example.com/me' },
        [users!]: { value: `[${member.id},${admin.id}]` },
        [account!]: { value: 'zulip' },
        [pronouns!]: { value: 'they/them' },
      });
      // The same value again changes nothing and says nothing.
      await (await as(admin)).call(updateUser, { user_id: target.id, profile_data: [{ id: short!, value: '**bold**' }] });
      expect(takeEvents(org, q)).toEqual([]);
    });

    it('clears a value with null or an empty value', async () => {
      const target = org.addUser();
      const short = await field({ name: 'Clearable', field_type: 1 });
      const users = await field({ name: 'Buddies', field_type: 6 });
      const client = await as(admin);
      await client.call(updateUser, {
        user_id: target.id,
        profile_data: [
          { id: short, value: 'x' },
          { id: users, value: [member.id] },
        ],
      });
      const q = openQueue(org, member);
      await client.call(updateUser, {
        user_id: target.id,
        profile_data: [
          { id: short, value: null },
          { id: users, value: [] },
        ],
      });
      expect(takeEvents(org, q)).toEqual([
        { type: 'realm_user', op: 'update', person: { user_id: target.id, custom_profile_field: { id: short, value: null } } },
        { type: 'realm_user', op: 'update', person: { user_id: target.id, custom_profile_field: { id: users, value: null } } },
      ]);
      expect((await client.call(getUser, { user_id: target.id, include_custom_profile_fields: true })).user.profile_data).toEqual({});
    });

    it('checks each value against its field type, naming the field', async () => {
      const target = org.addUser();
      const bot = org.addUser({ bot: { type: 1, ownerId: admin.id } });
      const gone = org.addUser({ active: false });
      const short = await field({ name: 'Nick', field_type: 1 });
      const long = await field({ name: 'About', field_type: 2 });
      const select = await field({ name: 'Team', field_type: 3, field_data: { red: { text: 'Red', order: '1' } } });
      const date = await field({ name: 'Birthday', field_type: 4 });
      const link = await field({ name: 'Homepage', field_type: 5 });
      const users = await field({ name: 'Manager', field_type: 6 });
      const names = Object.fromEntries(
        (org.db.prepare('SELECT id, name FROM custom_profile_fields').all() as { id: number; name: string }[]).map((r) => [r.id, r.name]),
      );
      const client = await as(admin);
      const cases: [number, unknown, string][] = [
        [short, 'n'.repeat(51), `${names[short]} is too long (limit: 50 characters)`],
        [short, [1], `${names[short]} is not a string`],
        [long, 'n'.repeat(501), `${names[long]} is too long (limit: 500 characters)`],
        [select, 'blue', `'blue' is not a valid choice for '${names[select]}'.`],
        [date, '1999-02-30', `${names[date]} is not a date`],
        [date, '12/31/1999', `${names[date]} is not a date`],
        [link, 'not a link', `${names[link]} is not a URL`],
        [users, 'me', 'User IDs is not a list'],
        [users, [999998, 999999], 'Invalid user IDs: 999998, 999999'],
        [users, [gone.id], `User with ID ${gone.id} is deactivated`],
        [users, [bot.id], `User with ID ${bot.id} is a bot`],
        [987654, 'x', 'Field id 987654 not found.'],
        [987654, null, 'Field id 987654 not found.'],
      ];
      for (const [id, value, msg] of cases) {
        const err = await flatFailure(client.call(updateUser, { user_id: target.id, profile_data: [{ id, value: value as string }] }));
        expect(err, `${id} ${JSON.stringify(value)}`).toEqual(bad(msg));
      }
    });
  });
});
