import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribe } from '../../src/api/operations/channels.js';
import { createUserGroup } from '../../src/api/operations/groups.js';
import { addLinkifier } from '../../src/api/operations/linkifiers.js';
import { getMessages, renderMessage, sendMessage } from '../../src/api/operations/messages.js';
import type { ChatClient } from '../../src/client/client.js';
import { encodeHashComponent, renderHtml, renderMarkdown, topicLinks } from '../../src/server/model/render.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe('Markdown rendering', () => {
  let org: TestOrg;
  let owner: ChatClient;
  let ada: TestUser;
  let privateChannelId: number;
  let groupId: number;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, 'embedded');
    ada = org.addUser({ name: 'Ada Lovelace' });
    org.addUser({ name: 'Twin Name' });
    org.addUser({ name: 'Twin Name' });
    org.addUser({ name: 'Gone Person', active: false });
    await owner.call(subscribe, { subscriptions: [{ name: 'hidden' }], invite_only: true });
    privateChannelId = (org.db.prepare("SELECT id FROM streams WHERE name = 'hidden'").get() as { id: number }).id;
    groupId = (await owner.call(createUserGroup, { name: 'support', description: 'helpers', members: [ada.id] })).group_id;
    await owner.call(addLinkifier, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/issues/{id}' });
    await owner.call(addLinkifier, { pattern: 'CVE-(?P<year>[0-9]{4})-(?P<num>[0-9]+)', url_template: 'https://cve.example.org/{year}/{num}' });
  });
  afterAll(() => org.close());

  const html = (content: string, senderId?: number) => renderMarkdown(org.db, content, { senderId }).html;

  it('renders Markdown with raw HTML escaped and bare URLs linked', () => {
    expect(html('**bold** _it_ <script>alert(1)</script>')).toBe('<p><strong>bold</strong> <em>it</em> &lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(html('see https://zulip.com/api')).toBe('<p>see <a href="https://zulip.com/api">https://zulip.com/api</a></p>');
    expect(html('line one\nline two')).toBe('<p>line one<br>\nline two</p>');
    expect(renderHtml(org.db, '')).toBe('');
  });

  it('writes links with only their href; a Markdown link without text shows its URL', () => {
    expect(html('[docs](https://zulip.com/api) and https://zulip.com')).toBe(
      '<p><a href="https://zulip.com/api">docs</a> and <a href="https://zulip.com">https://zulip.com</a></p>',
    );
    expect(html('[](https://zulip.com/api) [ ](https://zulip.com/help)')).toBe(
      '<p><a href="https://zulip.com/api">https://zulip.com/api</a> <a href="https://zulip.com/help">https://zulip.com/help</a></p>',
    );
    expect(html('[**bold**](https://zulip.com/api)')).toBe('<p><a href="https://zulip.com/api"><strong>bold</strong></a></p>');
  });

  it('renders user mentions, by name or with the ID, and collects the mentioned users', () => {
    const r = renderMarkdown(org.db, `hi @**ada lovelace** and @**Ada Lovelace|${ada.id}**`);
    expect(r.html).toBe(
      `<p>hi <span class="user-mention" data-user-id="${ada.id}">@Ada Lovelace</span> and <span class="user-mention" data-user-id="${ada.id}">@Ada Lovelace</span></p>`,
    );
    expect([...r.mentionedUserIds]).toEqual([ada.id]);
    expect(html(`@**|${ada.id}**`)).toContain(`data-user-id="${ada.id}"`);
  });

  it('renders silent mentions without collecting them', () => {
    const r = renderMarkdown(org.db, '@_**Ada Lovelace**');
    expect(r.html).toBe(`<p><span class="user-mention silent" data-user-id="${ada.id}">Ada Lovelace</span></p>`);
    expect(r.mentionedUserIds.size).toBe(0);
  });

  it('leaves mentions of nobody, of an ambiguous name, of a deactivated user or with a wrong ID as text', () => {
    for (const text of ['@**Nobody Here**', '@**Twin Name**', '@**Gone Person**', `@**Someone Else|${ada.id}**`]) {
      const r = renderMarkdown(org.db, text);
      expect(r.mentionedUserIds.size, text).toBe(0);
      expect(r.html, text).toBe(`<p>@<strong>${text.slice(3, -2)}</strong></p>`);
    }
  });

  it('renders wildcard mentions and flags them unless silent', () => {
    for (const w of ['all', 'everyone', 'channel', 'stream']) {
      const r = renderMarkdown(org.db, `@**${w}**`);
      expect(r.streamWildcard, w).toBe(true);
      expect(r.html).toBe(`<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${w}</span></p>`);
    }
    const topic = renderMarkdown(org.db, '@**topic**');
    expect(topic).toMatchObject({ topicWildcard: true, streamWildcard: false, html: '<p><span class="topic-mention">@topic</span></p>' });
    expect(renderMarkdown(org.db, '@_**all**').streamWildcard).toBe(false);
  });

  it('renders user group mentions, not system groups', () => {
    const r = renderMarkdown(org.db, '@*support* and @_*support*');
    expect(r.html).toBe(
      `<p><span class="user-group-mention" data-user-group-id="${groupId}">@support</span> and <span class="user-group-mention silent" data-user-group-id="${groupId}">support</span></p>`,
    );
    expect([...r.mentionedGroupIds]).toEqual([groupId]);
    expect(renderMarkdown(org.db, '@*role:members*').mentionedGroupIds.size).toBe(0);
  });

  it('links channels and topics; private channels only for their subscribers', () => {
    const general = (org.db.prepare("SELECT id FROM streams WHERE name = 'general'").get() as { id: number }).id;
    expect(html('#**general**')).toBe(`<p><a class="stream" data-stream-id="${general}" href="/#narrow/channel/${general}-general">#general</a></p>`);
    expect(html('#**general>lunch plans**')).toBe(
      `<p><a class="stream-topic" data-stream-id="${general}" href="/#narrow/channel/${general}-general/topic/lunch.20plans">#general &gt; lunch plans</a></p>`,
    );
    expect(html('#**hidden**', ada.id)).toBe('<p>#<strong>hidden</strong></p>');
    expect(html('#**hidden**', org.owner.id)).toContain(`data-stream-id="${privateChannelId}"`);
    expect(encodeHashComponent('a.b c/é')).toBe('a.2Eb.20c.2F.C3.A9');
  });

  it('renders known emoji names only', () => {
    expect(html('nice :+1: :thumbs_up: :no_such_emoji:')).toBe(
      '<p>nice <span aria-label="+1" class="emoji emoji-1f44d" role="img" title="+1">:+1:</span> <span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span> :no_such_emoji:</p>',
    );
    expect(html(':zulip:')).toBe('<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>');
    expect(html('at 10:30:45')).toBe('<p>at 10:30:45</p>');
  });

  it('applies linkifiers in their order, at word boundaries, never in code or links', () => {
    expect(html('fixes #123 and CVE-2024-42')).toBe(
      '<p>fixes <a href="https://tracker.example.com/issues/123">#123</a> and <a href="https://cve.example.org/2024/42">CVE-2024-42</a></p>',
    );
    expect(html('abc#123 and #12x')).toBe('<p>abc#123 and #12x</p>');
    expect(html('`#123` and [see #123](https://example.com)')).toBe('<p><code>#123</code> and <a href="https://example.com">see #123</a></p>');
    expect(html('```\n#123 @**Ada Lovelace**\n```')).toBe('<pre><code>#123 @**Ada Lovelace**\n</code></pre>');
  });

  it('does not see mention syntax inside code', () => {
    const r = renderMarkdown(org.db, '`@**Ada Lovelace**`');
    expect(r.html).toBe('<p><code>@**Ada Lovelace**</code></p>');
    expect(r.mentionedUserIds.size).toBe(0);
  });

  it('finds linkifier matches and URLs in topics', () => {
    expect(topicLinks(org.db, 'bug #7 see https://example.com/x')).toEqual([
      { text: '#7', url: 'https://tracker.example.com/issues/7' },
      { text: 'https://example.com/x', url: 'https://example.com/x' },
    ]);
    expect(topicLinks(org.db, '')).toEqual([]);
  });
});

