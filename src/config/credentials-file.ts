/** Files that hold secrets: refused when anyone but their owner can read them. */
import { statSync } from 'node:fs';
import { ChatctlError } from '../errors.js';

export function assertPrivate(path: string): void {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return;
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new ChatctlError(
      `${path} holds credentials but others can read it (mode ${(mode & 0o777).toString(8)}); refusing to use it`,
      'auth',
      `run: chmod 600 ${path}`,
    );
  }
}
