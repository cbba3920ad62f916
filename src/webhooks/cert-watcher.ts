// Serving certificate from a directory holding tls.crt and tls.key, reloaded when they change.
// Kubernetes updates a Secret volume by writing a new timestamped directory and renaming the
// `..data` symlink over the old one, so the files themselves never see a write event: the
// directory is watched, and both files are re-read together. A periodic re-read covers missed
// events (inotify limits, filesystems without notifications).
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { Registry } from 'prom-client';
import type { Logger } from '../runtime/logger.ts';
import { counter } from '../runtime/metrics.ts';

export const CERT_FILE = 'tls.crt';
export const KEY_FILE = 'tls.key';

export interface CertificatePair {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** SHA-256 fingerprint of the leaf certificate, for logs. */
  readonly fingerprint256: string;
  readonly notAfter: Date;
}

export class CertificateLoadError extends Error {
  readonly dir: string;
  /** What is wrong, without the directory: `cannot read tls.crt/tls.key: ENOENT`. */
  readonly problem: string;
  constructor(dir: string, problem: string) {
    super(`serving certificate in ${dir}: ${problem}`);
    this.name = 'CertificateLoadError';
    this.dir = dir;
    this.problem = problem;
  }
}

/** Reads and checks the pair: both parse, the key belongs to the certificate, TLS accepts them. */
export async function loadCertificatePair(dir: string): Promise<CertificatePair> {
  let cert: Buffer;
  let key: Buffer;
  try {
    [cert, key] = await Promise.all([readFile(join(dir, CERT_FILE)), readFile(join(dir, KEY_FILE))]);
  } catch (error) {
    throw new CertificateLoadError(dir, `cannot read ${CERT_FILE}/${KEY_FILE}: ${errorCode(error)}`);
  }
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch {
    throw new CertificateLoadError(dir, `${CERT_FILE} is not a PEM certificate`);
  }
  try {
    if (!leaf.checkPrivateKey(createPrivateKey(key))) {
      throw new CertificateLoadError(dir, `${KEY_FILE} does not belong to the certificate in ${CERT_FILE}`);
    }
    createSecureContext({ cert, key });
  } catch (error) {
    if (error instanceof CertificateLoadError) throw error;
    throw new CertificateLoadError(dir, `${KEY_FILE} is not a usable private key for ${CERT_FILE}`);
  }
  return { cert, key, fingerprint256: leaf.fingerprint256, notAfter: new Date(leaf.validTo) };
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'read failed';
}

export interface CertWatcherOptions {
  readonly dir: string;
  /** Called with each new valid pair (not the initial one). */
  readonly onChange: (pair: CertificatePair) => void;
  readonly logger: Logger;
  readonly registry?: Registry;
  /** Default 10 s, like controller-runtime's certwatcher. */
  readonly pollIntervalMs?: number;
  /** Coalesces the burst of events one Secret update causes. Default 50 ms. */
  readonly settleMs?: number;
}

export type ReloadResult = 'changed' | 'unchanged' | 'invalid';

export class CertWatcher {
  readonly #options: CertWatcherOptions;
  readonly #reads;
  readonly #readErrors;
  #current: CertificatePair | undefined;
  #watcher: FSWatcher | undefined;
  #poll: NodeJS.Timeout | undefined;
  #settle: NodeJS.Timeout | undefined;
  #reloading: Promise<ReloadResult> | undefined;
  #reloadAgain = false;

  constructor(options: CertWatcherOptions) {
    this.#options = options;
    const registry = options.registry;
    this.#reads =
      registry &&
      counter(registry, { name: 'certwatcher_read_certificate_total', help: 'Total number of certificate reads' });
    this.#readErrors =
      registry &&
      counter(registry, {
        name: 'certwatcher_read_certificate_errors_total',
        help: 'Total number of certificate read errors',
      });
  }

  /** The pair in use. */
  get current(): CertificatePair {
    if (this.#current === undefined) throw new CertificateLoadError(this.#options.dir, 'watcher not started');
    return this.#current;
  }

  /** Loads the first pair (a failure here is fatal to the caller) and starts watching. */
  async start(): Promise<CertificatePair> {
    this.#reads?.inc();
    try {
      this.#current = await loadCertificatePair(this.#options.dir);
    } catch (error) {
      this.#readErrors?.inc();
      throw error;
    }
    try {
      this.#watcher = watch(this.#options.dir, { persistent: false }, () => {
        this.#scheduleReload();
      });
      this.#watcher.on('error', (error) => {
        this.#options.logger.warn(
          { err: error, dir: this.#options.dir },
          'certificate directory watch failed; polling',
        );
        this.#watcher?.close();
        this.#watcher = undefined;
      });
    } catch (error) {
      this.#options.logger.warn({ err: error, dir: this.#options.dir }, 'cannot watch certificate directory; polling');
    }
    this.#poll = setInterval(() => {
      void this.reload();
    }, this.#options.pollIntervalMs ?? 10_000);
    this.#poll.unref();
    return this.#current;
  }

  stop(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    clearInterval(this.#poll);
    clearTimeout(this.#settle);
  }

  /** Re-reads the pair now. An invalid pair is logged and the current one stays in use. */
  async reload(): Promise<ReloadResult> {
    if (this.#reloading !== undefined) {
      // A change during a read may have been missed by it: read once more afterwards.
      this.#reloadAgain = true;
      return this.#reloading;
    }
    this.#reloading = this.#readOnce();
    try {
      let result = await this.#reloading;
      while (this.#reloadAgain) {
        this.#reloadAgain = false;
        this.#reloading = this.#readOnce();
        const again = await this.#reloading;
        if (again !== 'unchanged' || result === 'unchanged') result = again;
      }
      return result;
    } finally {
      this.#reloading = undefined;
    }
  }

  #scheduleReload(): void {
    clearTimeout(this.#settle);
    this.#settle = setTimeout(() => {
      void this.reload();
    }, this.#options.settleMs ?? 50);
    this.#settle.unref();
  }

  async #readOnce(): Promise<ReloadResult> {
    const { dir, logger } = this.#options;
    this.#reads?.inc();
    let pair: CertificatePair;
    try {
      pair = await loadCertificatePair(dir);
    } catch (error) {
      this.#readErrors?.inc();
      // Mid-update the two files can briefly disagree; the next event or poll picks up the pair.
      logger.error(
        {
          dir,
          problem: error instanceof Error ? error.message : String(error),
          serving: this.#current?.fingerprint256,
        },
        'new serving certificate rejected; keeping the current one',
      );
      return 'invalid';
    }
    const current = this.#current;
    if (current !== undefined && current.cert.equals(pair.cert) && current.key.equals(pair.key)) return 'unchanged';
    this.#current = pair;
    if (pair.notAfter.getTime() <= Date.now()) {
      logger.warn(
        { dir, fingerprint256: pair.fingerprint256, notAfter: pair.notAfter },
        'serving certificate has expired',
      );
    }
    logger.info(
      { dir, fingerprint256: pair.fingerprint256, previous: current?.fingerprint256, notAfter: pair.notAfter },
      'serving certificate reloaded',
    );
    this.#options.onChange(pair);
    return 'changed';
  }
}
