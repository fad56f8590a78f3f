/**
 * A linkifier that makes every search run to the end of the message (RE2 accepts it, and each search is
 * linear) cannot hold the server: applying linkifiers has a time budget (LIMITS.renderLinkifiersMs), past
 * which the message is refused as a Zulip server refuses one its renderer gave up on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addLinkifier } from '../../src/api/operations/linkifiers.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, rawRequest, statusAndBody, TRANSPORTS } from '../helpers/transports.js';

// Every match of `a` looks for a `c` to the end of the text: 5,000 searches of up to 10,000 characters,
// seconds of work, where the budget is a tenth of one.
const SLOW_PATTERN = '(?P<id>a)(.*c)?';
const SLOW_CONTENT = 'a '.repeat(5000);

describe.each(TRANSPORTS)('the render budget, over %s', (kind) => {
  let org: TestOrg;
  beforeAll(async () => {
    org = createTestOrg();
    await (await clientFor(org, 'embedded')).call(addLinkifier, { pattern: SLOW_PATTERN, url_template: 'https://tracker.example/{id}' });
  });
  afterAll(async () => {
    await org.close();
  });

  const messages = () => org.db.prepare('SELECT count(*) FROM messages').pluck().get();
  const send = (content: string) =>
    rawRequest(org, kind, {
      method: 'POST',
      path: '/messages',
      body: [
        ['type', 'direct'],
        ['to', JSON.stringify([org.owner.id])],
        ['content', content],
      ],
    });

  it('refuses a message its linkifiers would take seconds over, and keeps nothing', async () => {
    const before = messages();
    const res = await send(SLOW_CONTENT);
    expect(statusAndBody(res)).toEqual({ status: 400, body: { result: 'error', msg: 'Unable to render message', code: 'BAD_REQUEST' } });
    expect(messages()).toBe(before);
  });

  it('refuses to preview it too', async () => {
    const res = await rawRequest(org, kind, { method: 'POST', path: '/messages/render', body: [['content', SLOW_CONTENT]] });
    expect(statusAndBody(res)).toEqual({ status: 400, body: { result: 'error', msg: 'Unable to render message', code: 'BAD_REQUEST' } });
  });

  it('still links the same pattern in an ordinary message', async () => {
    const res = await rawRequest(org, kind, { method: 'POST', path: '/messages/render', body: [['content', 'see a here']] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rendered: '<p>see <a href="https://tracker.example/a">a</a> here</p>' });
  });
});
