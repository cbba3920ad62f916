// Serving certificates for webhook servers that kube-apiserver calls.
//
// Why the openssl CLI rather than @peculiar/x509: the API is synchronous (tests build a server in
// one line) and Node's crypto can make keys but not certificates, while @peculiar/x509 signs
// through WebCrypto, which is async-only. openssl is already a prerequisite of the control-plane
// provisioning (scripts/provision-control-plane.sh installs it), so this adds no dependency.
//
// kube-apiserver v1.20 is built with Go >= 1.15, which ignores the Common Name: the host must be in
// the subjectAltName, so every host goes there (IPs as IP:, names as DNS:).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServingCert {
  /** The CA that signed the leaf: the webhook's caBundle (base64 it for the API object). */
  readonly caPem: string;
  /** The leaf certificate, for `https.createServer({ cert })`. */
  readonly certPem: string;
  /** The leaf's PKCS#8 private key. */
  readonly keyPem: string;
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost'];

/** A fresh CA and a leaf it signed for `hosts` plus 127.0.0.1 and localhost, valid for 2 days. */
export function generateServingCert(hosts: readonly string[] = []): ServingCert {
  const sans = [...new Set([...LOOPBACK_HOSTS, ...hosts])].map((host) => (isIP(host) ? `IP:${host}` : `DNS:${host}`));
  const dir = mkdtempSync(join(tmpdir(), 'nudger-cert-'));
  const file = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  try {
    // prettier-ignore
    openssl(
      'req', '-x509', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
      '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '2', '-subj', '/CN=nudger-test-webhook-ca',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    );
    // prettier-ignore
    openssl(
      'req', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
      '-keyout', file('tls.key'), '-out', file('tls.csr'), '-subj', `/CN=${hosts[0] ?? 'localhost'}`,
    );
    writeFileSync(
      file('leaf.ext'),
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        `subjectAltName=${sans.join(',')}`,
        '',
      ].join('\n'),
    );
    // prettier-ignore
    openssl(
      'x509', '-req', '-in', file('tls.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial',
      '-out', file('tls.crt'), '-days', '2', '-extfile', file('leaf.ext'),
    );
    return {
      caPem: readFileSync(file('ca.crt'), 'utf8'),
      certPem: readFileSync(file('tls.crt'), 'utf8'),
      keyPem: readFileSync(file('tls.key'), 'utf8'),
    };
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    const detail = Buffer.isBuffer(stderr)
      ? stderr.toString('utf8').trim()
      : error instanceof Error
        ? error.message
        : '';
    throw new Error(`generateServingCert: openssl failed: ${detail}`, { cause: error });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
