// What a Korifi scenario plays against (docs/sandbox.md "Korifi scenarios", docs/decisions.md N44):
// a local kube-apiserver and etcd with the sandbox's CRDs (Korifi's and kpack's among them), a real
// OCI registry on loopback, nudger's manager in process running the korifi controller group (the
// build reconciler for BuildWorkloads named `nudger-kpack`, and the stack-update propagator), and
// the kpack stand-in building into that registry. The default ClusterBuilder is created here, as an
// operator (Korifi's Helm chart) would: nudger never creates it (D13). The CF API's and Korifi's
// own part is played per space by CfApiStandIn (cf-api.ts). The benchmark runs on the same.
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../adapters/kubernetes/client.ts';
import { KORIFI_SETTING_DEFAULTS } from '../../controllers/korifi/settings.ts';
import { DEFAULT_CLUSTER_BUILDER, DEFAULT_NUDGER_BUILDER_NAME } from '../../domain/korifi/labels.ts';
import { startManager, type RunningManager } from '../../manager/manager.ts';
import type { Logger } from '../../runtime/logger.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from '../control-plane/control-plane.ts';
import { startLocalRegistry, type LocalRegistry } from '../registry.ts';
import { loopbackManagerOptions, startScratch, writeWebhookCert } from '../scratch.ts';
import { installDefaultClusterBuilder, KpackStandIn } from './kpack.ts';
import { managerDashboardOptions, type SandboxDashboard } from '../dashboard.ts';

export interface KorifiEnvironmentOptions {
  readonly logger: Logger;
  /** The default ClusterBuilder's stack id and buildpacks (its ClusterStack and ClusterStore). */
  readonly clusterBuilder: { readonly stack: string; readonly buildpacks: readonly string[] };
  /** How often the stand-ins poll; default 250 ms. */
  readonly pollIntervalMs?: number;
  /** Where the control plane binaries are; default as the integration tests find them. */
  readonly binDirectory?: string;
  /**
   * The kubeconfig the manager uses, given the control plane; default the control plane's own. The
   * benchmark routes the manager through a request-counting proxy this way.
   */
  readonly managerKubeConfig?: (controlPlane: ControlPlane) => Promise<KubeConfig>;
  /** The manager's `--builder-readiness-timeout`; default the manager's. */
  readonly builderReadinessTimeoutMs?: number;
  /** The dashboard the manager serves (`nudger sandbox --dashboard`, D14); default none. */
  readonly dashboard?: SandboxDashboard;
}

export interface KorifiEnvironment {
  readonly controlPlane: ControlPlane;
  readonly client: KubeClient;
  readonly registry: LocalRegistry;
  readonly kpack: KpackStandIn;
  /** `BuildWorkload.spec.builderName` nudger's build reconciler takes. */
  readonly builderName: string;
  /** `--korifi-image-repository`: the prefix of every kpack Image tag, in the local registry. */
  readonly imageRepositoryPrefix: string;
  readonly pollIntervalMs: number;
  /** The manager, running until close(). */
  readonly manager: RunningManager;
  readonly close: () => Promise<void>;
}

const DEFAULT_POLL_INTERVAL_MS = 250;

export async function startKorifiEnvironment(options: KorifiEnvironmentOptions): Promise<KorifiEnvironment> {
  const { logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const { directory, closers, close } = await startScratch('nudger-korifi-sandbox-');
  try {
    const [controlPlane, registry] = await Promise.all([
      startControlPlane({
        crds: SANDBOX_CRDS,
        ...(options.binDirectory === undefined ? {} : { binDirectory: options.binDirectory }),
      }),
      startLocalRegistry(),
    ]);
    closers.push(
      () => controlPlane.close(),
      () => registry.stop(),
    );
    const client = new KubeClient(controlPlane.kubeConfig, { userAgent: 'nudger-sandbox' });
    closers.push(() => {
      client.close();
      return Promise.resolve();
    });
    // The manager serves its admission webhooks whatever controllers run; none is registered here.
    const { certDir } = await writeWebhookCert(directory);

    // The operator's part: the default ClusterBuilder, its ClusterStack and ClusterStore.
    await installDefaultClusterBuilder(client, {
      buildpacks: options.clusterBuilder.buildpacks,
      stackId: options.clusterBuilder.stack,
    });
    const kpack = new KpackStandIn({ client, clusterBuilder: DEFAULT_CLUSTER_BUILDER });
    const imageRepositoryPrefix = `${registry.host}/cf/`;

    const managerKubeConfig =
      options.managerKubeConfig === undefined ? controlPlane.kubeConfig : await options.managerKubeConfig(controlPlane);
    const manager = await startManager({
      kubeConfig: managerKubeConfig,
      ...loopbackManagerOptions('nudger-sandbox-korifi', certDir),
      logger,
      controllerGroups: ['korifi'],
      ...(options.dashboard === undefined ? {} : { dashboard: managerDashboardOptions(options.dashboard) }),
      korifi: {
        ...KORIFI_SETTING_DEFAULTS,
        repositoryPrefix: imageRepositoryPrefix,
        ...(options.builderReadinessTimeoutMs === undefined
          ? {}
          : { readinessTimeoutMs: options.builderReadinessTimeoutMs }),
      },
    });
    closers.push(() => manager.stop());
    kpack.start(pollIntervalMs, (error) => {
      logger.warn({ err: error }, 'sandbox kpack stand-in poll failed; retrying');
    });
    closers.push(() => kpack.stop());

    return {
      controlPlane,
      client,
      registry,
      kpack,
      builderName: DEFAULT_NUDGER_BUILDER_NAME,
      imageRepositoryPrefix,
      pollIntervalMs,
      manager,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
