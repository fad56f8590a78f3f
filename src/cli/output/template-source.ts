/** The text of `--template`: given inline, or read from a file named after `@` (`--template @users.hbs`). */
import { readFileSync } from 'node:fs';
import { systemReason } from '../../errno.js';
import { usageError } from '../core/errors.js';

export function readTemplate(value: string, name: string): string {
  if (!value.startsWith('@')) return value;
  const file = value.slice(1);
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw usageError(`${name}: cannot read template file "${file}": ${systemReason(e)}`);
  }
}
