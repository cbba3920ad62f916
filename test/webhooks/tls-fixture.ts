// Test certificates (made with the openssl CLI) and a Secret-volume imitation for the webhook tests
// and the webhook benchmark.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCertificate {
  readonly cert: string;
  readonly key: string;
  readonly fingerprint256: string;
}

/** A self-signed P-256 certificate for 127.0.0.1 and localhost, valid for a day. */
export async function selfSignedCertificate(commonName = 'nudger-webhook-test'): Promise<TestCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'nudger-cert-'));
  try {
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]);
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    return { cert, key, fingerprint256: new X509Certificate(cert).fingerprint256 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Writes files the way the kubelet updates a Secret volume: a fresh timestamped directory, a
 * `..data` symlink renamed over the old one, and top-level symlinks through `..data`.
 */
export async function writeSecretVolume(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const stamp = `..${String(Date.now())}_${Math.random().toString(36).slice(2)}`;
  await mkdir(join(dir, stamp));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, stamp, name), content);
  const entries = await readdir(dir);
  const old = entries.filter((entry) => entry.startsWith('..') && entry !== '..data' && entry !== stamp);
  await symlink(stamp, join(dir, '..data_tmp'));
  await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const name of Object.keys(files)) {
    if (!entries.includes(name)) await symlink(join('..data', name), join(dir, name));
  }
  for (const entry of old) await rm(join(dir, entry), { recursive: true, force: true });
}

/** A temporary certificate directory with plain tls.crt / tls.key files. */
export async function certDirWith(certificate: TestCertificate): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'nudger-certdir-'));
  await writeFile(join(dir, 'tls.crt'), certificate.cert);
  await writeFile(join(dir, 'tls.key'), certificate.key);
  return dir;
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
