import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCustomProfileField,
  deleteCustomProfileField,
  getCustomProfileFields,
  removeOwnProfileData,
  reorderCustomProfileFields,
  updateCustomProfileField,
  updateOwnProfileData,
} from '../../src/api/operations/profile-fields.js';
import type { CallParamsOf } from '../../src/api/operation.js';
import { getUser, getUsers, updateUser } from '../../src/api/operations/users.js';
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
  describe('changing definitions', () => {
    const fields = async () => (await (await as(member)).call(getCustomProfileFields, {})).custom_fields;
    const fieldOf = async (id: number) => (await fields()).find((f) => f.id === id);

    it('changes what is given, keeps the rest, and sends the whole list', async () => {
      const client = await as(admin);
      const { id } = await client.call(createCustomProfileField, { name: label('Desk'), field_type: 1, hint: 'Floor and number' });
      const q = openQueue(org, member);
      const name = label('Office');
      const res = await client.call(updateCustomProfileField, { field_id: id, name: `  ${name} `, required: true, editable_by_user: false });
      expect(res).toEqual({ result: 'success', msg: '' });
      const [event] = takeEvents(org, q);
      expect(eventErrors(event!)).toEqual([]);
      expect((event!.fields as { id: number }[]).find((f) => f.id === id)).toMatchObject({ name, hint: 'Floor and number', required: true });
      expect(await fieldOf(id)).toMatchObject({ name, hint: 'Floor and number', required: true, editable_by_user: false });
    });

    it("replaces a select field's choices and clears the values of choices that went", async () => {
      const client = await as(admin);
      const choices = { a: { text: 'Apple', order: '1' }, b: { text: 'Banana', order: '2' } };
      const { id } = await client.call(createCustomProfileField, { name: label('Fruit'), field_type: 3, field_data: choices });
      const [x, y] = [org.addUser(), org.addUser()];
      await client.call(updateUser, { user_id: x.id, profile_data: [{ id, value: 'a' }] });
      await client.call(updateUser, { user_id: y.id, profile_data: [{ id, value: 'b' }] });
      await client.call(updateCustomProfileField, { field_id: id, field_data: { a: { text: 'Apricot', order: '1' } } });
      expect((await fieldOf(id))!.field_data).toBe('{"a":{"text":"Apricot","order":"1"}}');
      const listed = await client.call(getUsers, { include_custom_profile_fields: true });
      expect(listed.members.find((u) => u.user_id === x.id)!.profile_data).toEqual({ [id]: { value: 'a' } });
      expect(listed.members.find((u) => u.user_id === y.id)!.profile_data).toEqual({});
    });

    it("refuses Zulip's way and changes nothing", async () => {
      const client = await as(admin);
      const taken = label('Taken');
      await client.call(createCustomProfileField, { name: taken, field_type: 1 });
      const { id } = await client.call(createCustomProfileField, { name: label('Plain'), field_type: 1 });
      const github =
        (await fields()).find((f) => f.name === 'GitHub')?.id ??
        (await client.call(createCustomProfileField, { field_type: 7, field_data: { subtype: 'github' } })).id;
      const before = await fields();
      const refusals: [CallParamsOf<typeof updateCustomProfileField>, string][] = [
        [{ field_id: 987654, hint: 'x' }, 'Field id 987654 not found.'],
        [{ field_id: id, name: ' ' }, 'Label cannot be blank.'],
        [{ field_id: id, name: 'N'.repeat(41) }, 'name is too long (limit: 40 characters)'],
        [{ field_id: id, hint: 'h'.repeat(81) }, 'hint is too long (limit: 80 characters)'],
        [{ field_id: id, name: taken }, 'A field with that label already exists.'],
        [{ field_id: github, name: 'My GitHub' }, 'Default custom field cannot be updated.'],
      ];
      for (const [params, msg] of refusals) {
        expect(await flatFailure(client.call(updateCustomProfileField, params)), msg).toEqual(bad(msg));
      }
      expect(await fields()).toEqual(before);
      // A default external account may still change its flags.
      await client.call(updateCustomProfileField, { field_id: github, required: true });
      expect((await fieldOf(github))!.required).toBe(true);
    });

    it('shows at most two fields in the profile summary, the field itself not counted', async () => {
      const fresh = createTestOrg();
      try {
        const client = await clientFor(fresh, kind);
        const [a, b, c] = [
          (await client.call(createCustomProfileField, { name: 'A', field_type: 1, display_in_profile_summary: true })).id,
          (await client.call(createCustomProfileField, { name: 'B', field_type: 1, display_in_profile_summary: true })).id,
          (await client.call(createCustomProfileField, { name: 'C', field_type: 1 })).id,
        ];
        await client.call(updateCustomProfileField, { field_id: a, display_in_profile_summary: true, hint: 'still shown' });
        expect(await flatFailure(client.call(updateCustomProfileField, { field_id: c, display_in_profile_summary: true }))).toEqual(
          bad('Only 2 custom profile fields can be displayed in the profile summary.'),
        );
        await client.call(updateCustomProfileField, { field_id: b, display_in_profile_summary: false });
        await client.call(updateCustomProfileField, { field_id: c, display_in_profile_summary: true });
        const shown = (await client.call(getCustomProfileFields, {})).custom_fields.filter((f) => f.display_in_profile_summary).map((f) => f.id);
        expect(shown).toEqual([a, c]);
      } finally {
        await fresh.close();
      }
    });

    it('reorders every field as listed, refuses a list that leaves one out, and sends the list', async () => {
      const fresh = createTestOrg();
      try {
        const client = await clientFor(fresh, kind);
        const ids: number[] = [];
        for (const name of ['One', 'Two', 'Three']) ids.push((await client.call(createCustomProfileField, { name, field_type: 1 })).id);
        // A new field's order is its ID, as on a Zulip server.
        expect((await client.call(getCustomProfileFields, {})).custom_fields.map((f) => f.order)).toEqual(ids);
        expect(await flatFailure(client.call(reorderCustomProfileFields, { order: [ids[2]!, ids[0]!] }))).toEqual(bad('Invalid order mapping.'));
        const q = openQueue(fresh, fresh.owner);
        const res = await client.call(reorderCustomProfileFields, { order: [ids[2]!, ids[0]!, ids[1]!, 999999] });
        expect(openapiErrors('patch', '/realm/profile_fields', 200, res)).toEqual([]);
        const listed = (await client.call(getCustomProfileFields, {})).custom_fields;
        expect(listed.map((f) => [f.id, f.order])).toEqual([
          [ids[2], 0],
          [ids[0], 1],
          [ids[1], 2],
        ]);
        expect(takeEvents(fresh, q)).toEqual([{ type: 'custom_profile_fields', fields: listed }]);
      } finally {
        await fresh.close();
      }
    });

    it("deletes a field with every user's value, sends the list, and never gives its ID again", async () => {
      const client = await as(admin);
      const { id } = await client.call(createCustomProfileField, { name: label('Temporary'), field_type: 1 });
      const target = org.addUser();
      await client.call(updateUser, { user_id: target.id, profile_data: [{ id, value: 'soon gone' }] });
      const q = openQueue(org, member);
      expect(await client.call(deleteCustomProfileField, { field_id: id })).toEqual({ result: 'success', msg: '' });
      const [event] = takeEvents(org, q);
      expect(event).toMatchObject({ type: 'custom_profile_fields' });
      expect((event!.fields as { id: number }[]).map((f) => f.id)).not.toContain(id);
      expect((await client.call(getUser, { user_id: target.id, include_custom_profile_fields: true })).user.profile_data).toEqual({});
      expect(await flatFailure(client.call(deleteCustomProfileField, { field_id: id }))).toEqual(bad(`Field id ${id} not found.`));
      expect((await client.call(createCustomProfileField, { name: label('Next'), field_type: 1 })).id).toBeGreaterThan(id);
    });
  });

  describe('own values', () => {
    it('sets and clears your own values, announcing each change', async () => {
      const client = await as(admin);
      const { id } = await client.call(createCustomProfileField, { name: label('Motto'), field_type: 1 });
      const me = org.addUser();
      const q = openQueue(org, member);
      const mine = await as(me);
      expect(await mine.call(updateOwnProfileData, { data: [{ id, value: '*carpe diem*' }] })).toEqual({ result: 'success', msg: '' });
      expect(takeEvents(org, q)).toEqual([
        {
          type: 'realm_user',
          op: 'update',
          person: { user_id: me.id, custom_profile_field: { id, value: '*carpe diem*', rendered_value: '<p><em>carpe diem</em></p>' } },
        },
      ]);
      expect(await mine.call(removeOwnProfileData, { data: [id] })).toEqual({ result: 'success', msg: '' });
      // Clearing a value that is not there is no error and says nothing.
      await mine.call(removeOwnProfileData, { data: [id] });
      expect(takeEvents(org, q)).toEqual([{ type: 'realm_user', op: 'update', person: { user_id: me.id, custom_profile_field: { id, value: null } } }]);
      expect((await mine.call(getUser, { user_id: me.id, include_custom_profile_fields: true })).user.profile_data).toEqual({});
    });

    it('leaves fields users may not edit to administrators, and checks values as for anyone', async () => {
      const client = await as(admin);
      const locked = (await client.call(createCustomProfileField, { name: label('Badge'), field_type: 1, editable_by_user: false })).id;
      const day = (await client.call(createCustomProfileField, { name: label('Start'), field_type: 4 })).id;
      const me = org.addUser();
      const mine = await as(me);
      const refused = bad('You are not allowed to change this field. Contact an administrator to update it.');
      // Nothing of a refused request is stored, the editable field before the locked one included.
      expect(
        await flatFailure(
          mine.call(updateOwnProfileData, {
            data: [
              { id: day, value: '2020-01-01' },
              { id: locked, value: 'x' },
            ],
          }),
        ),
      ).toEqual(refused);
      expect(await flatFailure(mine.call(removeOwnProfileData, { data: [locked] }))).toEqual(refused);
      expect(await flatFailure(mine.call(updateOwnProfileData, { data: [{ id: 987654, value: 'x' }] }))).toEqual(bad('Field id 987654 not found.'));
      expect(await flatFailure(mine.call(removeOwnProfileData, { data: [987654] }))).toEqual(bad('Field id 987654 not found.'));
      const names = org.db.prepare('SELECT name FROM custom_profile_fields WHERE id = ?').pluck();
      expect(await flatFailure(mine.call(updateOwnProfileData, { data: [{ id: day, value: 'soon' }] }))).toEqual(bad(`${names.get(day)} is not a date`));
      expect((await mine.call(getUser, { user_id: me.id, include_custom_profile_fields: true })).user.profile_data).toEqual({});
      const own = await as(admin);
      await own.call(updateOwnProfileData, { data: [{ id: locked, value: 'Staff' }] });
      expect((await own.call(getUser, { user_id: admin.id, include_custom_profile_fields: true })).user.profile_data?.[locked]).toMatchObject({
        value: 'Staff',
      });
    });
  });
});
