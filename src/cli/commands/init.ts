import { readConfig } from '../../config/profiles.js';
import { defineCommand } from '../command/command.js';
import { usageError } from '../core/errors.js';
import { flag } from '../core/flags.js';
import { choosePassword } from '../target/password.js';
import { embeddedDataDir, selectedProfileName } from '../target/target.js';

export const commands = [
  defineCommand({
    path: ['init'],
    summary: 'create the embedded organization and its owner, and log the profile in',
    description:
      'Creates a new organization in the data dir (default: $XDG_DATA_HOME/chatctl) with you as its owner, then logs ' +
      'the profile in to it. Without --password-stdin it asks for the password on a terminal; elsewhere it generates ' +
      'one and prints it once on stderr. --demo also fills the organization with sample users, channels and messages.',
    examples: [
      'chatctl init --org-name "Acme" --email admin@acme.test',
      'printf %s "$PASSWORD" | chatctl init --email admin@acme.test --password-stdin',
      'chatctl init --data-dir /tmp/demo --demo',
    ],
    options: {
      orgName: flag.string('--org-name <name>', 'the organization name', { default: 'Embedded organization' }),
      email: flag.string('--email <email>', "the owner's e-mail address", { default: 'owner@localhost' }),
      name: flag.string('--name <name>', "the owner's full name", { default: 'Owner' }),
      passwordStdin: flag.bool('--password-stdin', "read the owner's password from stdin"),
      demo: flag.bool('--demo', 'also create a sample organization to explore'),
    },
    async run(opts, ctx) {
      const g = ctx.globals;
      const config = readConfig(ctx.env);
      const profileName = selectedProfileName(g, ctx.env, config);
      const existing = config.profiles?.[profileName];
      const dataDir = embeddedDataDir(g, ctx.env, config);
      if (existing && existing.embedded !== dataDir) {
        throw usageError(
          `profile "${profileName}" already points to ${existing.server ?? existing.embedded}`,
          'pass --profile NAME to keep both, or chatctl logout first',
        );
      }
      const { password, generated } = await choosePassword(ctx, opts.passwordStdin, 'Owner password:');
      const [{ openOrganization, noteOn }, { initialize }] = await Promise.all([import('../target/data-dir.js'), import('../target/embedded-org.js')]);
      const transport = await openOrganization(dataDir, { create: true, source: 'init', warn: noteOn(ctx) });
      try {
        const credentials = await initialize(ctx, transport, {
          dataDir,
          orgName: opts.orgName,
          email: opts.email,
          ownerName: opts.name,
          password,
          profileName,
        });
        ctx.info(`chatctl: created the organization "${opts.orgName}" in ${dataDir}`);
        ctx.info(`chatctl: owner ${credentials.email}, logged in as profile "${profileName}"`);
        if (generated) ctx.io.stderr.write(`chatctl: generated owner password (shown once, keep it): ${password}\n`);
        if (opts.demo) {
          const [{ ChatClient }, { seedDemo }] = await Promise.all([import('../../client/client.js'), import('../target/demo.js')]);
          const summary = await seedDemo(new ChatClient(transport, credentials));
          ctx.info(`chatctl: added demo data: ${summary}`);
        }
      } finally {
        await transport.close();
      }
    },
  }),
];
