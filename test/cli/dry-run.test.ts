/** What --dry-run prints of a request: everything but secrets, by the same rule --verbose follows. */
import { describe, expect, it } from 'vitest';
import { describeRequest } from '../../src/cli/bulk/dry-run.js';
import { describeRequest as traceLine } from '../../src/client/redact.js';
import type { WireRequest } from '../../src/api/wire.js';

const SECRETS: [string, string][] = [
  ['password', 'pw-1'],
  ['new_password', 'pw-2'],
  ['api_key', 'k'.repeat(32)],
  ['bot_token', 'tok-3'],
  ['client_secret', 'sec-4'],
  ['otp', '123456'],
];

const request = (): WireRequest => ({
  method: 'POST',
  path: '/things',
  query: [['anchor', 'newest'], ...SECRETS],
  body: [['name', 'x'], ...SECRETS],
  headers: { authorization: 'Basic eDp5' },
});

describe('dry-run request descriptions', () => {
  it('mask every parameter --verbose masks, and nothing else', () => {
    const shown = JSON.stringify(describeRequest(request()));
    const traced = traceLine(request());
    for (const [, value] of SECRETS) {
      expect(shown).not.toContain(value);
      expect(traced).not.toContain(value);
    }
    expect(describeRequest(request())).toMatchObject({ method: 'POST', path: '/api/v1/things', query: { anchor: 'newest' }, body: { name: 'x' } });
    expect(shown).not.toContain('Basic');
  });
});
