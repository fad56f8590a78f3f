/**
 * What a refusal of the file system means, for a person: the path, the cause in words, and what to do.
 * Node's own messages (`ENOENT: no such file or directory, mkdir ...`) name a system call, not the problem.
 */
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { systemReason } from '../../errno.js';
import { ChatctlError } from './errors.js';

export type FileErrno = NodeJS.ErrnoException & { code: string };

export const isFileErrno = (e: unknown): e is FileErrno =>
  e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';

function whoAmI(): string {
  try {
    return `user ${userInfo().username}`;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

/**
 * The error to report for `e`, or undefined when it is not one of the conditions a person can fix.
 * `path` stands for the one in the error when the caller knows better (the data dir, not a file in it).
 */
export function fileError(e: unknown, path?: string): ChatctlError | undefined {
  if (!isFileErrno(e)) return undefined;
  const p = path ?? e.path ?? '(unknown path)';
  switch (e.code) {
    case 'EACCES':
    case 'EPERM': {
      // A directory that cannot be made is its parent's permission.
      const check = path ?? (e.syscall === 'mkdir' && e.path ? dirname(e.path) : p);
      return new ChatctlError(
        `permission denied: chatctl (running as ${whoAmI()}) cannot ${e.syscall === 'mkdir' ? 'create' : e.syscall === 'open' || e.syscall === 'stat' ? 'read' : 'write'} ${e.path ?? p}`,
        'failure',
        `give that user read and write access to ${check} (see: ls -ld ${check}), or name another directory`,
      );
    }
    case 'EROFS':
      return new ChatctlError(
        `${e.path ?? p} is on a read-only file system`,
        'failure',
        'name a directory on a writable file system (--data-dir DIR, or CHATCTL_CONFIG_DIR for the configuration)',
      );
    case 'ENOSPC':
    case 'EDQUOT':
      return new ChatctlError(
        `no space left on the device holding ${p}${e.code === 'EDQUOT' ? ' (disk quota reached)' : ''}`,
        'failure',
        'free some space there, then run the command again',
      );
    case 'ENOTDIR':
      return new ChatctlError(`${e.path ?? p} is not a directory: part of that path is a file`, 'failure', 'name a directory (--data-dir DIR), not a file');
    case 'EISDIR':
      return new ChatctlError(`${e.path ?? p} is a directory where chatctl expects a file`, 'failure', `move it away, or name another directory`);
    case 'ENOENT':
      // mkdir's ENOENT under an existing parent: a file system that does not take new directories (/proc, /sys).
      if (e.syscall === 'mkdir')
        return new ChatctlError(
          `cannot create ${e.path ?? p}: that file system does not take new directories`,
          'failure',
          'name a directory on an ordinary, writable file system (--data-dir DIR, or CHATCTL_CONFIG_DIR for the configuration)',
        );
      return undefined;
    default:
      return undefined;
  }
}

/**
 * What to report for any error of a system call that reached the entry point: the conditions above with
 * their hints, any other with its path and the code's meaning in words, never the bare code.
 */
export function systemError(e: unknown): ChatctlError | undefined {
  const known = fileError(e);
  if (known || !isFileErrno(e)) return known;
  const reads = ['open', 'read', 'stat', 'lstat', 'fstat', 'access', 'scandir', 'readdir', 'readlink'].includes(e.syscall ?? '');
  return new ChatctlError(`cannot ${reads ? 'read' : 'write'} ${e.path ?? 'a file'}: ${systemReason(e)}`, 'failure');
}
