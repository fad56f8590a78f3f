import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../../src/api/operations/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('POST /register realm_bots over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('gives administrators every bot and owners their own, with the outgoing-webhook service and its token', async () => {
    const member = org.addUser();
    const hook = org.addUser({ name: 'Hook Bot', bot: { type: 3, ownerId: member.id, url: 'http://127.0.0.1:9/hook' } });
    const generic = org.addUser({ name: 'Other Bot', bot: { type: 1, ownerId: org.owner.id } });
    const asAdmin = await (await clientFor(org, kind)).call(register, { fetch_event_types: ['realm_bot'] });
    expect(openapiErrors('post', '/register', 200, asAdmin)).toEqual([]);
    const bots = asAdmin.realm_bots as Record<string, unknown>[];
    expect(bots.map((b) => b.user_id)).toEqual([hook.id, generic.id]);
    expect(bots[0]).toMatchObject({
      full_name: 'Hook Bot',
      owner_id: member.id,
      bot_type: 3,
      is_active: true,
      services: [{ base_url: 'http://127.0.0.1:9/hook', token: hook.row.service_token, interface: 1 }],
    });
    expect(bots[1]).toMatchObject({ services: [], api_key: generic.apiKey });
    const asOwner = await (await clientFor(org, kind, member)).call(register, { fetch_event_types: ['realm_bot'] });
    expect((asOwner.realm_bots as { user_id: number }[]).map((b) => b.user_id)).toEqual([hook.id]);
    const asOther = await (await clientFor(org, kind, org.addUser())).call(register, { fetch_event_types: ['realm_bot'] });
    expect(asOther.realm_bots).toEqual([]);
  });
});
