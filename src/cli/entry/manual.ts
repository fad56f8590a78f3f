/**
 * The command reference (docs/commands/*.md) and the man pages (man/*.1), from the declarations that drive
 * --help and the completions: one page per noun, and an index (README.md, chatctl.1) holding the global
 * options, the environment, the output contract and the exit codes. scripts/docs.mjs writes these files; a
 * test fails when the checked-in ones differ from this output. Nothing here is dated or versioned, so the
 * files change only when a declaration does.
 */
import type { CommandSpec } from '../command/command.js';
import { treeOf, type NounEntry, type TreeEntry } from '../command/command-tree.js';
import { GLOBAL_FLAGS } from '../command/global-options.js';
import { EXIT, EXIT_DESCRIPTIONS, type ExitKind } from '../core/errors.js';
import { takesValue, type Arg, type Flag } from '../core/flags.js';
import { bulkExits, ENVIRONMENT, HELP_TOPICS } from './help-topics.js';
import { argumentUsage, PROGRAM_DESCRIPTION } from './program.js';

/** Where the generated files go, relative to the package root. */
export const REFERENCE_DIR = 'docs/commands';
export const MAN_DIR = 'man';

/** The help topics the index carries whole (exit codes and the environment have their own sections). */
const TOPICS = ['output', 'durations'] as const;

const HELP_FLAG = { flags: '-h, --help', description: 'show help' };

/** A block of prose: a paragraph, or lines kept as they are (a JSON example, a list of operations). */
type Block = { kind: 'text'; text: string } | { kind: 'pre'; lines: string[] };

/**
 * Help text as blocks. Each line of prose is a paragraph (help never wraps by hand); lines indented by at
 * least `preIndent` spaces are kept as written, as help prints them.
 */
function blocksOf(text: string, preIndent: number): Block[] {
  const blocks: Block[] = [];
  let blank = false;
  for (const line of text.split('\n')) {
    const indent = /^ */.exec(line)![0].length;
    const last = blocks[blocks.length - 1];
    if (line.trim() === '') {
      blank = true;
      continue;
    }
    // A blank line ends a kept block: the template examples are not more of the helpers' list above them.
    const follows = last?.kind === 'pre' && !blank;
    blank = false;
    if (indent >= preIndent) {
      if (follows) last.lines.push(line.slice(preIndent));
      else blocks.push({ kind: 'pre', lines: [line.slice(preIndent)] });
    } else blocks.push({ kind: 'text', text: line.trim() });
  }
  return blocks;
}

/** An option's value as the reference types it: its type, choices and default, and whether it repeats. */
function typeOf(f: Flag<unknown>): string {
  if (!takesValue(f.flags)) return 'switch';
  const values = f.choices ?? f.suggestions;
  return `${f.type ?? 'text'}${values ? `: ${values.join(', ')}` : ''}`;
}

interface OptionRow {
  flags: string;
  type: string;
  default?: string;
  description: string;
}

const optionRows = (flags: Readonly<Record<string, Flag<unknown>>>): OptionRow[] =>
  Object.values(flags).flatMap((f) => {
    const row: OptionRow = {
      flags: f.flags,
      type: typeOf(f),
      ...(f.default !== undefined ? { default: String(f.default) } : {}),
      description: f.description,
    };
    return f.negation ? [row, { flags: f.negation.flags, type: 'switch', description: f.negation.description }] : [row];
  });

const usageOf = (spec: CommandSpec): string =>
  ['chatctl', ...spec.path, '[options]', ...Object.entries(spec.args).map(([key, a]) => argumentUsage(key, a))].join(' ');

const argRows = (spec: CommandSpec): { usage: string; arg: Arg<unknown> }[] =>
  Object.entries(spec.args).map(([key, arg]) => ({ usage: argumentUsage(key, arg), arg }));

const exitRows = (): { code: number; description: string }[] =>
  (Object.keys(EXIT) as ExitKind[]).map((k) => ({ code: EXIT[k], description: EXIT_DESCRIPTIONS[k] }));

