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

/** The error codes along an error's cause chain, outermost first (fetch wraps the socket's error in `cause`). */
export function errorCodes(e: unknown): string[] {
  const codes: string[] = [];
  for (let cur: unknown = e, depth = 0; cur && typeof cur === 'object' && depth < 5; depth++) {
    const { code, errors } = cur as { code?: unknown; errors?: unknown };
    if (typeof code === 'string') codes.push(code);
    // Happy eyeballs: an AggregateError of one error per address tried.
    if (Array.isArray(errors)) codes.push(...errors.flatMap((x) => errorCodes(x)));
    cur = (cur as { cause?: unknown }).cause;
  }
  return codes;
}

/** A short name for a failure in traces: its innermost code (more telling than fetch's "fetch failed"), or its message. */
export function failureName(e: unknown): string {
  const codes = errorCodes(e);
  if (codes.length) return codes[codes.length - 1]!;
  return e instanceof Error ? e.message : String(e);
}

/**
 * Why a system call failed, in words: the meaning of the first code that has words here, else the innermost
 * code (more telling than fetch's "fetch failed"), else the error's own message.
 */
export function systemReason(e: unknown): string {
  const known = errorCodes(e).find((c) => WORDS[c]);
  return known ? WORDS[known]! : failureName(e);
}
