import { COMPLETION_FILES, completionTree, renderCompletion, SHELLS } from '../command/completion.js';
import { defineCommand, type CommandSpec } from '../command/command.js';
import { arg } from '../core/flags.js';
import { NOUNS } from './index.js';

export async function allCommands(): Promise<Map<string, readonly CommandSpec[]>> {
  return new Map(await Promise.all(NOUNS.map(async (n) => [n.name, await n.load()] as const)));
}

export const commands = [
  defineCommand({
    path: ['completion'],
    summary: 'print the shell completion script for bash, zsh or fish',
    description: `The same scripts ship in completions/ (${Object.values(COMPLETION_FILES).join(', ')}).`,
    examples: [
      'source <(chatctl completion bash)',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh expansion, for the shell to make
      'chatctl completion zsh > "${fpath[1]}/_chatctl"',
      'chatctl completion fish > ~/.config/fish/completions/chatctl.fish',
    ],
    args: { shell: arg.choice(`one of ${SHELLS.join(', ')}`, SHELLS, { what: 'shell' }) },
    async run(opts, ctx) {
      ctx.io.stdout.write(renderCompletion(opts.shell, completionTree(NOUNS, await allCommands())));
    },
  }),
];
