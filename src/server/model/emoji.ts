/**
 * Unicode emoji names, as a Zulip server names them (`+1`/`thumbs_up` → `1f44d`, `tada` → `1f389`), and
 * the special `zulip` emoji. Codes are the lowercase hex code points joined by `-`.
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

/** Every name (canonical and aliases) of the Unicode emoji with this code. */
export function unicodeEmojiNames(code: string): string[] {
  return [...tables().byName].filter(([, c]) => c === code).map(([n]) => n);
}

/** Zulip's own extra emoji namespace: one emoji, name and code `zulip`. */
export const ZULIP_EXTRA_EMOJI = 'zulip';

/** The character(s) of a Unicode emoji code (`1f44d` → 👍). */
export const emojiChars = (code: string): string =>
  String.fromCodePoint(...code.split('-').map((h) => parseInt(h, 16)));
