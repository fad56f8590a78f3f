/**
 * TLS settings for a remote server, read into what undici's connector takes: a private CA
 * (`--ca-file`, ZULIP_CERT_BUNDLE), a client certificate (ZULIP_CERT, with its key in ZULIP_CERT_KEY or in
 * the same PEM file), and turning verification off (`--insecure`, ZULIP_ALLOW_INSECURE=true) only when
 * asked.
 */
import { readFileSync } from 'node:fs';
import { systemReason } from '../errno.js';
import { ChatctlError } from '../errors.js';

/** Paths and switches, as the target resolution found them. */
export interface TlsSettings {
  caFile?: string;
  clientCert?: string;
  clientKey?: string;
  insecure?: boolean;
}

/** Connector options (node:tls); empty when nothing is configured. */
export interface TlsOptions {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized?: boolean;
}

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ChatctlError(`cannot read the ${what} ${path}: ${systemReason(e)}`, 'usage');
  }
}

export function loadTls(settings: TlsSettings): TlsOptions {
  const out: TlsOptions = {};
  if (settings.caFile) {
    out.ca = readPem(settings.caFile, 'CA bundle');
    if (!out.ca.includes('-----BEGIN CERTIFICATE-----')) throw new ChatctlError(`${settings.caFile} holds no PEM certificate`, 'usage');
  }
  if (settings.clientKey && !settings.clientCert) {
    throw new ChatctlError('ZULIP_CERT_KEY is set but ZULIP_CERT (the client certificate) is not', 'usage');
  }
  if (settings.clientCert) {
    out.cert = readPem(settings.clientCert, 'client certificate');
    out.key = settings.clientKey ? readPem(settings.clientKey, 'client certificate key') : out.cert;
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(out.key)) {
      throw new ChatctlError(`no private key for the client certificate ${settings.clientCert}`, 'usage', 'set ZULIP_CERT_KEY to the key file');
    }
  }
  if (settings.insecure) out.rejectUnauthorized = false;
  return out;
}

/** Certificate failures: not worth retrying, and the fix is a flag away. */
const CERT_CODES = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|ERR_SSL|HOSTNAME_MISMATCH/;

export function isCertificateError(codes: readonly string[]): boolean {
  return codes.some((c) => CERT_CODES.test(c));
}

/**
 * A TLS failure: a server certificate chatctl does not trust, or a handshake the server refused (it wants
 * a client certificate). Not worth retrying, and the fix is a flag or a variable away; exits 1.
 */
export class TlsError extends ChatctlError {
  constructor(site: string, code: string) {
    const clientSide = /CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|HANDSHAKE_FAILURE|ALERT/.test(code);
    super(
      clientSide
        ? `the TLS handshake with ${site} failed: the server wants a client certificate (${code})`
        : `cannot verify the TLS certificate of ${site}: ${code}`,
      'failure',
      clientSide
        ? 'name the client certificate with ZULIP_CERT (and its key with ZULIP_CERT_KEY)'
        : "trust your organization's CA with --ca-file FILE (or ZULIP_CERT_BUNDLE); --insecure turns verification off",
    );
    this.name = 'TlsError';
  }
}
