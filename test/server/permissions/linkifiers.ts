import { randomToken } from '../../helpers/names.js';
import { ADMINS_ONLY, type Fixture, type PermissionRows } from './matrix.js';

/** A fresh linkifier with a pattern no other case uses. */
function newLinkifier(f: Fixture): number {
  const db = f.org.db;
  const { next } = db.prepare('SELECT coalesce(max("order") + 1, 0) AS next FROM linkifiers').get() as { next: number };
  const pattern = `T${randomToken()}-(?P<id>\\d+)`;
  return Number(
    db.prepare('INSERT INTO linkifiers (pattern, url_template, "order") VALUES (?, ?, ?)').run(pattern, 'https://t.example/{id}', next).lastInsertRowid,
  );
}

const linkifierBody = (): [string, string][] => [
  ['pattern', `P${randomToken()}-(?P<id>\\d+)`],
  ['url_template', 'https://p.example/{id}'],
];

export const linkifierCases: PermissionRows<'linkifiers'> = {
  getLinkifiers: [
    {
      name: 'list linkifiers',
      request: () => ({ method: 'GET', path: '/realm/linkifiers' }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
  ],
  addLinkifier: [
    {
      name: 'add a linkifier',
      request: () => ({ method: 'POST', path: '/realm/filters', body: linkifierBody() }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  updateLinkifier: [
    {
      name: 'replace a linkifier',
      request: (f) => ({ method: 'PATCH', path: `/realm/filters/${newLinkifier(f)}`, body: linkifierBody() }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  removeLinkifier: [
    {
      name: 'remove a linkifier',
      request: (f) => ({ method: 'DELETE', path: `/realm/filters/${newLinkifier(f)}` }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  reorderLinkifiers: [
    {
      name: 'reorder the linkifiers',
      request: (f) => {
        newLinkifier(f);
        const ids = (f.org.db.prepare('SELECT id FROM linkifiers ORDER BY id DESC').all() as { id: number }[]).map((r) => r.id);
        return { method: 'PATCH', path: '/realm/linkifiers', body: [['ordered_linkifier_ids', JSON.stringify(ids)]] };
      },
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
};