describe.each(TRANSPORTS)('rendering through the API over %s', (kind) => {
  let org: TestOrg;
  let owner: ChatClient;
  beforeAll(async () => {
    org = createTestOrg();
    owner = await clientFor(org, kind);
    await owner.call(addLinkifier, { pattern: 'T(?P<n>[0-9]+)', url_template: 'https://tickets.example.com/{n}' });
  });
  afterAll(() => org.close());

  it('stores the rendering of a sent message and links its topic', async () => {
    const sent = await owner.call(sendMessage, { type: 'stream', to: 'general', topic: 'about T42', content: 'closing T42' });
    const res = await owner.call(getMessages, { anchor: String(sent.id), num_before: 0, num_after: 0 });
    expect(res.messages[0]!.content).toBe('<p>closing <a href="https://tickets.example.com/42">T42</a></p>');
    expect(res.messages[0]!.topic_links).toEqual([{ text: 'T42', url: 'https://tickets.example.com/42' }]);
  });

  it('previews with POST /messages/render exactly what sending stores', async () => {
    const content = 'see T7 and @**Olivia Owner**';
    const preview = await owner.call(renderMessage, { content });
    const sent = await owner.call(sendMessage, { type: 'stream', to: 'general', topic: 't', content });
    expect((org.db.prepare('SELECT rendered_content FROM messages WHERE id = ?').get(sent.id) as { rendered_content: string }).rendered_content).toBe(
      preview.rendered,
    );
  });
});
