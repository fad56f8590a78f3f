import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPLETION_FILES, completionTree, renderCompletion, SHELLS } from '../../src/cli/command/completion.js';
import { allCommands } from '../../src/cli/commands/completion.js';
import { NOUNS } from '../../src/cli/commands/index.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { cliTarget, runCli, tempHome, writeProfile } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { TRANSPORTS } from '../helpers/transports.js';

describe('shell completions', () => {
  it.each(SHELLS)('completions/%s is generated from the current command tree (run npm run completions)', async (shell) => {
    const expected = renderCompletion(shell, completionTree(NOUNS, await allCommands()));
    const file = readFileSync(new URL(`../../completions/${COMPLETION_FILES[shell]}`, import.meta.url), 'utf8');
    expect(file === expected, `completions/${COMPLETION_FILES[shell]} is stale: run npm run completions`).toBe(true);
  });

  it('chatctl completion prints the script, and refuses an unknown shell', async () => {
    const bash = await runCli(['completion', 'bash']);
    expect(bash.stdout).toContain('complete -F _chatctl chatctl');
    const bad = await runCli(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('hint: shells: bash, zsh, fish');
  });
});

describe('help', () => {
  it('every command has a summary, a longer description and examples', async () => {
    for (const [, specs] of await allCommands()) {
      for (const spec of specs) {
        const name = spec.path.join(' ');
        expect(spec.summary, name).toMatch(/\w{3}/);
        expect(spec.description ?? '', `${name} has no description`).toMatch(/\w{3}/);
        expect(spec.examples?.length ?? 0, `${name} has no examples`).toBeGreaterThan(0);
      }
    }
  });
});

describe('the bash completion script', () => {
  const complete = (words: string[], env: Record<string, string> = {}): string[] => {
    // `chatctl` is this checkout's, as a function: the script runs it to list the stored profiles.
    const script = `chatctl() { node bin/chatctl.cjs "$@"; }; source completions/chatctl.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _chatctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
    return execFileSync('bash', ['-c', script], { cwd: new URL('../..', import.meta.url), encoding: 'utf8', env: { ...process.env, ...env } })
      .split('\n')
      .filter(Boolean);
  };

  it('completes nouns, verbs, options, option choices and api paths', () => {
    expect(complete(['chatctl', 'us'])).toEqual(['users']);
    expect(complete(['chatctl', 'users', 'deac'])).toEqual(['deactivate']);
    expect(complete(['chatctl', 'users', 'list', '--ro'])).toEqual(['--role']);
    expect(complete(['chatctl', 'users', 'list', '--format', 'n'])).toEqual(['ndjson']);
    expect(complete(['chatctl', '--profile', 'work', 'invite', 'se'])).toEqual(['send']);
    expect(complete(['chatctl', 'api', 'D'])).toEqual(['DELETE']);
    expect(complete(['chatctl', 'api', 'GET', '/server_s'])).toEqual(['/server_settings']);
  });

  it('completes the api paths of the method given, each once', () => {
    expect(complete(['chatctl', 'api', 'POST', '/user_up'])).toEqual(['/user_uploads']);
    expect(complete(['chatctl', 'api', 'post', '/user_up'])).toEqual(['/user_uploads']);
    expect(complete(['chatctl', 'api', 'GET', '/user_up'])).toEqual([]);
    const paths = complete(['chatctl', 'api', 'POST', '/']);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toContain('/register');
  });

  it('completes role names for --role and --as, and the stored profiles for --profile', () => {
    expect(complete(['chatctl', 'users', 'list', '--role', 'ad'])).toEqual(['admin']);
    expect(complete(['chatctl', 'invite', 'send', '--as', 'g'])).toEqual(['guest']);
    const { env } = tempHome();
    writeProfile(env, { server: 'https://chat.example.com', email: 'ada@example.com', apiKey: 'k'.repeat(32) });
    expect(complete(['chatctl', 'users', 'list', '--profile', ''], env)).toEqual(['default']);
    expect(complete(['chatctl', '-p', 'def'], env)).toEqual(['default']);
  });
  it('never offers file names for a value that is not a file; files and directories where they are', () => {
    const { home, env } = tempHome();
    expect(complete(['chatctl', 'attachments', 'clean', '--older-than', ''], { ...env, PWD: home })).toEqual([]);
    expect(complete(['chatctl', 'users', 'list', '--fields', ''])).toEqual([]);
    expect(complete(['chatctl', 'users', 'list', '--from-f'])).toEqual([]);
    expect(complete(['chatctl', 'users', 'deactivate', '--from-file', 'packa']).sort()).toEqual(['package-lock.json', 'package.json']);
    expect(complete(['chatctl', '--data-dir', 'sr'])).toEqual(['src']);
    expect(complete(['chatctl', '--data-dir', 'packa'])).toEqual([]);
  });

  it('completes channel names and users’ e-mail addresses from the server, and nothing without credentials', async () => {
    const org = createTestOrg();
    try {
      const { env } = tempHome();
      const creds = { ZULIP_EMAIL: org.owner.email, ZULIP_API_KEY: org.owner.apiKey };
      const user = org.addUser({ email: 'zed@example.com' });
      expect(complete(['chatctl', '--data-dir', org.dataDir, 'channels', 'subscribe', '--user', 'ze'], { ...env, ...creds })).toEqual([user.email]);
      const none = tempHome();
      expect(complete(['chatctl', 'channels', 'subscribe', '--user', ''], none.env)).toEqual([]);
      // A Tab creates no organization where nothing is configured.
      expect(existsSync(join(none.env.XDG_DATA_HOME, 'chatctl'))).toBe(false);
    } finally {
      await org.close();
    }
  });
});

describe('the hidden __complete command', () => {
  it('is in neither help nor the completion scripts', async () => {
    expect((await runCli(['--help'])).stdout).not.toContain('__complete');
    expect((await runCli(['completion', 'bash'])).stdout).not.toContain("'__complete'");
  });
});

describe.each(TRANSPORTS)('__complete over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  it('prints the channel names and the active users’ addresses, one a line', async () => {
    const t = await cliTarget(org, kind);
    const gone = org.addUser({ email: `gone-${kind}@example.com` });
    const here = org.addUser({ email: `here-${kind}@example.com` });
    expect((await runCli([...t.args, 'users', 'deactivate', String(gone.id), '--yes'], { env: t.env })).code).toBe(0);
    const users = await runCli([...t.args, '__complete', 'users'], { env: t.env });
    expect(users.code).toBe(0);
    expect(users.stdout.split('\n')).toContain(here.email);
    expect(users.stdout.split('\n')).not.toContain(gone.email);
    expect((await runCli([...t.args, 'channels', 'create', `tab test ${kind}`], { env: t.env })).code).toBe(0);
    const channels = await runCli([...t.args, '__complete', 'channels'], { env: t.env });
    expect(channels.stdout.split('\n')).toContain(`tab test ${kind}`);
    expect(channels.stderr).toBe('');
  });
});
