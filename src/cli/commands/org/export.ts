import { defineCommand } from '../../command/command.js';
import { flag } from '../../core/flags.js';
import { exportDoc } from '../../org/document.js';
import { formatDocument, writeWhole } from '../../org/file.js';
import { parseSections, SECTIONS } from '../../org/model.js';
import { readLive } from '../../org/read.js';
import { siteOf } from '../../org/session.js';

export const exportCommand = defineCommand({
  path: ['org', 'export'],
  summary: "write the organization's configuration to a file (YAML or JSON)",
  description:
    "Reads the organization's configuration, never its messages, and writes it as a file `org plan` and `org apply` take: " +
    'settings, allowed domains, linkifiers in order, custom profile fields, channel folders, user groups (members, subgroups, ' +
    'group-valued settings as names), channels (description, privacy, folder, default, members) and users (e-mail, name, role, ' +
    'active, profile values). Each object carries its server ID. No secret is written: no API key, bot token, invitation link or password.\n\n' +
    'It takes a bounded number of requests whatever the number of users: one POST /register (its queue deleted at once), ' +
    'GET /users/me, GET /users, and one GET /streams/{id}/members per channel. What the server’s feature level cannot give ' +
    '(channel folders before 389) is left out, with a line under notes:. Bots are left out (a file manages a bot only by naming it).',
  examples: ['chatctl org export -o org.yaml', 'chatctl org export --sections groups,channels --format json', 'chatctl org schema > org.schema.json'],
  options: {
    output: flag.string('-o, --output <file>', 'write to this file (default: standard output)', { complete: 'files' }),
    format: flag.choice('--format <format>', 'yaml (default) or json', ['yaml', 'json'] as const),
    sections: flag.custom('--sections <list>', `only these sections (of: ${SECTIONS.join(', ')})`, parseSections),
  },
  async run(opts, ctx) {
    const client = await ctx.client();
    const sections = opts.sections;
    const live = await readLive(ctx, client, { members: !sections || sections.includes('channels') });
    const text = await formatDocument(exportDoc(live, sections, siteOf(ctx)), opts.format ?? (opts.output?.endsWith('.json') ? 'json' : 'yaml'));
    if (opts.output) {
      await writeWhole(opts.output, text);
      ctx.info(`chatctl: wrote ${opts.output} (${live.requests} requests)`);
    } else ctx.io.stdout.write(text);
  },
});
