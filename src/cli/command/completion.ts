/**
 * Shell completions for bash, zsh and fish, generated from the command tree (every noun, verb, option and
 * option choice) and the operation catalogue (for `chatctl api METHOD PATH`). The checked-in files under
 * completions/ are this output; a test fails when they are stale.
 */
import { catalogue } from '../../api/catalogue.js';
import type { CommandSpec } from './command.js';
import { longOf, type Completion, type Flag } from '../core/flags.js';
import { GLOBAL_FLAGS, VALUE_GLOBALS } from './global-options.js';
import { treeOf, type NounEntry } from './command-tree.js';

interface OptionInfo {
  long: string;
  short?: string;
  takesValue: boolean;
  /** Fixed values to offer; otherwise `complete` says where values come from. */
  choices?: readonly string[];
  complete: Completion;
  description: string;
}

interface Node {
  words: string;
  summary: string;
  options: OptionInfo[];
  children: { name: string; summary: string }[];
}

/**
 * Where a flag's values come from when it does not say: what its value placeholder names (`<file>`,
 * `<dir>`, `<channel>`, `<users...>`), and otherwise nothing, never file names.
 */
const BY_PLACEHOLDER: readonly [RegExp, Completion][] = [
  [/<(file|path)s?(\.\.\.)?>/, 'files'],
  [/<dir>/, 'dirs'],
  [/<channels?(\.\.\.)?>/, 'channels'],
  [/<(users?|bot|owner)(\.\.\.)?>/, 'users'],
];

const completionOf = (flags: string): Completion => BY_PLACEHOLDER.find(([placeholder]) => placeholder.test(flags))?.[1] ?? 'none';

