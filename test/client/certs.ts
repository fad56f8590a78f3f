/**
 * A private CA and certificates made with the `openssl` command in a temporary directory: a server
 * certificate for 127.0.0.1/localhost and a client certificate, both signed by the CA. Node cannot make
 * X.509 certificates itself, so tests that need them skip when `openssl` is missing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Certs {
  dir: string;
  caFile: string;
  ca: string;
  serverKey: string;
  serverCert: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** Certificate and key in one PEM file. */
  clientBundleFile: string;
  /** A CA the server does not use, to prove verification happens. */
  otherCaFile: string;
}

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function makeCerts(): Certs {
  const dir = mkdtempSync(join(tmpdir(), 'chatctl-certs-'));
  const f = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const selfSignedCa = (name: string, cn: string) =>
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.pem`), '-days', '2', '-subj', `/CN=${cn}`);
  const signed = (name: string, cn: string, ext: string) => {
    writeFileSync(f(`${name}.ext`), ext);
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${cn}`);
    ssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f(`${name}.pem`),
      '-days',
      '2',
      '-extfile',
      f(`${name}.ext`),
    );
  };
  selfSignedCa('ca', 'chatctl test CA');
  selfSignedCa('other-ca', 'some other CA');
  signed('server', '127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  signed('client', 'client@example.com', 'extendedKeyUsage=clientAuth\n');
  writeFileSync(f('client-bundle.pem'), readFileSync(f('client.pem'), 'utf8') + readFileSync(f('client.key'), 'utf8'));
  return {
    dir,
    caFile: f('ca.pem'),
    ca: readFileSync(f('ca.pem'), 'utf8'),
    serverKey: readFileSync(f('server.key'), 'utf8'),
    serverCert: readFileSync(f('server.pem'), 'utf8'),
    clientCertFile: f('client.pem'),
    clientKeyFile: f('client.key'),
    clientBundleFile: f('client-bundle.pem'),
    otherCaFile: f('other-ca.pem'),
  };
}