const visible = (nouns: readonly NounEntry[]) => nouns.filter((n) => !n.hidden);

const manName = (noun: string): string => `chatctl-${noun}`;

/** Every generated file, by its path relative to the package root. */
export function renderManual(nouns: readonly NounEntry[], specs: ReadonlyMap<string, readonly CommandSpec[]>): Map<string, string> {
  const files = new Map<string, string>();
  const shown = visible(nouns);
  files.set(`${REFERENCE_DIR}/README.md`, markdownIndex(shown));
  files.set(`${MAN_DIR}/chatctl.1`, roffIndex(shown));
  for (const noun of shown) {
    const tree = treeOf(noun, specs.get(noun.name) ?? []);
    files.set(`${REFERENCE_DIR}/${noun.name}.md`, markdownPage(noun, tree));
    files.set(`${MAN_DIR}/${manName(noun.name)}.1`, roffPage(noun, tree));
  }
  return files;
}

// Markdown (docs/commands)

/**
 * Prose for Markdown: characters that would turn into markup or HTML are escaped; an underscore inside a word
 * (user_id) is no emphasis in CommonMark and stays as written.
 */
const md = (text: string): string =>
  text.replace(/[\\`*<>|[\]]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : `\\${c}`)).replace(/(?<!\w)_|_(?!\w)/g, '\\_');

const mdCode = (text: string): string => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

const mdBlocks = (blocks: readonly Block[]): string =>
  blocks.map((b) => (b.kind === 'text' ? `${md(b.text)}\n` : `\`\`\`text\n${b.lines.join('\n')}\n\`\`\`\n`)).join('\n');

const mdAnchor = (words: string): string =>
  words
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/\s/g, '-');

