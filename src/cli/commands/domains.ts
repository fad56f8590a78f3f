import { addRealmDomain, getRealmDomains, removeRealmDomain, updateRealmDomain } from '../../api/operations/domains.js';
import { OUTCOME_FIELDS, runCalls, type BulkFlags, type RowCall } from '../bulk.js';
import { defineCommand, opt } from '../command.js';
import { confirmOrExit } from '../confirm.js';
import { printDryRun } from '../dry-run.js';
import { usageError } from '../errors.js';
import type { OutputFlags } from '../output/output.js';

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
    examples: ['chatctl domains list', 'chatctl domains list --json | jq -r \'.[].domain\''],
    output: { fields: DOMAIN_FIELDS },
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
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
    args: [{ name: 'domain', description: 'the domain, e.g. example.com', required: true }],
    options: [{ flags: '--subdomains', description: 'also allow its subdomains' }],
    output: { fields: ADDED_FIELDS, columns: ['id'] },
    mutating: true,
    async run(opts, ctx) {
      const out = ctx.output(opts as OutputFlags);
      const client = await ctx.client();
      const params = { domain: opt.str(opts, 'domain')!.trim(), allow_subdomains: opt.bool(opts, 'subdomains') };
      if (opt.bool(opts, 'dryRun')) {
        printDryRun(ctx, await client.prepare(addRealmDomain, params));
        return;
      }
      const { new_domain: [id, domain] } = await client.call(addRealmDomain, params, { signal: ctx.signal });
      await out.item({ id, domain });
    },
  }),

  defineCommand({
    path: ['domains', 'update'],
    summary: 'allow or disallow the subdomains of an allowed domain (owners)',
    description: 'Changes whether the subdomains of an allowed domain may sign up too (PATCH /realm/domains/{domain}). Only organization owners may.',
    examples: ['chatctl domains update example.com --subdomains', 'chatctl domains update example.com --no-subdomains --json'],
    args: [{ name: 'domain', description: 'an allowed domain', required: true }],
    options: [
      { flags: '--subdomains', description: 'allow its subdomains' },
      { flags: '--no-subdomains', description: 'allow only the domain itself' },
    ],
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    async run(opts, ctx) {
      if (typeof opts.subdomains !== 'boolean') throw usageError('pass --subdomains or --no-subdomains');
      const domain = domainArg(opt.str(opts, 'domain')!);
      const call: RowCall = { row: 1, target: domain, status: 'updated', call: { op: updateRealmDomain, params: { domain, allow_subdomains: opts.subdomains } } };
      await runCalls(ctx, opts as BulkFlags, await ctx.client(), [call], 'updated');
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
    args: [{ name: 'domains', description: 'allowed domains', required: true, variadic: true }],
    output: { fields: OUTCOME_FIELDS },
    mutating: true,
    destructive: true,
    async run(opts, ctx) {
      const domains = [...new Set(opt.list(opts, 'domains').map(domainArg))];
      const calls: RowCall[] = domains.map((domain, i) => ({ row: i + 1, target: domain, status: 'removed', call: { op: removeRealmDomain, params: { domain } } }));
      if (!opt.bool(opts, 'dryRun')) {
        await confirmOrExit(ctx, opt.bool(opts, 'yes'), `Remove ${domains.length === 1 ? `the allowed domain ${domains[0]}` : `${domains.length} allowed domains`}?`);
      }
      await runCalls(ctx, opts as BulkFlags, await ctx.client(), calls, 'removed');
    },
  }),
];
