/** Random strings from the CSPRNG, for every layer: API keys, webhook tokens, generated passwords. */
import { randomInt } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random string of characters from `alphabet`; unbiased (randomInt rejects what would skew the draw). */
export function randomString(length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** A random string of alphanumerics. */
export const randomAlphanumeric = (length: number): string => randomString(length, ALPHANUMERIC);
