/**
 * PATCH /realm for the organization's name and description, as a Zulip server answers it
 * (zerver/views/realm.py update_realm): administrators only, "updated" for each string that changed and
 * nothing for one that did not, a `realm` `update` event per change, limits of 40 and 1000 characters
 * checked before anything is written. GET /server_settings shows the new name, the description rendered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServerSettings, updateRealm } from '../../src/api/operations/server.js';
import { bad, flatFailure } from '../helpers/api.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('the organization name over %s', (kind) => {
  let org: TestOrg;
  let admin: TestUser;
  let member: TestUser;
  beforeAll(() => {
    org = createTestOrg();
    admin = org.addUser({ role: 200 });
    member = org.addUser();
  });
  afterAll(() => org.close());

  const as = (user: TestUser) => clientFor(org, kind, user);

  it('renames the organization and sets its description, telling everyone; server_settings shows them', async () => {
    const q = openQueue(org, member);
    const answer = await (await as(admin)).call(updateRealm, { name: `Acme ${kind}`, description: 'We make **anvils**.' });
    expect(answer).toEqual({ result: 'success', msg: '', name: 'updated', description: 'updated' });
    const events = takeEvents(org, q);
    // In update_realm's parameter order, which today's Zulip keeps alphabetical.
    expect(events).toEqual([
      { type: 'realm', op: 'update', property: 'description', value: 'We make **anvils**.' },
      { type: 'realm', op: 'update', property: 'name', value: `Acme ${kind}` },
    ]);
    for (const e of events) expect(eventErrors(e)).toEqual([]);
    const settings = await (await as(member)).call(getServerSettings, {});
    expect(openapiErrors('GET', '/server_settings', 200, settings)).toEqual([]);
    expect(settings.realm_name).toBe(`Acme ${kind}`);
    expect(settings.realm_description).toBe('<p>We make <strong>anvils</strong>.</p>');
  });

  it('answers nothing and tells no one for a value that does not change', async () => {
    const owner = await as(org.owner);
    await owner.call(updateRealm, { name: `Same ${kind}` });
    const q = openQueue(org, member);
    expect(await owner.call(updateRealm, { name: `Same ${kind}` })).toEqual({ result: 'success', msg: '' });
    expect(takeEvents(org, q)).toEqual([]);
  });

  it('refuses a name over 40 characters or a description over 1000, writing neither', async () => {
    const owner = await as(org.owner);
    await owner.call(updateRealm, { name: `Before ${kind}` });
    expect(await flatFailure(owner.call(updateRealm, { name: 'n'.repeat(41), description: 'fine' }))).toEqual(bad('name is too long (limit: 40 characters)'));
    expect(await flatFailure(owner.call(updateRealm, { name: 'ok', description: 'd'.repeat(1001) }))).toEqual(
      bad('description is too long (limit: 1000 characters)'),
    );
    // Code points, not UTF-16 units: 40 emoji are a name of 40 characters.
    expect(await owner.call(updateRealm, { name: '🦊'.repeat(40) })).toMatchObject({ name: 'updated' });
    expect((await owner.call(getServerSettings, {})).realm_name).toBe('🦊'.repeat(40));
  });

  it('is for administrators', async () => {
    expect(await flatFailure((await as(member)).call(updateRealm, { name: 'Mine' }))).toEqual({
      msg: 'Must be an organization administrator',
      code: 'UNAUTHORIZED_PRINCIPAL',
      status: 400,
    });
  });
});
