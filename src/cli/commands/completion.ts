import { COMPLETION_FILES, completionTree, renderCompletion, SHELLS, type Shell } from '../completion.js';
import type { CommandSpec } from '../legacy-command.js';
import { defineLegacyCommand, opt } from '../legacy-command.js';
import { usageError } from '../errors.js';
import { NOUNS } from './index.js';

export async function allCommands(): Promise<Map<string, readonly CommandSpec[]>> {
  return new Map(await Promise.all(NOUNS.map(async (n) => [n.name, await n.load()] as const)));
}

export const commands = [
  defineLegacyCommand({
    path: ['completion'],
    summary: 'print the shell completion script for bash, zsh or fish',
    description: `The same scripts ship in completions/ (${Object.values(COMPLETION_FILES).join(', ')}).`,
    examples: [
      'source <(chatctl completion bash)',
      'chatctl completion zsh > "${fpath[1]}/_chatctl"',
      'chatctl completion fish > ~/.config/fish/completions/chatctl.fish',
    ],
    args: [{ name: 'shell', description: `one of ${SHELLS.join(', ')}`, required: true }],
    async run(opts, ctx) {
      const shell = opt.str(opts, 'shell')!;
      if (!(SHELLS as readonly string[]).includes(shell)) throw usageError(`unknown shell "${shell}"`, `shells: ${SHELLS.join(', ')}`);
      ctx.io.stdout.write(renderCompletion(shell as Shell, completionTree(NOUNS, await allCommands())));
    },
  }),
];