function optionInfo(f: Pick<Flag<unknown>, 'flags' | 'description' | 'choices' | 'suggestions' | 'complete'>): OptionInfo {
  const short = /(^|\s|,)(-\w)\b/.exec(f.flags)?.[2];
  const choices = f.choices ?? f.suggestions;
  return {
    long: longOf(f.flags),
    short,
    takesValue: /[<[]/.test(f.flags),
    ...(choices ? { choices } : {}),
    complete: f.complete ?? completionOf(f.flags),
    description: f.description,
  };
}

/** How each shell lists the stored profiles (chatctl itself prints them; nothing if that fails). */
const PROFILES = 'chatctl profiles list --format tsv --fields name 2>/dev/null';

/** The target options typed before the word being completed (--profile, --data-dir, --server ...), as bash and zsh collect them. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, for bash and zsh to make
const TYPED_GLOBALS = '"${globals[@]}"';

/** How each shell asks for the server's names: a hidden command, bounded in time, silent on any failure, given `globals`. */
const NAMES = (kind: 'channels' | 'users', globals: string) => `chatctl ${globals} __complete ${kind} 2>/dev/null`;

/** The tree as a flat list of command paths (`''`, `users`, `users list` ...). */
export function completionTree(all: readonly NounEntry[], specs: ReadonlyMap<string, readonly CommandSpec[]>): Node[] {
  const nouns = all.filter((n) => !n.hidden);
  const globals = Object.values(GLOBAL_FLAGS).map(optionInfo);
  const nodes: Node[] = [
    {
      words: '',
      summary: 'chatctl',
      options: globals,
      children: nouns
        .map((n) => ({ name: n.name, summary: n.summary }))
        .concat(
          [
            { name: 'help', summary: 'help on a command or topic' },
            { name: 'completion', summary: 'print a shell completion script' },
          ].filter((c) => !nouns.some((n) => n.name === c.name)),
        ),
    },
  ];
  for (const noun of nouns) {
    const tree = treeOf(noun, specs.get(noun.name) ?? []);
    // Each group's node lists the words that may follow it: its groups and commands, in declaration order.
    const children = new Map<string, Node['children']>();
    const childOf = (path: readonly string[], summary: string) => children.get(path.slice(0, -1).join(' '))?.push({ name: path[path.length - 1]!, summary });
    for (const entry of tree) {
      if (entry.kind === 'group') {
        childOf(entry.path, entry.summary);
        const node: Node = { words: entry.path.join(' '), summary: entry.summary, options: globals, children: [] };
        children.set(node.words, node.children);
        nodes.push(node);
        continue;
      }
      const { spec } = entry;
      childOf(spec.path, spec.summary);
      const flags = Object.values(spec.flags).flatMap((f) => (f.negation ? [f, f.negation] : [f]));
      nodes.push({
        words: spec.path.join(' '),
        summary: spec.summary,
        options: [...flags.map(optionInfo), ...globals, optionInfo({ flags: '-h, --help', description: 'show help' })],
        children: [],
      });
    }
  }
  return nodes;
}

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
/** The catalogue's paths for a method, each once (an operation's older forms share its path). */
const apiPaths = (method: string) => [...new Set(catalogue.filter((op) => op.method === method).map((op) => op.path))].sort();
/** Shell `case` arms giving each method (in either case) its paths, by `assign`. */
const methodCases = (assign: (paths: string) => string): string => METHODS.map((m) => `${m}|${m.toLowerCase()}) ${assign(apiPaths(m).join(' '))} ;;`).join(' ');
const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Names one a line (a channel name may hold spaces), as bash completions of the word being typed. */
const bashLines = (command: string) => `local IFS=$'\\n'; COMPREPLY=($(compgen -W "$(${command})" -- "$cur"))`;

function bashValues(o: OptionInfo): string {
  if (o.choices) return `COMPREPLY=($(compgen -W ${q(o.choices.join(' '))} -- "$cur"))`;
  switch (o.complete) {
    case 'profiles':
      return bashLines(PROFILES);
    case 'channels':
    case 'users':
      return bashLines(NAMES(o.complete, TYPED_GLOBALS));
    case 'files':
      return 'COMPREPLY=($(compgen -f -- "$cur"))';
    case 'dirs':
      return 'COMPREPLY=($(compgen -d -- "$cur"))';
    case 'none':
      return 'COMPREPLY=()';
  }
}

/** A flag's values for zsh: the words, or _files, _dirs, _profiles, _channels, _users or _none, which the function below expands. */
const zshValues = (o: OptionInfo): string => o.choices?.join(' ') ?? `_${o.complete}`;

function fishValues(o: OptionInfo): string {
  if (o.choices) return ` -x -a ${q(o.choices.join(' '))}`;
  switch (o.complete) {
    case 'profiles':
      return ` -x -a ${q(`(${PROFILES})`)}`;
    case 'channels':
    case 'users':
      return ` -x -a ${q(`(${NAMES(o.complete, '(__chatctl_globals)')})`)}`;
    case 'files':
      return ' -r -F';
    case 'dirs':
      return ` -x -a ${q('(__fish_complete_directories)')}`;
    case 'none':
      return ' -x';
  }
}

function bash(nodes: Node[]): string {
  const cases = nodes
    .map((n) => {
      const words = [...n.children.map((c) => c.name), ...n.options.flatMap((o) => [o.long, ...(o.short ? [o.short] : [])])].join(' ');
      const valued = n.options.filter((o) => o.takesValue);
      const choiceCases = valued.map((o) => `        ${[o.long, o.short].filter(Boolean).join('|')}) ${bashValues(o)}; return ;;`).join('\n');
      return `    ${q(n.words)})\n      case "$prev" in\n${choiceCases}\n      esac\n      COMPREPLY=($(compgen -W ${q(words)} -- "$cur")) ;;`;
    })
    .join('\n');
  return `# bash completion for chatctl (generated by \`chatctl completion bash\`; do not edit)
_chatctl() {
  local cur prev path="" i w
  local -a globals=()
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      ${VALUE_GLOBALS.join('|')}) globals+=("$w" "\${COMP_WORDS[i+1]}"); ((i++)) ;;
      -*) ;;
      *) path="\${path:+$path }$w" ;;
    esac
  done
  if [[ "$path" == api || "$path" == "api "* ]]; then
    local n=\${path//[^ ]/}
    if [[ "$path" == api && "$cur" != -* ]]; then COMPREPLY=($(compgen -W ${q(METHODS.join(' '))} -- "$cur")); return; fi
    if [[ \${#n} -eq 1 && "$cur" != -* ]]; then case "\${path#api }" in ${methodCases((paths) => `COMPREPLY=($(compgen -W ${q(paths)} -- "$cur"))`)} esac; return; fi
  fi
  while :; do
    case "$path" in
${cases}
      *) if [[ "$path" == *" "* ]]; then path="\${path% *}"; continue; fi; COMPREPLY=() ;;
    esac
    break
  done
}
complete -F _chatctl chatctl chatctl.cjs
`;
}

function zsh(nodes: Node[]): string {
  const entries = nodes
    .map((n) => {
      const items = [
        ...n.children.map((c) => `${c.name}:${c.summary.replace(/:/g, '\\:')}`),
        ...n.options.map((o) => `${o.long}:${o.description.replace(/:/g, '\\:')}`),
      ];
      return `  ${q(n.words)} ${q(items.join('\n'))}`;
    })
    .join('\n');
  const values = nodes.flatMap((n) => n.options.filter((o) => o.takesValue).map((o) => `  ${q(`${n.words}|${o.long}`)} ${q(zshValues(o))}`)).join('\n');
  return `#compdef chatctl chatctl.cjs
# zsh completion for chatctl (generated by \`chatctl completion zsh\`; do not edit)
typeset -A _chatctl_items _chatctl_values
_chatctl_items=(
${entries}
)
_chatctl_values=(
${values}
)
_chatctl() {
  local -a words_ items
  local path_="" i w prev="\${words[CURRENT-1]}"
  local -a globals
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    case "$w" in
      ${VALUE_GLOBALS.join('|')}) globals+=("$w" "\${words[i+1]}"); ((i++)) ;;
      -*) ;;
      *) path_="\${path_:+$path_ }$w" ;;
    esac
  done
  if [[ "$path_" == api && "\${words[CURRENT]}" != -* ]]; then compadd -- ${METHODS.join(' ')}; return; fi
  if [[ "$path_" == "api "* && "$path_" != "api "*" "* && "\${words[CURRENT]}" != -* ]]; then case "\${path_#api }" in ${methodCases((paths) => `compadd -- ${paths}`)} esac; return; fi
  while [[ -z "\${_chatctl_items[$path_]+x}" && "$path_" == *" "* ]]; do path_="\${path_% *}"; done
  local v="\${_chatctl_values[$path_|$prev]}"
  if [[ -n "$v" ]]; then
    case "$v" in
      _files) _files ;;
      _dirs) _files -/ ;;
      _profiles) compadd -- \${(f)"$(${PROFILES})"} ;;
      _channels) compadd -- \${(f)"$(${NAMES('channels', TYPED_GLOBALS)})"} ;;
      _users) compadd -- \${(f)"$(${NAMES('users', TYPED_GLOBALS)})"} ;;
      _none) ;;
      *) compadd -- \${=v} ;;
    esac
    return
  fi
  items=("\${(@f)_chatctl_items[$path_]}")
  _describe 'chatctl' items
}
compdef _chatctl chatctl chatctl.cjs
`;
}

function fish(nodes: Node[]): string {
  const lines = ['# fish completion for chatctl (generated by `chatctl completion fish`; do not edit)', 'complete -c chatctl -f'];
  lines.push(`function __chatctl_path
    set -l words (commandline -opc)
    set -e words[1]
    set -l path
    set -l skip 0
    for w in $words
        if test $skip -eq 1; set skip 0; continue; end
        switch $w
            case ${VALUE_GLOBALS.join(' ')}
                set skip 1
            case '-*'
            case '*'
                set path $path $w
        end
    end
    echo (string join ' ' $path)
end`);
  // The target options typed so far, one word a line, for the command that lists the server's names.
  lines.push(`function __chatctl_globals
    set -l words (commandline -opc)
    set -e words[1]
    set -l take 0
    for w in $words
        if test $take -eq 1; echo $w; set take 0; continue; end
        switch $w
            case ${VALUE_GLOBALS.join(' ')}
                echo $w
                set take 1
        end
    end
end`);
  for (const n of nodes) {
    const cond = `"test (__chatctl_path) = '${n.words}'"`;
    for (const c of n.children) lines.push(`complete -c chatctl -n ${cond} -a ${q(c.name)} -d ${q(c.summary)}`);
    for (const o of n.options) {
      const args = o.takesValue ? fishValues(o) : '';
      lines.push(`complete -c chatctl -n ${cond} -l ${o.long.slice(2)}${o.short ? ` -s ${o.short.slice(1)}` : ''}${args} -d ${q(o.description)}`);
    }
  }
  lines.push(`complete -c chatctl -n "test (__chatctl_path) = api" -a ${q(METHODS.join(' '))}`);
  for (const m of METHODS) {
    for (const spelled of [m, m.toLowerCase()]) lines.push(`complete -c chatctl -n "test (__chatctl_path) = 'api ${spelled}'" -a ${q(apiPaths(m).join(' '))}`);
  }
  return `${lines.join('\n')}\n`;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];
export const COMPLETION_FILES: Record<Shell, string> = { bash: 'chatctl.bash', zsh: '_chatctl', fish: 'chatctl.fish' };

export function renderCompletion(shell: Shell, nodes: Node[]): string {
  return shell === 'bash' ? bash(nodes) : shell === 'zsh' ? zsh(nodes) : fish(nodes);
}
