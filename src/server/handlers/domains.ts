/** Allowed e-mail domains: listing (anyone), adding, changing and removing them (owners). */
import { badRequest } from '../../api/errors.js';
import { addRealmDomain, getRealmDomains, removeRealmDomain, updateRealmDomain } from '../../api/operations/domains.js';
import { bind, type Handlers, type HandlerContext } from '../context.js';
import { addDomain, allDomains, changeDomain, domainByName, domainProblem, domainToWire, removeDomain, type DomainRow } from '../model/domains.js';

function existing(ctx: HandlerContext, domain: string): DomainRow {
  const row = domainByName(ctx.db, domain);
  if (!row) throw badRequest(`No entry found for domain ${domain}.`);
  return row;
}

export const handlers: Handlers<'domains'> = {
  getRealmDomains: bind(getRealmDomains, (ctx) => ({ domains: allDomains(ctx.db).map(domainToWire) })),

  addRealmDomain: bind(addRealmDomain, (ctx, p) => {
    const domain = p.domain.trim().toLowerCase();
    const problem = domainProblem(domain);
    if (problem) throw badRequest(`Invalid domain: ${problem}`);
    if (domainByName(ctx.db, domain)) throw badRequest(`The domain ${domain} is already a part of your organization.`);
    const created: [number, string] = [addDomain(ctx.db, ctx, domain, p.allow_subdomains), domain];
    return { new_domain: created };
  }),

  updateRealmDomain: bind(updateRealmDomain, (ctx, p) => {
    changeDomain(ctx.db, ctx, existing(ctx, p.domain), p.allow_subdomains);
    return {};
  }),

  removeRealmDomain: bind(removeRealmDomain, (ctx, p) => {
    removeDomain(ctx.db, ctx, existing(ctx, p.domain));
    return {};
  }),
};
