// A `nudger manager` running in process against a test control plane, with a fresh serving
// certificate for its webhooks: what every manager-level integration test (and the reconcile
// benchmark) starts with. `stop()` also removes the certificate directory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { DestinationStream } from 'pino';
import {
  startManager,
  type ChangeGroupControllerOptions,
  type ManagerOptions,
  type RunningManager,
} from '../../src/manager/manager.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { generateServingCert } from './harness/control-plane.ts';

export interface TestManager extends RunningManager {
  /** The CA that signed the webhook certificate: a webhook configuration's caBundle (base64 it). */
  readonly caPem: string;
  /** `https://127.0.0.1:<webhook port><path>`, for a webhook configuration's clientConfig.url. */
  webhookUrl(path: string): string;
}

export async function startTestManager(
  kubeConfig: KubeConfig,
  {
    logLevel = 'warn',
    logDestination,
    changeGroups,
    namespace,
    overrides,
  }: {
    logLevel?: string;
    /** Watch this namespace only (`nudger manager --namespace`). */
    namespace?: string;
    /** Any other manager option (leader election, cache sync timeout). */
    overrides?: Partial<ManagerOptions>;
    /** Where the manager's JSON log lines go; default stdout. */
    logDestination?: DestinationStream;
    changeGroups?: ChangeGroupControllerOptions;
  } = {},
): Promise<TestManager> {
  const cert = generateServingCert();
  const certDir = mkdtempSync(join(tmpdir(), 'nudger-webhook-certs-'));
  writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
  writeFileSync(join(certDir, 'tls.key'), cert.keyPem);
  const running = await startManager({
    kubeConfig,
    leaderElect: false,
    leaderElectionNamespace: 'default',
    leaderElectionId: 'nudger-test',
    webhookHost: '127.0.0.1',
    webhookPort: 0,
    webhookCertDir: certDir,
    healthHost: '127.0.0.1',
    healthPort: 0,
    metricsPort: 0,
    logger: createLogger({ level: logLevel, ...(logDestination === undefined ? {} : { destination: logDestination }) }),
    ...(changeGroups === undefined ? {} : { changeGroups }),
    ...(namespace === undefined ? {} : { namespace }),
    ...overrides,
  });
  return {
    ...running,
    caPem: cert.caPem,
    webhookUrl: (path) => `https://127.0.0.1:${String(running.webhookPort)}${path}`,
    stop: async () => {
      await running.stop();
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}
