import { basename, resolve } from 'node:path';
import { readConfig } from '../../../config/profiles.js';
import { defineCommand } from '../../command/command.js';
import type { Context } from '../../command/context.js';
import { flag } from '../../core/flags.js';
import { plural } from '../../core/units.js';
import { type Mirrored, mirrorInto } from '../../org/mirror.js';
import { profileClient } from '../../target/profile-client.js';
import { storeProfile } from '../../target/store-profile.js';

export const fromFlag = flag.required(
  flag.string('--from <profile>', 'the stored profile of the organization to copy (chatctl profiles lists them)', { complete: 'profiles' }),
  '--from PROFILE is required',
);

/** Mirrors the organization of profile `from` into `dir`, saying what was copied on stderr. */
export async function mirrorProfile(ctx: Context, from: string, dir: string): Promise<Mirrored> {
  const source = await profileClient(ctx, from);
  try {
    const mirrored = await mirrorInto(ctx, { client: source.client, site: source.site, profile: from }, dir);
    const { counts, record } = mirrored;
    const level =
      record.feature_level === record.source.feature_level
        ? `feature level ${record.feature_level}`
        : `feature level ${record.feature_level}, the newest this chatctl implements (${source.site} is at ${record.source.feature_level})`;
    ctx.info(
      `chatctl: mirrored ${source.site} into ${resolve(dir)} (${level}): ${plural(counts.users, 'user')}, ${plural(counts.channels, 'channel')}, ` +
        `${plural(counts.groups, 'group')}, ${plural(counts.subscriptions, 'subscription')}; ${plural(mirrored.requests, 'request')}; ` +
        'no messages, passwords or keys copied',
    );
    return mirrored;
  } finally {
    await source.client.close();
  }
}

/** `NAME`, or `NAME-2`, `NAME-3` ...: the first no profile holds. */
function freeName(ctx: Pick<Context, 'env'>, wanted: string): string {
  const taken = new Set(Object.keys(readConfig(ctx.env).profiles ?? {}));
  for (let i = 1; ; i++) {
    const name = i === 1 ? wanted : `${wanted}-${i}`;
    if (!taken.has(name)) return name;
  }
}

/** Saves the profile of a copy (the name given, else the directory's, made unique) and says how to use it. */
export async function saveCopyProfile(ctx: Context, dir: string, mirrored: Mirrored, from: string, wanted?: string): Promise<void> {
  const name = wanted ?? freeName(ctx, basename(resolve(dir)));
  await storeProfile(ctx, name, { embedded: resolve(dir), email: mirrored.record.operator.email, apiKey: mirrored.apiKey });
  ctx.info(`chatctl: the copy is profile "${name}": chatctl --profile ${name} ...; then: chatctl org plan --desired ${dir} --against ${from}`);
}

export const mirrorCommand = defineCommand({
  path: ['org', 'mirror'],
  summary: 'copy a real organization into a new embedded one, to rehearse changes on',
  description:
    "Reads the configuration of the organization PROFILE reaches, never its messages (one POST /register, GET /users/me, GET /users, GET /user_groups and one GET /streams/{id}/members per channel: never a request per user; an administrator's profile sees it all), " +
    'and builds a new embedded organization in DIR (new or empty) with the same IDs and feature level: users and roles, groups, ' +
    'channels and subscribers, settings, linkifiers, domains, profile fields, channel folders. No message, password or key is copied: ' +
    'the copy answers as a stock server of that level does, and only you get a key, under a new profile (--profile-name, default ' +
    'the directory name) saved as profiles are (0600). DIR/base.json (0600, no secret) keeps what was read: org plan --desired DIR ' +
    '--against PROFILE compares it, the copy now and production now, and proposes only what changed on the copy.',
  examples: [
    'chatctl org mirror --from prod --to ./rehearsal',
    'chatctl --profile rehearsal channels create onboarding',
    'chatctl org plan --desired ./rehearsal --against prod --out plan.json',
    'chatctl --profile prod org apply --plan plan.json',
  ],
  options: {
    from: fromFlag,
    to: flag.required(flag.string('--to <dir>', 'the new data dir of the copy (must not exist, or be empty)'), '--to DIR is required'),
    profileName: flag.string('--profile-name <name>', 'the profile saved for the copy (default: the directory name, made unique)', { complete: 'none' }),
  },
  async run(opts, ctx) {
    const mirrored = await mirrorProfile(ctx, opts.from, opts.to);
    await saveCopyProfile(ctx, opts.to, mirrored, opts.from, opts.profileName);
  },
});
