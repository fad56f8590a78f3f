/**
 * A field only a report fills (users list's last_active and status, channels list's status, profile_data)
 * named in --fields without its report option is a usage error that names the option, before anything is
 * sent, rather than an empty column. Every declaration names an option its command has.
 */
import { describe, expect, it } from 'vitest';
import { allCommands } from '../../src/cli/commands/completion.js';
import { expectUsageError } from '../helpers/cli.js';

describe('--fields and report-only fields', () => {
  it.each([
    [['users', 'list', '--fields', 'user_id,last_active'], 'field "last_active" is printed only with --inactive-since <duration>'],
    [['users', 'list', '--fields', 'status'], 'field "status" is printed only with --inactive-since <duration>'],
    [['users', 'list', '--fields', 'user_id,profile_data'], 'field "profile_data" is printed only with --custom-fields'],
    [['users', 'get', '8', '--fields', 'profile_data'], 'field "profile_data" is printed only with --custom-fields'],
    [['channels', 'list', '--fields', 'name,status'], 'field "status" is printed only with --quiet-since <duration>'],
  ])('%j exits 2 naming the option', async (argv, message) => {
    await expectUsageError(argv, message);
  });

  it('says how to fix it', async () => {
    await expectUsageError(['users', 'list', '--fields', 'last_active'], 'hint: add --inactive-since <duration>, or leave last_active out of --fields');
  });

  it('every field a declaration says an option adds is one of the fields, and the option is one of the command’s', async () => {
    let checked = 0;
    for (const specs of (await allCommands()).values()) {
      for (const spec of specs) {
        for (const [field, option] of Object.entries(spec.output?.addedBy ?? {})) {
          expect(spec.output?.fields, `${spec.path.join(' ')}: ${field}`).toContain(field);
          expect(Object.keys(spec.flags), `${spec.path.join(' ')}: ${option}`).toContain(option);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });
});
