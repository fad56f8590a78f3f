import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRealmDomain, getRealmDomains, removeRealmDomain, updateRealmDomain } from '../../src/api/operations/domains.js';
import { getSetting, setSetting } from '../../src/server/model/realm.js';
import { bad, flatFailure } from '../helpers/api.js';
import { eventErrors, openQueue, takeEvents } from '../helpers/events.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, TRANSPORTS } from '../helpers/transports.js';

describe.each(TRANSPORTS)('allowed domains over %s', (kind) => {
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

  it('adds (lower-cased), lists, changes and removes domains, telling everyone', async () => {
    const owner = await as(org.owner);
    const q = openQueue(org, member);
    const added = await owner.call(addRealmDomain, { domain: '  Example.COM ', allow_subdomains: false });
    expect(added.new_domain).toEqual([expect.any(Number), 'example.com']);
    await owner.call(addRealmDomain, { domain: 'example.org', allow_subdomains: true });
    const listed = await (await as(member)).call(getRealmDomains, {});
    expect(listed).toEqual({
      result: 'success',
      msg: '',
      domains: [
        { domain: 'example.com', allow_subdomains: false },
        { domain: 'example.org', allow_subdomains: true },
      ],
    });
    await owner.call(updateRealmDomain, { domain: 'example.com', allow_subdomains: true });
    await owner.call(removeRealmDomain, { domain: 'example.org' });
    const events = takeEvents(org, q);
    expect(events).toEqual([
      { type: 'realm_domains', op: 'add', realm_domain: { domain: 'example.com', allow_subdomains: false } },
      { type: 'realm_domains', op: 'add', realm_domain: { domain: 'example.org', allow_subdomains: true } },
      { type: 'realm_domains', op: 'change', realm_domain: { domain: 'example.com', allow_subdomains: true } },
      { type: 'realm_domains', op: 'remove', domain: 'example.org' },
    ]);
    for (const e of events) expect(eventErrors(e)).toEqual([]);
    expect((await owner.call(getRealmDomains, {})).domains).toEqual([{ domain: 'example.com', allow_subdomains: true }]);
    await owner.call(removeRealmDomain, { domain: 'example.com' });
  });

  it('lifts the restriction to listed domains when the last one goes', async () => {
    const owner = await as(org.owner);
    await owner.call(addRealmDomain, { domain: 'only.example', allow_subdomains: false });
    setSetting(org.db, 'emails_restricted_to_domains', true);
    const q = openQueue(org, member);
    await owner.call(removeRealmDomain, { domain: 'only.example' });
    expect(getSetting(org.db, 'emails_restricted_to_domains')).toBe(false);
    expect(takeEvents(org, q)).toEqual([
      { type: 'realm_domains', op: 'remove', domain: 'only.example' },
      { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false },
    ]);
  });

  it.each([
    ['', "Domain can't be empty."],
    ['localhost', 'Domain must have at least one dot (.)'],
    [`${'a'.repeat(250)}.example`, 'Domain is too long'],
    ['.example.com', 'Domain cannot start or end with a dot (.)'],
    ['example..com', "Consecutive '.' are not allowed."],
    ['-bad.example.com', "Subdomains cannot start or end with a '-'."],
    ['under_score.example.com', "Domain can only have letters, numbers, '.' and '-'s."],
  ])('refuses the domain %j', async (domain, reason) => {
    expect(await flatFailure((await as(org.owner)).call(addRealmDomain, { domain, allow_subdomains: false }))).toEqual(bad(`Invalid domain: ${reason}`));
  });

  it('refuses a domain twice, and unknown domains (matched exactly) to change or remove', async () => {
    const owner = await as(org.owner);
    await owner.call(addRealmDomain, { domain: 'twice.example', allow_subdomains: false });
    expect(await flatFailure(owner.call(addRealmDomain, { domain: 'TWICE.example', allow_subdomains: true }))).toEqual(
      bad('The domain twice.example is already a part of your organization.'),
    );
    expect(await flatFailure(owner.call(updateRealmDomain, { domain: 'TWICE.example', allow_subdomains: true }))).toEqual(
      bad('No entry found for domain TWICE.example.'),
    );
    expect(await flatFailure(owner.call(removeRealmDomain, { domain: 'never.example' }))).toEqual(bad('No entry found for domain never.example.'));
    await owner.call(removeRealmDomain, { domain: 'twice.example' });
  });

  it('is for owners only, administrators included', async () => {
    expect(await flatFailure((await as(admin)).call(addRealmDomain, { domain: 'admin.example', allow_subdomains: false }))).toEqual({
      msg: 'Must be an organization owner',
      code: 'UNAUTHORIZED_PRINCIPAL',
      status: 400,
    });
  });

  it('requires allow_subdomains as a JSON boolean', async () => {
    const missing = await rawRequest(org, kind, { method: 'POST', path: '/realm/domains', body: [['domain', 'x.example']] });
    expect(missing.body).toEqual({
      result: 'error',
      msg: "Missing 'allow_subdomains' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'allow_subdomains',
    });
    const notBool = await rawRequest(org, kind, {
      method: 'POST',
      path: '/realm/domains',
      body: [
        ['domain', 'x.example'],
        ['allow_subdomains', 'yes'],
      ],
    });
    expect(notBool.body).toEqual({ result: 'error', msg: 'allow_subdomains is not valid JSON', code: 'BAD_REQUEST' });
  });
});
