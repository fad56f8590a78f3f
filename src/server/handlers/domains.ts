/** Allowed e-mail domains: listing (anyone), adding, changing and removing them (owners). */
import { badRequest } from '../../api/errors.js';
import { addRealmDomain, getRealmDomains, removeRealmDomain, updateRealmDomain } from '../../api/operations/domains.js';
import { bind, type Binding, type HandlerContext } from '../context.js';
import { allDomains, domainByName, domainProblem, domainToWire, type DomainRow } from '../model/domains.js';
import { activeUserIds } from '../model/users.js';
import { getSetting, setSetting } from '../realm.js';

function existing(ctx: HandlerContext, domain: string): DomainRow {
  const row = domainByName(ctx.db, domain);
  if (!row) throw badRequest(`No entry found for domain ${domain}.`);
  return row;
}

export const bindings: Binding[] = [
  bind(getRealmDomains, (ctx) => ({ domains: allDomains(ctx.db).map(domainToWire) })),

  bind(addRealmDomain, (ctx, p) => {
    const domain = p.domain.trim().toLowerCase();
    const problem = domainProblem(domain);
    if (problem) throw badRequest(`Invalid domain: ${problem}`);
    if (domainByName(ctx.db, domain)) throw badRequest(`The domain ${domain} is already a part of your organization.`);
    const info = ctx.db.prepare('INSERT INTO realm_domains (domain, allow_subdomains) VALUES (?, ?)').run(domain, p.allow_subdomains ? 1 : 0);
    ctx.emit({ type: 'realm_domains', op: 'add', realm_domain: { domain, allow_subdomains: p.allow_subdomains } }, activeUserIds(ctx.db));
    const created: [number, string] = [Number(info.lastInsertRowid), domain];
    return { new_domain: created };
  }),

  bind(updateRealmDomain, (ctx, p) => {
    const row = existing(ctx, p.domain);
    ctx.db.prepare('UPDATE realm_domains SET allow_subdomains = ? WHERE id = ?').run(p.allow_subdomains ? 1 : 0, row.id);
    ctx.emit({ type: 'realm_domains', op: 'change', realm_domain: { domain: row.domain, allow_subdomains: p.allow_subdomains } }, activeUserIds(ctx.db));
    return {};
  }),

  bind(removeRealmDomain, (ctx, p) => {
    const db = ctx.db;
    const row = existing(ctx, p.domain);
    db.prepare('DELETE FROM realm_domains WHERE id = ?').run(row.id);
    const everyone = activeUserIds(db);
    ctx.emit({ type: 'realm_domains', op: 'remove', domain: row.domain }, everyone);
    // With no domain left, a restriction to the listed domains would let nobody in: a server lifts it.
    if (allDomains(db).length === 0 && getSetting(db, 'emails_restricted_to_domains')) {
      setSetting(db, 'emails_restricted_to_domains', false);
      ctx.emit({ type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false }, everyone);
    }
    return {};
  }),
];
