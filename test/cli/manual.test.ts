import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { longOf } from '../../src/cli/core/flags.js';
import { allCommands } from '../../src/cli/commands/completion.js';
import { NOUNS } from '../../src/cli/commands/index.js';
import { MAN_DIR, REFERENCE_DIR, renderManual } from '../../src/cli/entry/manual.js';
import { lintRoff } from '../helpers/roff-lint.js';

const ROOT = new URL('../..', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, ROOT), 'utf8');
const generated = async () => renderManual(NOUNS, await allCommands());

/** groff, where installed: it reads a page as man(1) would, and -ww warns of anything it does not understand. */
const groff = spawnSync('groff', ['--version']).status === 0;

describe('the command reference and the man pages', () => {
  it('docs/commands and man/ are what the command declarations make (run npm run docs)', async () => {
    const files = await generated();
    for (const [path, text] of files) expect(existsSync(new URL(path, ROOT)) && read(path) === text, `${path} is stale: run npm run docs`).toBe(true);
    for (const dir of [REFERENCE_DIR, MAN_DIR]) {
      const extra = readdirSync(new URL(dir, ROOT)).filter((name) => !files.has(`${dir}/${name}`));
      expect(extra, `${dir}/ holds files no declaration makes: run npm run docs`).toEqual([]);
    }
  });

  it('package.json installs every man page and ships the folder', async () => {
    const pkg: { man?: string[]; files?: string[] } = JSON.parse(read('package.json'));
    const pages = [...(await generated()).keys()].filter((path) => path.startsWith(`${MAN_DIR}/`));
    expect(pkg.man).toEqual(pages);
    expect(pkg.files).toContain(MAN_DIR);
  });

  it("each noun's page documents every command, its arguments, options, examples and the exit codes", async () => {
    const files = await generated();
    for (const [noun, specs] of await allCommands()) {
      if (NOUNS.find((n) => n.name === noun)?.hidden) continue;
      const page = files.get(`${REFERENCE_DIR}/${noun}.md`)!;
      const man = files.get(`${MAN_DIR}/chatctl-${noun}.1`)!;
      for (const spec of specs) {
        const name = `chatctl ${spec.path.join(' ')}`;
        expect(page, name).toContain(`## ${name}\n`);
        expect(man, name).toContain(`.SS "${name.replace(/-/g, '\\-')}"`);
        for (const f of Object.values(spec.flags)) {
          expect(page, `${name} ${f.flags}`).toContain(`| \`${f.flags}\` |`);
          expect(man, `${name} ${f.flags}`).toContain(longOf(f.flags).replace(/-/g, '\\-'));
        }
        for (const example of spec.examples ?? []) expect(page, name).toContain(`${example}\n`);
      }
      expect(page).toMatch(/\| 75 \| temporary failure after retries/);
      expect(man).toContain('.SH "EXIT STATUS"');
    }
  });

  it('options show their type, choices and default', async () => {
    const files = await generated();
    const users = files.get(`${REFERENCE_DIR}/users.md`)!;
    expect(users).toContain('| `--role <role>` | role: owner, admin, moderator, member, guest |  |');
    expect(users).toContain('| `--inactive-since <duration>` | duration |  |');
    expect(users).toContain('| `--format <format>` | one of: table, tsv, csv, json, ndjson |  |');
    const index = files.get(`${REFERENCE_DIR}/README.md`)!;
    expect(index).toContain('| `--max-wait <seconds>` | seconds | `60` |');
    expect(index).toContain('- `CHATCTL_DATA_DIR`:');
  });

  it('every man page passes the roff lint', async () => {
    for (const [path, text] of await generated()) if (path.startsWith(`${MAN_DIR}/`)) expect(lintRoff(text), path).toEqual([]);
  });

  it.skipIf(!groff)('groff reads every man page without a warning', () => {
    for (const name of readdirSync(new URL(MAN_DIR, ROOT))) {
      const result = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', `${MAN_DIR}/${name}`], { cwd: ROOT, encoding: 'utf8' });
      expect(result.stderr, name).toBe('');
      expect(result.status, name).toBe(0);
    }
    const page = execFileSync('groff', ['-man', '-Tutf8', '-P-cbou', `${MAN_DIR}/chatctl-users.1`], { cwd: ROOT, encoding: 'utf8' });
    expect(page).toContain('chatctl users list [options]');
    expect(page).toContain('--inactive-since <duration>');
  });
});

describe('the roff lint', () => {
  it('names an unknown request, an unescaped backslash, a line read as a request and characters beyond ASCII', () => {
    const page = ['.TH X 1', '.SH NAME', '.XX what', "'quoted", 'a \\q b', 'caf\u00e9'].join('\n');
    expect(lintRoff(`${page}\n`)).toEqual([
      'line 3: unknown request .XX',
      "line 4: a line starting with ' is a request",
      'line 5: unknown escape \\q',
      'line 6: a character beyond ASCII (write it as \\[uXXXX])',
    ]);
    expect(lintRoff('.SH NAME\n')).toEqual(['the page does not start with .TH']);
  });
});
