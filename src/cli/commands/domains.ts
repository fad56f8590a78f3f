import { addRealmDomain, getRealmDomains, removeRealmDomain, updateRealmDomain } from '../../api/operations/domains.js';
import { confirmAndRun, OUTCOME_FIELDS, planCall, type RowCall, rowCalls, runCalls } from '../bulk/runner.js';
import { defineCommand } from '../command/command.js';
import { printDryRun } from '../bulk/dry-run.js';
import { usageError } from '../core/errors.js';
import { arg, flag } from '../core/flags.js';

const DOMAIN_FIELDS = ['domain', 'allow_subdomains'] as const;
const ADDED_FIELDS = ['id', 'domain'] as const;

/** Domains are case-insensitive and stored lower-cased, so `Example.COM` names `example.com`. */
const domainArg = (value: string): string => value.trim().toLowerCase();

export const commands = [
  defineCommand({
    path: ['domains', 'list'],
    aliases: ['ls'],
    summary: 'list the allowed e-mail domains',
    description:
      'Lists the e-mail domains of the organization (GET /realm/domains): when sign-ups are restricted to ' +
      'them, only addresses in these domains (and their subdomains where allowed) can join.',
    examples: ['chatctl domains list', "chatctl domains list --json | jq -r '.[].domain'"],
    output: { fields: DOMAIN_FIELDS, key: ['domain'] },
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const { domains } = await (await ctx.client()).call(getRealmDomains, {});
      if (!(await out.list(domains)) && ctx.io.stdoutIsTTY && !out.isJson) ctx.info('no allowed domains');
    },
  }),

  defineCommand({
    path: ['domains', 'add'],
    summary: 'allow an e-mail domain (owners)',
    description:
      'Adds an allowed e-mail domain (POST /realm/domains) and prints its new ID (with --json, the ID and the ' +
      'domain as the server stored it). --subdomains also allows its subdomains. Only organization owners may.',
    examples: ['chatctl domains add example.com', 'chatctl domains add example.com --subdomains --json', 'id=$(chatctl domains add example.org)'],
    args: { domain: arg.required('the domain, e.g. example.com') },
    options: { subdomains: flag.bool('--subdomains', 'also allow its subdomains') },
    output: { fields: ADDED_FIELDS, columns: ['id'] },
    mutating: true,
    async run(opts, ctx) {
      const out = ctx.output(opts);
      const client = await ctx.client();
      const params = { domain: opts.domain.trim(), allow_subdomains: opts.subdomains };
      if (opts.dryRun) {
        printDryRun(ctx, await client.prepare(addRealmDomain, params));
        return;
      }
      const {
        new_domain: [id, domain],
      } = await client.call(addRealmDomain, params, { signal: ctx.signal });
      await out.item({ id, domain });
    },
  }),

  defineCommand({
    path: ['domains', 'update'],
    summary: 'allow or disallow the subdomains of an allowed domain (owners)',
    description: 'Changes whether the subdomains of an allowed domain may sign up too (PATCH /realm/domains/{domain}). Only organization owners may.',
    examples: ['chatctl domains update example.com --subdomains', 'chatctl domains update example.com --no-subdomains --json'],
    args: { domain: arg.required('an allowed domain') },
    options: {
      subdomains: flag.toggle('--subdomains', 'allow its subdomains', { flags: '--no-subdomains', description: 'allow only the domain itself' }),
    },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    check(opts) {
      if (opts.subdomains === undefined) throw usageError('pass --subdomains or --no-subdomains');
    },
    async run(opts, ctx) {
      const domain = domainArg(opts.domain);
      const call: RowCall = {
        row: 1,
        target: domain,
        status: 'updated',
        call: planCall(updateRealmDomain, { domain, allow_subdomains: opts.subdomains === true }),
      };
      await runCalls(ctx, { ...opts, single: true }, await ctx.client(), [call], 'updated');
    },
  }),

  defineCommand({
    path: ['domains', 'remove'],
    aliases: ['rm'],
    summary: 'remove allowed e-mail domains (owners)',
    description:
      'Removes allowed domains (DELETE /realm/domains/{domain}); existing accounts stay. Removing the last one ' +
      'lifts the restriction of sign-ups to listed domains. Asks for confirmation on a terminal; elsewhere ' +
      '--yes is required. Only organization owners may.',
    examples: ['chatctl domains remove example.com', 'chatctl domains remove example.com example.org --yes --json'],
    args: { domains: arg.variadic('allowed domains', { required: true }) },
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const domains = [...new Set(opts.domains.map(domainArg))];
      const calls = rowCalls(domains, 'removed', (domain) => planCall(removeRealmDomain, { domain }), 'domain');
      await confirmAndRun(
        ctx,
        opts,
        calls,
        'removed',
        `Remove ${domains.length === 1 ? `the allowed domain ${domains[0]}` : `${domains.length} allowed domains`}?`,
      );
    },
  }),
];
