import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../../src/api/catalogue.js';
import { basicAuthHeader } from '../../src/api/wire.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { ANONYMOUS_MSG, CALLERS, DEACTIVATED_MSG, type Caller, type Fixture, type PermissionCase } from './permissions/matrix.js';
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

const AREAS: Record<string, PermissionCase[]> = {
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
  'profile-fields': profileFieldCases,
  invites: inviteCases,
  domains: domainCases,
  typing: typingCases,
  webhooks: webhookCases,
  attachments: attachmentCases,
  linkifiers: linkifierCases,
};

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

describe.each(Object.entries(AREAS))('permissions: %s', (_area, cases) => {
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
        others: {
          owner: org.addUser({ role: 100 }),
          admin: org.addUser({ role: 200 }),
          moderator: org.addUser({ role: 300 }),
          member: org.addUser({ role: 400 }),
          guest: org.addUser({ role: 600 }),
        },
      };
      const req = c.request(f);
      const headers: Record<string, string> = caller ? { authorization: basicAuthHeader(caller.email, caller.apiKey) } : {};
      const res = await org.router.handle({ query: [], body: [], ...req, headers });
      const body = res.body as { result: string; msg: string };
      if (c.allowed.includes(kind)) {
        expect(body, JSON.stringify(body)).toMatchObject({ result: 'success' });
        return;
      }
      expect(body.result).toBe('error');
      if (kind === 'anonymous') expect(body.msg).toBe(ANONYMOUS_MSG);
      else if (kind === 'deactivated') expect(body.msg).toBe(DEACTIVATED_MSG);
      else expect(body.msg).toBe(typeof c.denied === 'string' ? c.denied : c.denied[kind]);
    });
  });
});

// Bulk creation is POST /users given as a batch (Router.handleBatch): each of its requests meets the same
// checks, so every caller gets, row by row, what the matrix says it gets for one request.
describe.each(userCases.filter((c) => c.name.startsWith('create a user')))('permissions of a batch: $name', (c) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it.each(CALLERS)('as %s, row by row', async (kind) => {
    const caller = callerOf(org, kind);
    const others = {
      owner: org.addUser({ role: 100 }),
      admin: org.addUser({ role: 200 }),
      moderator: org.addUser({ role: 300 }),
      member: org.addUser({ role: 400 }),
      guest: org.addUser({ role: 600 }),
    };
    const headers: Record<string, string> = caller ? { authorization: basicAuthHeader(caller.email, caller.apiKey) } : {};
    const requests = [0, 1].map(() => ({ query: [], body: [], ...c.request({ org, caller, others }), headers }));
    const bodies = (await org.router.handleBatch(requests)).map((r) => r.body as { result: string; msg: string });
    const expected = c.allowed.includes(kind)
      ? 'success'
      : kind === 'anonymous'
        ? ANONYMOUS_MSG
        : kind === 'deactivated'
          ? DEACTIVATED_MSG
          : typeof c.denied === 'string'
            ? c.denied
            : c.denied[kind];
    expect(bodies.map((b) => (b.result === 'success' ? 'success' : b.msg))).toEqual([expected, expected]);
  });
});

describe('the permission matrix', () => {
  it('has a case for every operation the embedded server serves', () => {
    const org = createTestOrg();
    try {
      const covered = new Set<string>();
      for (const cases of Object.values(AREAS)) {
        for (const c of cases) {
          const caller = org.addUser({ role: 100 });
          const others = {
            owner: org.addUser({ role: 100 }),
            admin: org.addUser({ role: 200 }),
            moderator: org.addUser({ role: 300 }),
            member: org.addUser({ role: 400 }),
            guest: org.addUser({ role: 600 }),
          };
          const req = c.request({ org, caller, others });
          const op = org.router.match(req.method, req.path);
          if (op) covered.add(op.name);
        }
      }
      const served = catalogue.filter((op) => op.before === undefined).map((op) => op.name);
      expect(served.filter((name) => !covered.has(name))).toEqual([]);
    } finally {
      void org.close();
    }
  });
});
