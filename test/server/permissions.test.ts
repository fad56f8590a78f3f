import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, catalogue, type AreaName } from '../../src/api/catalogue.js';
import type { Operation } from '../../src/api/operation.js';
import { FEATURE_LEVEL } from '../../src/api/param-levels.js';
import { basicAuthHeader } from '../../src/api/wire.js';
import { Routes } from '../../src/server/routes.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { ANONYMOUS_MSG, CALLERS, DEACTIVATED_MSG, type Caller, type Fixture, type PermissionCase, type PermissionRows } from './permissions/matrix.js';
import { serverCases } from './permissions/server.js';
import { userCases } from './permissions/users.js';
import { statusCases } from './permissions/status.js';
import { botCases } from './permissions/bots.js';
import { profileFieldCases } from './permissions/profile-fields.js';
import { inviteCases } from './permissions/invites.js';
import { domainCases } from './permissions/domains.js';
import { typingCases } from './permissions/typing.js';
import { webhookCases } from './permissions/webhooks.js';
import { attachmentCases } from './permissions/attachments.js';
import { linkifierCases } from './permissions/linkifiers.js';
import { channelCases } from './permissions/channels.js';
import { folderCases } from './permissions/folders.js';
import { groupCases } from './permissions/groups.js';
import { presenceCases } from './permissions/presence.js';
import { eventCases } from './permissions/events.js';
import { messageCases } from './permissions/messages.js';
import { reactionCases } from './permissions/reactions.js';

/** Every area's rows: a new area missing here fails `tsc -p tsconfig.test.json`, naming it. */
const AREAS: { readonly [A in AreaName]: PermissionRows<A> } = {
  server: serverCases,
  messages: messageCases,
  reactions: reactionCases,
  channels: channelCases,
  folders: folderCases,
  groups: groupCases,
  presence: presenceCases,
  events: eventCases,
  users: userCases,
  status: statusCases,
  bots: botCases,
  profileFields: profileFieldCases,
  invites: inviteCases,
  domains: domainCases,
  typing: typingCases,
  webhooks: webhookCases,
  attachments: attachmentCases,
  linkifiers: linkifierCases,
};

/** An area's cases, each with the name of the operation it is filed under. */
const casesOf = (rows: Readonly<Record<string, readonly PermissionCase[]>>): (PermissionCase & { op: string })[] =>
  Object.entries<readonly PermissionCase[]>(rows).flatMap(([op, cases]) => cases.map((c) => ({ ...c, op })));

/** One user of each role, made for a case, besides its caller. */
const othersOf = (org: TestOrg): Fixture['others'] => ({
  owner: org.addUser({ role: 100 }),
  admin: org.addUser({ role: 200 }),
  moderator: org.addUser({ role: 300 }),
  member: org.addUser({ role: 400 }),
  guest: org.addUser({ role: 600 }),
});

/** What a caller of `kind` gets from case `c`: 'success', or the message of its refusal. */
function expectedFor(c: PermissionCase, kind: Caller): string | undefined {
  if (c.allowed.includes(kind)) return 'success';
  if (kind === 'anonymous') return ANONYMOUS_MSG;
  if (kind === 'deactivated') return DEACTIVATED_MSG;
  return typeof c.denied === 'string' ? c.denied : c.denied[kind];
}

function callerOf(org: TestOrg, kind: Caller): TestUser | null {
  switch (kind) {
    case 'anonymous':
      return null;
    case 'owner':
      return org.addUser({ role: 100 });
    case 'admin':
      return org.addUser({ role: 200 });
    case 'moderator':
      return org.addUser({ role: 300 });
    case 'member':
      return org.addUser({ role: 400 });
    case 'guest':
      return org.addUser({ role: 600 });
    case 'bot':
      return org.addUser({ bot: { type: 1, ownerId: org.owner.id } });
    case 'deactivated':
      return org.addUser({ role: 200, active: false });
  }
}

describe.each(Object.entries(AREAS).map(([area, rows]) => [area, casesOf(rows)] as const))('permissions: %s', (_area, cases) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  describe.each(cases)('$name', (c) => {
    it.each(CALLERS)('as %s', async (kind) => {
      const caller = callerOf(org, kind);
      const f: Fixture = {
        org,
        caller,
        others: othersOf(org),
      };
      const req = c.request(f);
      const headers: Record<string, string> = caller ? { authorization: basicAuthHeader(caller.email, caller.apiKey) } : {};
      const res = await org.router.handle({ query: [], body: [], ...req, headers });
      const body = res.body as { result: string; msg: string };
      const expected = expectedFor(c, kind);
      if (expected === 'success') {
        expect(body, JSON.stringify(body)).toMatchObject({ result: 'success' });
        return;
      }
      expect(body.result).toBe('error');
      expect(body.msg).toBe(expected);
    });
  });
});

// Bulk creation is POST /users given as a batch (Router.handleBatch): each of its requests meets the same
// checks, so every caller gets, row by row, what the matrix says it gets for one request.
describe.each(userCases.createUser.filter((c) => c.name.startsWith('create a user')))('permissions of a batch: $name', (c) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it.each(CALLERS)('as %s, row by row', async (kind) => {
    const caller = callerOf(org, kind);
    const others = othersOf(org);
    const headers: Record<string, string> = caller ? { authorization: basicAuthHeader(caller.email, caller.apiKey) } : {};
    const requests = [0, 1].map(() => ({ query: [], body: [], ...c.request({ org, caller, others }), headers }));
    const bodies = (await org.router.handleBatch(requests)).map((r) => r.body as { result: string; msg: string });
    const expected = expectedFor(c, kind);
    expect(bodies.map((b) => (b.result === 'success' ? 'success' : b.msg))).toEqual([expected, expected]);
  });
});

describe('the permission matrix', () => {
  const routes = new Routes();
  it('has a case for every operation the embedded server serves, filed under the operation it calls', () => {
    const org = createTestOrg();
    try {
      const covered = new Set<string>();
      const misfiled: string[] = [];
      const nameOf = Object.fromEntries(
        Object.entries(CATALOGUE).map(([area, ops]) => [area, Object.fromEntries(Object.entries<Operation>(ops).map(([key, op]) => [key, op.name]))]),
      );
      for (const [area, rows] of Object.entries<Readonly<Record<string, readonly PermissionCase[]>>>(AREAS)) {
        for (const c of casesOf(rows)) {
          const caller = org.addUser({ role: 100 });
          const others = othersOf(org);
          const req = c.request({ org, caller, others });
          const op = routes.match(req.method, req.path, FEATURE_LEVEL);
          if (op) covered.add(op.name);
          if (op?.name !== nameOf[area]?.[c.op]) misfiled.push(`${area}.${c.op}: ${c.name} calls ${op?.name}`);
        }
      }
      const served = catalogue.filter((op) => op.before === undefined).map((op) => op.name);
      expect(served.filter((name) => !covered.has(name))).toEqual([]);
      expect(misfiled).toEqual([]);
    } finally {
      void org.close();
    }
  });
});
