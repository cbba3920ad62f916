// Everything a sandbox run plays against, started once: a local kube-apiserver and etcd with the
// CRDs installed, the nudger manager in process with its webhooks registered at 127.0.0.1 and its
// dispatcher on (its executors on the local forge, retries seconds apart instead of minutes), a
// local forge, and the stand-ins for build-service/integration-service (builds, and Snapshots of
// ComponentGroups for validated nudges), Tekton and Pipelines-as-Code. With `forge: github` or
// `gitlab` the scenario's repositories are on that emulator instead (docs/decisions.md N37): the
// manager reaches it as a configured forge host with the token from the tenant's SCM Secret, its
// executors built by the manager itself, as on a cluster.
import { join } from 'node:path';
import { LocalForge } from '../adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../adapters/forges/local/local-resolver.ts';
import { KubeClient } from '../adapters/kubernetes/client.ts';
import { defaultExecutors } from '../controllers/dispatch/default-executors.ts';
import { RenovateExecutor } from '../controllers/dispatch/renovate/renovate-executor.ts';
import type { DispatchPolicy } from '../domain/nudge/dispatch-policy.ts';
import { startManager, type RunningManager } from '../manager/manager.ts';
import type { Logger } from '../runtime/logger.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from './control-plane/control-plane.ts';
import { IntegrationStandIn } from './integration.ts';
import { KonfluxStandIn } from './konflux.ts';
import { PacStandIn } from './pac.ts';
import { LocalForgeRenovateAccess } from './renovate-access.ts';
import { TektonStandIn } from './tekton.ts';
import { loopbackManagerOptions, startScratch, writeWebhookCert } from './scratch.ts';
import { registerWebhooks } from './webhooks.ts';
import { startEmulatedForge } from './forges/emulated-forge.ts';
import { LocalSandboxForge, type SandboxForge } from './forges/sandbox-forge.ts';
import type { ScenarioForge } from './scenario/schema.ts';
import { managerDashboardOptions, type SandboxDashboard } from './dashboard.ts';

export interface SandboxEnvironmentOptions {
  readonly logger: Logger;
  /** How often the stand-ins poll and the controller re-reads open pull requests. */
  readonly pollIntervalMs?: number;
  /** Where the control plane binaries are; default as the integration tests find them. */
  readonly binDirectory?: string;
  /** How often the pre-merge reconciler asks the forge about a triggering PR; default SANDBOX_PRE_MERGE_POLL_MS. */
  readonly preMergePollMs?: number;
  /** The forge the scenarios' repositories are on; default `local`. */
  readonly forge?: ScenarioForge;
  /** The dashboard the manager serves (`nudger sandbox --dashboard`, D14); default none. */
  readonly dashboard?: SandboxDashboard;
}

