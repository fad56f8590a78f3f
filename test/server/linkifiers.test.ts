import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addLinkifier, getLinkifiers, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../../src/api/operations/linkifiers.js';
import { compilePattern, urlTemplateVariables } from '../../src/server/model/linkifiers.js';
import { openQueue, takeEvents } from '../helpers/events.js';
import { openapiErrors } from '../helpers/openapi.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, rawRequest, statusAndBody, TRANSPORTS } from '../helpers/transports.js';

/** A queue of a client that understands URL templates (the only ones sent `realm_linkifiers`), unless told otherwise. */
const linkifierQueue = (org: TestOrg, user: TestUser, linkifierUrlTemplate = true) =>
  openQueue(org, user, { options: { client_capabilities: { linkifier_url_template: linkifierUrlTemplate } } });

describe('linkifier patterns', () => {
  it.each([
    ['#(?P<id>[0-9]+)', ['id']],
    ['(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>\\d+)', ['org', 'repo', 'id']],
    ['(?i)JIRA-(?P<id>\\d+)', ['id']],
    ['[(?P<x>]', []],
    ['\\(?P<x>', []],
    ['[]a](?P<n>b)', ['n']],
  ])('reads %j with the named groups %j', (pattern, groups) => {
    expect(compilePattern(pattern)).toMatchObject({ groups });
  });

  it('keeps a leading flag group', () => {
    const compiled = compilePattern('(?i)ticket-(?P<id>\\d+)');
    expect('regex' in compiled && compiled.regex.test('TICKET-12')).toBe(true);
  });

  it.each([
    ['(foo', /^missing \): \(foo$/],
    ['a(?=b)', /^invalid perl operator: \(\?=$/],
    ['(?<!a)b', /^invalid perl operator: \(\?<!$/],
    ['(?P<x>a)(?P=x)', /^invalid named capture group: \(\?P=$/],
    ['(a)\\1', /^invalid escape sequence: \\1$/],
    ['(?P<x>a)(?P<x>b)', /capture group name/i],
  ])('refuses %j as RE2 would', (pattern, message) => {
    const compiled = compilePattern(pattern);
    expect('error' in compiled && compiled.error).toMatch(message);
  });

  it.each([
    ['https://github.com/zulip/zulip/issues/{id}', ['id']],
    ['https://x.example/{+path}{?q,lang}{#frag}', ['path', 'q', 'lang', 'frag']],
    ['https://x.example/{id:3}/{list*}/{a.b}/{%41}', ['id', 'list', 'a.b', '%41']],
    ['https://x.example/static', []],
  ])('reads the URL template %j', (template, variables) => {
    expect(urlTemplateVariables(template)).toEqual(variables);
  });

  it.each([
    'https://x/{id',
    'https://x/id}',
    'https://x/{}',
    'https://x/{=id}',
    'https://x/{!id}',
    'https://x/{id:0}',
    'https://x/{id:10000}',
    'https://x/{i d}',
    'https://x/{-id}',
  ])('refuses the URL template %j', (template) => {
    expect(urlTemplateVariables(template)).toBeNull();
  });
});

describe.each(TRANSPORTS)('linkifiers over %s', (kind) => {
  let org: TestOrg;
  let ann: TestUser;
  const all = () => (org.db.prepare('SELECT id FROM linkifiers').all() as { id: number }[]).map((r) => r.id);

  beforeAll(() => {
    org = createTestOrg();
    ann = org.addUser({ name: 'Ann' });
  });
  beforeEach(() => {
    org.db.prepare('DELETE FROM linkifiers').run();
  });
  afterAll(() => org.close());

  const admin = () => clientFor(org, kind);
  const post = (body: [string, string][]) => rawRequest(org, kind, { method: 'POST', path: '/realm/filters', body });

  describe('GET /realm/linkifiers and POST /realm/filters', () => {
    it('adds linkifiers at the end and lists them in order with every field, valid against the description', async () => {
      const client = await admin();
      expect((await client.call(getLinkifiers, {})).linkifiers).toEqual([]);
      const first = await client.call(addLinkifier, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' });
      expect(openapiErrors('post', '/realm/filters', 200, first)).toEqual([]);
      const second = await client.call(addLinkifier, {
        pattern: 'JIRA-(?P<key>[0-9]+)',
        url_template: 'https://jira.example/browse/{key}',
        example_input: 'JIRA-12',
        reverse_template: 'JIRA-{key}',
        alternative_url_templates: ['https://jira.example/issue/{key}'],
      });
      const listed = await (await clientFor(org, kind, ann)).call(getLinkifiers, {});
      expect(listed.linkifiers).toEqual([
        {
          id: first.id,
          pattern: '#(?P<id>[0-9]+)',
          url_template: 'https://github.com/zulip/zulip/issues/{id}',
          example_input: null,
          reverse_template: null,
          alternative_url_templates: [],
        },
        {
          id: second.id,
          pattern: 'JIRA-(?P<key>[0-9]+)',
          url_template: 'https://jira.example/browse/{key}',
          example_input: 'JIRA-12',
          reverse_template: 'JIRA-{key}',
          alternative_url_templates: ['https://jira.example/issue/{key}'],
        },
      ]);
      expect(openapiErrors('get', '/realm/linkifiers', 200, listed)).toEqual([]);
    });

    it('sends every active user the full list, then the empty legacy realm_filters', async () => {
      const [qOwner, qAnn] = [org.owner, ann].map((u) => linkifierQueue(org, u));
      const qOldClient = linkifierQueue(org, ann, false);
      const { id } = await (await admin()).call(addLinkifier, { pattern: 'PR(?P<n>\\d+)', url_template: 'https://x.example/pr/{n}' });
      const expected = [
        {
          type: 'realm_linkifiers',
          realm_linkifiers: [
            {
              id,
              pattern: 'PR(?P<n>\\d+)',
              url_template: 'https://x.example/pr/{n}',
              example_input: null,
              reverse_template: null,
              alternative_url_templates: [],
            },
          ],
        },
        { type: 'realm_filters', realm_filters: [] },
      ];
      const events = takeEvents(org, qOwner);
      expect(events).toEqual(expected);
      expect(takeEvents(org, qAnn)).toEqual(expected);
      expect(takeEvents(org, qOldClient)).toEqual([{ type: 'realm_filters', realm_filters: [] }]);
      expect(openapiErrors('get', '/events', 200, { result: 'success', msg: '', events: events.map((e, i) => ({ ...e, id: i })) })).toEqual([]);
    });

    it.each([
      ['a bad regular expression', '(foo', 'https://x.example/{id}', { __all__: ['Bad regular expression: missing ): (foo'] }],
      ['a lookahead', 'a(?=b)', 'https://x.example/', { __all__: ['Bad regular expression: invalid perl operator: (?='] }],
      ['an unclosed template', '#(?P<id>\\d+)', 'https://x.example/{id', { url_template: ['Invalid URL template.'] }],
      ['a reserved operator', '#(?P<id>\\d+)', 'https://x.example/{=id}', { url_template: ['Invalid URL template.'] }],
      ['both, the template first', '(foo', 'https://x/{', { url_template: ['Invalid URL template.'], __all__: ['Bad regular expression: missing ): (foo'] }],
      [
        'a variable with no group',
        '#(?P<id>\\d+)',
        'https://x.example/{id}/{zz}/{aa}',
        { __all__: ["Group 'aa' in URL template is not present in linkifier pattern."] },
      ],
      ['a group with no variable', '(?P<b>x)(?P<a>y)', 'https://x.example/', { __all__: ["Group 'a' in linkifier pattern is not present in URL template."] }],
      ['a bad alternative template', '#(?P<id>\\d+)', 'https://x.example/{id}', { alternative_url_templates: ['Invalid URL template.'] }, ['https://x/{']],
    ])('refuses %s, with every message in errors', async (_name, pattern, template, errors, alternatives?: string[]) => {
      const body: [string, string][] = [
        ['pattern', pattern],
        ['url_template', template],
      ];
      if (alternatives) body.push(['alternative_url_templates', JSON.stringify(alternatives)]);
      const res = await post(body);
      const msg = Object.values(errors)[0]![0];
      expect(statusAndBody(res)).toEqual({ status: 400, body: { result: 'error', msg, code: 'BAD_REQUEST', errors } });
      expect(all()).toEqual([]);
    });

    it('refuses a pattern the organization already has', async () => {
      await post([
        ['pattern', '#(?P<id>\\d+)'],
        ['url_template', 'https://a.example/{id}'],
      ]);
      const res = await post([
        ['pattern', '#(?P<id>\\d+)'],
        ['url_template', 'https://b.example/{id}'],
      ]);
      const msg = 'Realm filter with this Realm and Pattern already exists.';
      expect(statusAndBody(res)).toEqual({ status: 400, body: { result: 'error', msg, code: 'BAD_REQUEST', errors: { __all__: [msg] } } });
    });

    it('requires both fields', async () => {
      const res = await post([['pattern', 'x']]);
      expect(res.body).toEqual({ result: 'error', msg: "Missing 'url_template' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'url_template' });
    });
  });

  describe('PATCH /realm/filters/{filter_id}', () => {
    it('replaces pattern and URL template, keeping the place in the order, and announces the list', async () => {
      const client = await admin();
      const a = await client.call(addLinkifier, { pattern: 'A(?P<n>\\d)', url_template: 'https://a.example/{n}' });
      const b = await client.call(addLinkifier, { pattern: 'B(?P<n>\\d)', url_template: 'https://b.example/{n}' });
      const q = linkifierQueue(org, ann);
      const res = await client.call(updateLinkifier, { filter_id: a.id, pattern: 'AA(?P<m>\\d)', url_template: 'https://aa.example/{m}' });
      expect(res).toEqual({ result: 'success', msg: '' });
      const listed = (await client.call(getLinkifiers, {})).linkifiers;
      expect(listed.map((l) => [l.id, l.pattern, l.url_template])).toEqual([
        [a.id, 'AA(?P<m>\\d)', 'https://aa.example/{m}'],
        [b.id, 'B(?P<n>\\d)', 'https://b.example/{n}'],
      ]);
      expect(takeEvents(org, q)[0]).toEqual({ type: 'realm_linkifiers', realm_linkifiers: listed });
      // Its own pattern is no duplicate; another's is.
      expect((await client.call(updateLinkifier, { filter_id: b.id, pattern: 'B(?P<n>\\d)', url_template: 'https://bb.example/{n}' })).result).toBe('success');
      const clash = await rawRequest(org, kind, {
        method: 'PATCH',
        path: `/realm/filters/${b.id}`,
        body: [
          ['pattern', 'AA(?P<m>\\d)'],
          ['url_template', 'https://x/{m}'],
        ],
      });
      expect(clash.body).toMatchObject({ msg: 'Realm filter with this Realm and Pattern already exists.' });
    });

    it('reports an unknown linkifier before validating, and needs both fields', async () => {
      const unknown = await rawRequest(org, kind, {
        method: 'PATCH',
        path: '/realm/filters/99999',
        body: [
          ['pattern', '(bad'],
          ['url_template', '{'],
        ],
      });
      expect(statusAndBody(unknown)).toEqual({ status: 400, body: { result: 'error', msg: 'Linkifier not found.', code: 'BAD_REQUEST' } });
      const { id } = await (await admin()).call(addLinkifier, { pattern: 'C(?P<n>\\d)', url_template: 'https://c.example/{n}' });
      const partial = await rawRequest(org, kind, { method: 'PATCH', path: `/realm/filters/${id}`, body: [['pattern', 'D(?P<n>\\d)']] });
      expect(partial.body).toEqual({ result: 'error', msg: "Missing 'url_template' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'url_template' });
      const invalid = await rawRequest(org, kind, {
        method: 'PATCH',
        path: `/realm/filters/${id}`,
        body: [
          ['pattern', 'D(?P<n>\\d)'],
          ['url_template', 'https://d.example/'],
        ],
      });
      expect(invalid.body).toMatchObject({
        msg: "Group 'n' in linkifier pattern is not present in URL template.",
        errors: { __all__: ["Group 'n' in linkifier pattern is not present in URL template."] },
      });
    });
  });

  describe('DELETE /realm/filters/{filter_id}', () => {
    it('removes the linkifier and announces the list', async () => {
      const client = await admin();
      const a = await client.call(addLinkifier, { pattern: 'E(?P<n>\\d)', url_template: 'https://e.example/{n}' });
      const b = await client.call(addLinkifier, { pattern: 'F(?P<n>\\d)', url_template: 'https://f.example/{n}' });
      const q = linkifierQueue(org, ann);
      expect(await client.call(removeLinkifier, { filter_id: a.id })).toEqual({ result: 'success', msg: '' });
      expect(all()).toEqual([b.id]);
      expect(takeEvents(org, q)[0]).toMatchObject({ type: 'realm_linkifiers', realm_linkifiers: [{ id: b.id }] });
      const again = await rawRequest(org, kind, { method: 'DELETE', path: `/realm/filters/${a.id}` });
      expect(statusAndBody(again)).toEqual({ status: 400, body: { result: 'error', msg: 'Linkifier not found.', code: 'BAD_REQUEST' } });
    });
  });

  describe('PATCH /realm/linkifiers', () => {
    it('applies the new order, to the list and the event', async () => {
      const client = await admin();
      const ids: number[] = [];
      for (const name of ['G', 'H', 'I'])
        ids.push((await client.call(addLinkifier, { pattern: `${name}(?P<n>\\d)`, url_template: `https://${name}.example/{n}` })).id);
      const q = linkifierQueue(org, ann);
      const order = [ids[2]!, ids[0]!, ids[1]!];
      expect(await client.call(reorderLinkifiers, { ordered_linkifier_ids: order })).toEqual({ result: 'success', msg: '' });
      expect((await client.call(getLinkifiers, {})).linkifiers.map((l) => l.id)).toEqual(order);
      expect((takeEvents(org, q)[0]!.realm_linkifiers as { id: number }[]).map((l) => l.id)).toEqual(order);
      // New linkifiers still go last.
      const j = await client.call(addLinkifier, { pattern: 'J(?P<n>\\d)', url_template: 'https://j.example/{n}' });
      expect((await client.call(getLinkifiers, {})).linkifiers.map((l) => l.id)).toEqual([...order, j.id]);
    });

    it('refuses duplicates first, then anything but every linkifier exactly once', async () => {
      const client = await admin();
      const a = await client.call(addLinkifier, { pattern: 'K(?P<n>\\d)', url_template: 'https://k.example/{n}' });
      const b = await client.call(addLinkifier, { pattern: 'L(?P<n>\\d)', url_template: 'https://l.example/{n}' });
      const reorder = (ids: unknown) =>
        rawRequest(org, kind, { method: 'PATCH', path: '/realm/linkifiers', body: [['ordered_linkifier_ids', JSON.stringify(ids)]] });
      const dup = 'The ordered list must not contain duplicated linkifiers';
      const all = 'The ordered list must enumerate all existing linkifiers exactly once';
      expect((await reorder([a.id, a.id])).body).toEqual({ result: 'error', msg: dup, code: 'BAD_REQUEST' });
      expect((await reorder([a.id, a.id, 99])).body).toMatchObject({ msg: dup });
      expect((await reorder([a.id])).body).toEqual({ result: 'error', msg: all, code: 'BAD_REQUEST' });
      expect((await reorder([a.id, b.id, 99])).body).toMatchObject({ msg: all });
      expect((await reorder([a.id, 99])).body).toMatchObject({ msg: all });
      expect((await reorder('x')).body).toMatchObject({ msg: 'ordered_linkifier_ids is not a list' });
    });
  });

  it('leaves linkifier changes to administrators', async () => {
    const res = await rawRequest(
      org,
      kind,
      {
        method: 'POST',
        path: '/realm/filters',
        body: [
          ['pattern', 'M(?P<n>\\d)'],
          ['url_template', 'https://m.example/{n}'],
        ],
      },
      ann,
    );
    expect(res.body).toEqual({ result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  });
});
