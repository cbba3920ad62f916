// What every sandbox environment starts with (the Konflux one and the Korifi one, N44): a scratch
// directory whose closers run in reverse order on close (each failure ignored, so one stuck part
// does not keep the others running), a webhook serving certificate written into it, and the
// loopback-only settings of an in-process manager.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateServingCert, type ServingCert } from './control-plane/control-plane.ts';

export interface Scratch {
  readonly directory: string;
  /** Run by close(), last pushed first. */
  readonly closers: (() => Promise<void>)[];
  readonly close: () => Promise<void>;
}

export async function startScratch(prefix: string): Promise<Scratch> {
  const directory = await mkdtemp(join(tmpdir(), prefix));
  const closers: (() => Promise<void>)[] = [() => rm(directory, { recursive: true, force: true })];
  return {
    directory,
    closers,
    close: async () => {
      for (const closer of closers.splice(0).reverse()) await closer().catch(() => undefined);
    },
  };
}

/** A fresh serving certificate in `<directory>/webhook-certs` (tls.crt, tls.key); its CA for the webhooks. */
export async function writeWebhookCert(directory: string): Promise<{ certDir: string; cert: ServingCert }> {
  const cert = generateServingCert();
  const certDir = join(directory, 'webhook-certs');
  await mkdir(certDir, { recursive: true });
  await writeFile(join(certDir, 'tls.crt'), cert.certPem);
  await writeFile(join(certDir, 'tls.key'), cert.keyPem);
  return { certDir, cert };
}

/** An in-process manager on 127.0.0.1 with kernel-picked ports and no leader election. */
export function loopbackManagerOptions(leaderElectionId: string, certDir: string, webhookPort = 0) {
  return {
    leaderElect: false,
    leaderElectionNamespace: 'default',
    leaderElectionId,
    webhookHost: '127.0.0.1',
    webhookPort,
    webhookCertDir: certDir,
    healthHost: '127.0.0.1',
    healthPort: 0,
    metricsPort: 0,
  } as const;
}