export interface SandboxEnvironment {
  readonly controlPlane: ControlPlane;
  readonly client: KubeClient;
  /** nudger's local forge: the scenarios' forge with `forge: local`, and the Tekton stand-in's Renovate's. */
  readonly forge: LocalForge;
  /** The forge the scenarios' repositories are on (N37). */
  readonly sandboxForge: SandboxForge;
  /** A scratch directory of this environment, removed by close(). */
  readonly directory: string;
  readonly konflux: KonfluxStandIn;
  /** integration-service's Snapshots of ComponentGroups (validated nudges, D10). */
  readonly integration: IntegrationStandIn;
  readonly tekton: TektonStandIn;
  readonly pac: PacStandIn;
  readonly pollIntervalMs: number;
  /** The port of the manager's dashboard, when one was asked for (the same after startManager). */
  readonly dashboardPort?: number | undefined;
  /** Stops the manager only (a controller crash); `startManager` brings it back. */
  stopManager(): Promise<void>;
  startManager(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_POLL_INTERVAL_MS = 250;
/**
 * A failed nudge is tried three times, 1 s and 2 s apart: a scenario plays in seconds, and the
 * default policy's minutes (docs/decisions.md N18) would make a failure look like a hang.
 */
export const SANDBOX_DISPATCH_POLICY: DispatchPolicy = Object.freeze({
  maxAttempts: 3,
  firstRetryDelayMs: 1000,
  backoffFactor: 2,
  maxRetryDelayMs: 2000,
});

/**
 * How often the pre-merge reconciler asks the forge about a triggering PR (D11): a merge or close
 * the sandbox plays is seen within a second, instead of the manager's default minute.
 */
export const SANDBOX_PRE_MERGE_POLL_MS = 1000;

export async function startSandboxEnvironment(options: SandboxEnvironmentOptions): Promise<SandboxEnvironment> {
  const { logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const { directory, closers, close } = await startScratch('nudger-sandbox-');
  try {
    const controlPlane = await startControlPlane({
      crds: SANDBOX_CRDS,
      ...(options.binDirectory === undefined ? {} : { binDirectory: options.binDirectory }),
    });
    closers.push(() => controlPlane.close());
    const client = new KubeClient(controlPlane.kubeConfig, { userAgent: 'nudger-sandbox' });
    closers.push(() => {
      client.close();
      return Promise.resolve();
    });
    const forge = new LocalForge({ root: join(directory, 'forge') });

    const { certDir, cert } = await writeWebhookCert(directory);

    const kind = options.forge ?? 'local';
    const emulated = kind === 'local' ? undefined : await startEmulatedForge(kind, directory);
    if (emulated !== undefined) closers.push(() => emulated.shutdown());
    const sandboxForge: SandboxForge = emulated ?? new LocalSandboxForge(forge);
    const changeGroups = {
      // The local forge through its own resolver; an emulator as a configured host, whose token the
      // manager reads from the tenant's SCM Secret (forgeHosts: what --github-host/--gitlab-host set).
      ...(emulated === undefined
        ? { forgeResolver: new LocalForgeResolver(forge) }
        : { forgeHosts: emulated.managerHosts }),
      gitCacheDir: join(directory, 'manager-git'),
      pollIntervalMs: pollIntervalMs * 2,
    };
    let manager: RunningManager | undefined;
    const launch = async (): Promise<RunningManager> =>
      startManager({
        kubeConfig: controlPlane.kubeConfig,
        ...loopbackManagerOptions('nudger-sandbox', certDir, manager?.webhookPort ?? 0),
        logger,
        changeGroups,
        // A restarted manager serves on the port of the first, so an open page reconnects.
        ...(options.dashboard === undefined
          ? {}
          : {
              dashboard: managerDashboardOptions(options.dashboard, manager?.dashboardPort ?? options.dashboard.port),
            }),
        dispatch: {
          enabled: true,
          defaultExecutor: 'direct',
          // The manager's own executors over the ChangeGroup controller's forge (the local one);
          // the renovate one with the local forge's access, since Renovate itself is the Tekton
          // stand-in and the local forge has no API or token (renovate-access.ts).
          // On an emulator, the manager's own executors over its configured hosts (one resolver with
          // the pre-merge reader, as on a cluster).
          ...(emulated === undefined
            ? {
                executors: {
                  ...defaultExecutors(client, changeGroups),
                  renovate: new RenovateExecutor({ client, forgeAccess: new LocalForgeRenovateAccess(forge) }),
                },
              }
            : {}),
          policy: SANDBOX_DISPATCH_POLICY,
          preMergePollMs: options.preMergePollMs ?? SANDBOX_PRE_MERGE_POLL_MS,
        },
      });
    manager = await launch();
    closers.push(async () => {
      await manager?.stop();
    });
    const webhookPort = manager.webhookPort;
    await registerWebhooks(client, {
      url: (path) => `https://127.0.0.1:${String(webhookPort)}${path}`,
      caPem: cert.caPem,
    });

    const konflux = new KonfluxStandIn(client, { forgeAccess: new LocalForgeRenovateAccess(forge) });
    const integration = new IntegrationStandIn(client);
    const tekton = new TektonStandIn({ client, forge, gitCacheDir: join(directory, 'renovate-git') });
    const pac = new PacStandIn(sandboxForge, sandboxForge.pacRules);
    const onError = (error: unknown): void => {
      logger.warn({ err: error }, 'sandbox stand-in poll failed; retrying');
    };
    tekton.start(pollIntervalMs, onError);
    pac.start(pollIntervalMs, onError);
    closers.push(
      () => tekton.stop(),
      () => pac.stop(),
    );

    return {
      controlPlane,
      client,
      forge,
      sandboxForge,
      directory,
      konflux,
      integration,
      tekton,
      pac,
      pollIntervalMs,
      get dashboardPort() {
        return manager?.dashboardPort;
      },
      stopManager: async () => {
        await manager?.stop();
      },
      startManager: async () => {
        manager = await launch();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
