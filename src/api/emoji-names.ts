/**
 * The Unicode emoji as a Zulip server names them (`+1`/`thumbs_up` → `1f44d`, `tada` → `1f389`; codes are
 * the lowercase hex code points joined by `-`). Part of the API's vocabulary: the server resolves reaction
 * and status names with it, and the CLI turns an emoji typed as itself (👍) into its name.
 */
import { EMOJI_TABLE } from './emoji-data.js';

let byName: Map<string, string> | undefined;
let byCode: Map<string, string> | undefined;

function tables(): { byName: Map<string, string>; byCode: Map<string, string> } {
  if (!byName || !byCode) {
    byName = new Map();
    byCode = new Map();
    for (const entry of EMOJI_TABLE) {
      const [code, canonical, ...aliases] = entry.split(' ') as [string, string, ...string[]];
      byCode.set(code, canonical);
      for (const name of [canonical, ...aliases]) byName.set(name, code);
    }
  }
  return { byName, byCode };
}

/** The code of a Unicode emoji name (canonical or alias), or undefined. */
export const unicodeEmojiCode = (name: string): string | undefined => tables().byName.get(name);

/** The canonical name of a Unicode emoji code, or undefined for a code the server does not know. */
export const unicodeEmojiName = (code: string): string | undefined => tables().byCode.get(code);