function mdOptions(rows: readonly OptionRow[]): string {
  const lines = ['| Option | Type | Default | Description |', '| --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${mdCode(r.flags)} | ${md(r.type)} | ${r.default === undefined ? '' : mdCode(r.default)} | ${md(r.description)} |`);
  return `${lines.join('\n')}\n`;
}

function mdExitCodes(): string {
  const lines = ['| Code | Meaning |', '| --- | --- |', ...exitRows().map((r) => `| ${r.code} | ${md(r.description)} |`)];
  return `${lines.join('\n')}\n`;
}

function markdownPage(noun: NounEntry, tree: readonly TreeEntry[]): string {
  const out: string[] = [
    `<!-- Generated by npm run docs from the command declarations (src/cli/commands/); do not edit. -->\n`,
    `# chatctl ${noun.name}\n`,
    `${md(noun.summary)}\n`,
  ];
  const commands = tree.flatMap((e) => (e.kind === 'command' ? [e.spec] : []));
  if (commands.length > 1) {
    out.push(commands.map((s) => `- [chatctl ${s.path.join(' ')}](#${mdAnchor(`chatctl ${s.path.join(' ')}`)}): ${md(s.summary)}`).join('\n'), '');
  }
  for (const entry of tree) {
    if (entry.kind === 'group') {
      if (entry.path.length > 1) out.push(`## chatctl ${entry.path.join(' ')}\n`, `${md(entry.summary)}\n`);
      continue;
    }
    const { spec } = entry;
    out.push(`## chatctl ${spec.path.join(' ')}\n`, `${md(spec.summary)}\n`, `\`\`\`text\n${usageOf(spec)}\n\`\`\`\n`);
    if (spec.aliases?.length) out.push(`Aliases: ${spec.aliases.map((a) => mdCode(['chatctl', ...spec.path.slice(0, -1), a].join(' '))).join(', ')}\n`);
    if (spec.default) out.push(`What ${mdCode(`chatctl ${spec.path.slice(0, -1).join(' ')}`)} runs when no subcommand is given.\n`);
    if (spec.description) out.push(mdBlocks(blocksOf(spec.description, 2)));
    const args = argRows(spec);
    if (args.length) {
      out.push(
        '### Arguments\n',
        `${args.map((a) => `- ${mdCode(a.usage)}: ${md(a.arg.description)}${a.arg.suggestions ? ` (${md(a.arg.suggestions.join(', '))})` : ''}`).join('\n')}\n`,
      );
    }
    const rows = optionRows(spec.flags);
    if (rows.length) out.push('### Options\n', mdOptions(rows));
    out.push(`And the [global options](README.md#global-options).\n`);
    if (spec.examples?.length) out.push('### Examples\n', `\`\`\`sh\n${spec.examples.join('\n')}\n\`\`\`\n`);
  }
  out.push('## Exit codes\n', mdExitCodes(), `Bulk runs: ${md(bulkExits())}\n`);
  return out.join('\n');
}

function markdownIndex(nouns: readonly NounEntry[]): string {
  const out: string[] = [
    `<!-- Generated by npm run docs from the command declarations (src/cli/commands/); do not edit. -->\n`,
    '# chatctl command reference\n',
    `${md(PROGRAM_DESCRIPTION)}.\n`,
    '```text\nchatctl [global options] <command> [options] [arguments]\n```\n',
    'The same pages are installed as man pages: `man chatctl`, `man chatctl-users` ...\n',
    '## Commands\n',
    `${nouns.map((n) => `- [chatctl ${n.name}](${n.name}.md): ${md(n.summary)}`).join('\n')}\n`,
    '## Global options\n',
    'Every command takes these, before or after its words.\n',
    mdOptions([...optionRows(GLOBAL_FLAGS), { flags: HELP_FLAG.flags, type: 'switch', description: HELP_FLAG.description }]),
    '## Environment\n',
    'Flags win over these; these win over profiles.\n',
    `${ENVIRONMENT.map((e) => `- ${mdCode(e.name)}: ${md(e.description)}`).join('\n')}\n`,
  ];
  for (const topic of TOPICS) out.push(`## ${topicTitle(topic)}\n`, `From ${mdCode(`chatctl help ${topic}`)}.\n`, mdBlocks(blocksOf(HELP_TOPICS[topic]!(), 4)));
  out.push('## Exit codes\n', mdExitCodes(), `Bulk runs: ${md(bulkExits())}\n`);
  return out.join('\n');
}

const topicTitle = (topic: string): string => `${topic[0]!.toUpperCase()}${topic.slice(1)}`;

// roff (man/), for man(7)

/**
 * Text for roff: backslashes and minus signs escaped (an option must copy as a hyphen-minus), a line never
 * starting as a request would, and every character beyond ASCII as its Unicode escape, so the page reads the
 * same whatever encoding groff assumes.
 */
const roff = (text: string): string =>
  text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[\u0080-\u{10ffff}]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
    .replace(/^([.'])/gm, '\\&$1');

const roffBlocks = (blocks: readonly Block[]): string[] =>
  blocks.flatMap((b) => (b.kind === 'text' ? ['.PP', roff(b.text)] : ['.PP', '.RS 4', '.nf', ...b.lines.map(roff), '.fi', '.RE']));

const roffOptions = (rows: readonly OptionRow[]): string[] =>
  rows.flatMap((r) => {
    // Plain text and switches go without saying; what a value is, and its default, in brackets after the help.
    const notes = [...(r.type === 'switch' || r.type === 'text' ? [] : [r.type]), ...(r.default === undefined ? [] : [`default: ${r.default}`])];
    return ['.TP', `.B ${roff(r.flags)}`, `${roff(r.description)}${notes.length ? ` (${roff(notes.join('; '))})` : ''}`];
  });

const roffExitCodes = (): string[] => [
  '.SH "EXIT STATUS"',
  ...exitRows().flatMap((r) => ['.TP', `.B ${r.code}`, roff(r.description)]),
  '.PP',
  roff(`Bulk runs: ${bulkExits()}`),
];

const roffHeader = (name: string, summary: string): string[] => [
  `.\\" Generated by npm run docs from the command declarations (src/cli/commands/); do not edit.`,
  `.TH ${roff(name.toUpperCase())} 1 "" "chatctl" "chatctl manual"`,
  '.SH NAME',
  `${roff(name)} \\- ${roff(summary)}`,
];

function roffPage(noun: NounEntry, tree: readonly TreeEntry[]): string {
  const commands = tree.flatMap((e) => (e.kind === 'command' ? [e.spec] : []));
  const out = [...roffHeader(manName(noun.name), noun.summary), '.SH SYNOPSIS', ...commands.flatMap((s, i) => [...(i ? ['.br'] : []), roff(usageOf(s))])];
  out.push('.SH DESCRIPTION', roff(noun.summary), '.PP', `Every command also takes the global options of \\fBchatctl\\fR(1).`);
  out.push('.SH COMMANDS');
  for (const entry of tree) {
    if (entry.kind === 'group') {
      if (entry.path.length > 1) out.push(`.SS "${roff(`chatctl ${entry.path.join(' ')}`)}"`, roff(entry.summary));
      continue;
    }
    const { spec } = entry;
    out.push(`.SS "${roff(`chatctl ${spec.path.join(' ')}`)}"`, roff(spec.summary), '.PP', `.B ${roff(usageOf(spec))}`);
    if (spec.aliases?.length) out.push('.PP', `Aliases: ${roff(spec.aliases.join(', '))}`);
    if (spec.default) out.push('.PP', roff(`What chatctl ${spec.path.slice(0, -1).join(' ')} runs when no subcommand is given.`));
    if (spec.description) out.push(...roffBlocks(blocksOf(spec.description, 2)));
    const args = argRows(spec);
    if (args.length) {
      out.push(
        '.PP',
        'Arguments:',
        ...args.flatMap((a) => [
          '.TP',
          `.I ${roff(a.usage)}`,
          `${roff(a.arg.description)}${a.arg.suggestions ? ` (${roff(a.arg.suggestions.join(', '))})` : ''}`,
        ]),
      );
    }
    const rows = optionRows(spec.flags);
    if (rows.length) out.push('.PP', 'Options:', ...roffOptions(rows));
    if (spec.examples?.length) out.push('.PP', 'Examples:', '.PP', '.RS 4', '.nf', ...spec.examples.map(roff), '.fi', '.RE');
  }
  out.push(...roffExitCodes(), '.SH "SEE ALSO"', '\\fBchatctl\\fR(1)');
  return `${out.join('\n')}\n`;
}

function roffIndex(nouns: readonly NounEntry[]): string {
  const out = [
    ...roffHeader('chatctl', 'administer Zulip-compatible team chat organizations'),
    '.SH SYNOPSIS',
    '.B chatctl',
    '[global options] \\fIcommand\\fR [options] [arguments]',
    '.SH DESCRIPTION',
    `${roff(PROGRAM_DESCRIPTION)}.`,
    '.SH COMMANDS',
    ...nouns.flatMap((n) => ['.TP', `\\fB${roff(`chatctl ${n.name}`)}\\fR, see \\fB${roff(manName(n.name))}\\fR(1)`, roff(n.summary)]),
    '.SH "GLOBAL OPTIONS"',
    'Every command takes these, before or after its words.',
    ...roffOptions([...optionRows(GLOBAL_FLAGS), { flags: HELP_FLAG.flags, type: 'switch', description: HELP_FLAG.description }]),
    '.SH ENVIRONMENT',
    'Flags win over these; these win over profiles.',
    ...ENVIRONMENT.flatMap((e) => ['.TP', `.B ${roff(e.name)}`, roff(e.description)]),
  ];
  for (const topic of TOPICS) out.push(`.SH ${topic.toUpperCase()}`, ...roffBlocks(blocksOf(HELP_TOPICS[topic]!(), 4)));
  out.push(...roffExitCodes(), '.SH "SEE ALSO"', nouns.map((n) => `\\fB${roff(manName(n.name))}\\fR(1)`).join(',\n'));
  return `${out.join('\n')}\n`;
}
