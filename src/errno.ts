/**
 * What the system's error codes mean, in words: `ENOENT` names nothing a person reads, and every layer
 * (the configuration's files, TLS files, the network, a file of rows) can meet one.
 */
const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  EISDIR: 'it is a directory, not a file',
  ENOTDIR: 'part of the path is a file, not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EBUSY: 'the file is busy',
  ECONNREFUSED: 'the connection was refused (nothing listens at that address and port)',
  ECONNRESET: 'the connection was reset by the other side',
  ETIMEDOUT: 'the connection timed out',
  ENOTFOUND: 'no such host (the DNS lookup found nothing)',
  EAI_AGAIN: 'the DNS lookup failed for now',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EPIPE: 'the other side closed the connection',
  EADDRINUSE: 'the address is already in use',
  EADDRNOTAVAIL: 'the address is not available on this machine',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer came in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stopped coming',
};

/** The words for a system error code, or undefined for a code that has none here. */
export const errnoWords = (code: string): string | undefined => WORDS[code];

/** The codes of an error and of the errors that caused it, outermost first (fetch wraps the socket's). */
function codesOf(e: unknown, depth = 0): string[] {
  if (!e || typeof e !== 'object' || depth > 5) return [];
  const { code, errors, cause } = e as { code?: unknown; errors?: unknown; cause?: unknown };
  // Happy eyeballs: an AggregateError of one error per address tried.
  const tried = Array.isArray(errors) ? errors.flatMap((x) => codesOf(x, depth + 1)) : [];
  return [...(typeof code === 'string' ? [code] : []), ...tried, ...codesOf(cause, depth + 1)];
}

/**
 * Why a system call failed, in words: the meaning of the first code that has words here, else the innermost
 * code (more telling than fetch's "fetch failed"), else the error's own message.
 */
export function systemReason(e: unknown): string {
  const codes = codesOf(e);
  const known = codes.find((c) => WORDS[c]);
  if (known) return WORDS[known]!;
  if (codes.length) return codes[codes.length - 1]!;
  return e instanceof Error ? e.message : String(e);
}
