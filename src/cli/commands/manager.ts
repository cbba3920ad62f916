// `nudger manager`: argument handling and process lifetime only; src/manager/manager.ts does the work.
import { KubeConfigError, loadKubeConfig } from '../../adapters/kubernetes/kubeconfig.ts';
import {
  ListenError,
  startManager,
  type ManagerOptions,
  type ManagerServer,
  type RunningManager,
} from '../../manager/manager.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { createLogger, type Logger } from '../../runtime/logger.ts';
import { CertificateLoadError } from '../../webhooks/cert-watcher.ts';
import {
  ForgeHostError,
  HOSTED_FORGE_KINDS,
  parseForgeHosts,
  type HostedForge,
  type HostedForgeKind,
} from '../../adapters/forges/registry.ts';
import { parseSecretRef } from '../../adapters/forges/github/app-secret.ts';
import { GitHubAppTokens } from '../../adapters/forges/github/app-tokens.ts';
import type { GitHubAppSource } from '../../adapters/forges/hosted-resolver.ts';
import { EXIT_FINDINGS, EXIT_OK, UsageError } from '../errors.ts';
import type { CliIo } from '../io.ts';
import type { DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import type { KorifiControllerSettings } from '../../controllers/korifi/settings.ts';
import { certDirError, preflightManager, type ManagerPreflightOptions } from './manager-preflight.ts';
import { controllerGroupsOf, korifiSettingsOf, type ControllerFlags } from './manager-controllers.ts';

/** The flags, as commander hands them over; those the preflight checks are declared there. */
export interface ManagerCommandOptions extends ManagerPreflightOptions, ControllerFlags {
  readonly kubeconfig?: string;
  readonly logLevel: string;
  /** The values of each `--<kind>-host` flag, by forge kind. */
  readonly forgeHosts: Readonly<Partial<Record<HostedForgeKind, readonly string[]>>>;
  readonly botName: string;
  /** `--nudge-dispatch`: nudger fires the nudges of NudgeConfig namespaces (docs/decisions.md D9). */
  readonly nudgeDispatch: boolean;
  /** `--nudge-executor`: the executor where a NudgeConfig names none. */
  readonly nudgeExecutor: DispatchExecutor;
  /**
   * `--github-app-secret`: `<namespace>/<name>` of the Pipelines-as-Code Secret holding the
   * cluster's GitHub App, or `none` (docs/decisions.md N23).
   */
  readonly githubAppSecret: string;
  /** Ends the manager (tests); the process signals do the same for a real run. */
  readonly signal?: AbortSignal;
}

/** The App of `--github-app-secret`, with the one token cache of this manager; undefined for `none`. */
export function githubAppSource(value: string): GitHubAppSource | undefined {
  let secret;
  try {
    secret = parseSecretRef(value);
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(`--github-app-secret ${error.message}`);
    throw error;
  }
  return secret === undefined ? undefined : { secret, tokens: new GitHubAppTokens() };
}

/** Every `--<kind>-host` flag's hosts (`ghe.example.com` or `host=apiUrl`), one map. */
export function parseForgeHostFlags(
  flags: Readonly<Partial<Record<HostedForgeKind, readonly string[]>>>,
): Map<string, HostedForge> {
  const hosts = new Map<string, HostedForge>();
  for (const kind of HOSTED_FORGE_KINDS) {
    try {
      for (const [host, forge] of parseForgeHosts(kind, flags[kind] ?? [])) hosts.set(host, forge);
    } catch (error) {
      if (error instanceof ForgeHostError) throw new UsageError(error.message);
      throw error;
    }
  }
  return hosts;
}

const PORT_FLAGS: Readonly<Record<ManagerServer, string>> = {
  webhook: '--webhook-port',
  health: '--health-port',
  metrics: '--metrics-port',
  dashboard: '--dashboard-port',
};

/**
 * Exit codes: 2 for any mistake found before or while starting (a UsageError, printed as one line
 * by the CLI, with nothing left listening or connecting), 1 when the manager failed after it had
 * started, 0 when it was stopped (signal) or lost leadership (the Deployment restarts it).
 */
export async function managerCommand(options: ManagerCommandOptions, io: CliIo): Promise<number> {
  const korifi = korifiSettingsOf(options);
  await preflightManager(options);
  const forgeHosts = parseForgeHostFlags(options.forgeHosts);
  const githubApp = githubAppSource(options.githubAppSecret);
  const logger = createLogger({ level: options.logLevel, destination: io.stderr });
  const loaded = loadManagerKubeConfig(options.kubeconfig);
  logger.info({ source: loaded.source, location: loaded.location }, 'kubeconfig loaded');
  let manager: RunningManager;
  try {
    manager = await startManagerFor(options, loaded.kubeConfig, { forgeHosts, githubApp }, korifi, logger);
  } catch (error) {
    // The certificate may have changed since the preflight; a port may be taken.
    if (error instanceof CertificateLoadError) {
      throw certDirError(error, error.dir === options.dashboardCertDir ? '--dashboard-cert-dir' : '--webhook-cert-dir');
    }
    if (error instanceof ListenError) {
      throw new UsageError(`${PORT_FLAGS[error.server]} ${String(error.port)}: ${listenProblem(error)}`);
    }
    throw error;
  }
  logger.info(
    {
      identity: manager.identity,
      webhookPort: manager.webhookPort,
      healthPort: manager.healthPort,
      metricsPort: manager.metricsPort,
      ...(manager.dashboardPort === undefined ? {} : { dashboardPort: manager.dashboardPort }),
      controllers: controllerGroupsOf(options),
    },
    'manager started',
  );
  const stop = (): void => {
    logger.info('shutting down');
    void manager.stop();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  options.signal?.addEventListener('abort', stop, { once: true });
  await manager.done;
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  if (manager.failure() !== undefined) {
    logger.error('manager stopped after a failure');
    return EXIT_FINDINGS;
  }
  logger.info('manager stopped');
  return EXIT_OK;
}

/** The kubeconfig, or a UsageError naming `--kubeconfig` when the flag's file is the problem. */
function loadManagerKubeConfig(path: string | undefined): ReturnType<typeof loadKubeConfig> {
  try {
    return loadKubeConfig(path === undefined ? {} : { kubeconfigPath: path });
  } catch (error) {
    if (error instanceof KubeConfigError && error.source === 'flag') {
      throw new UsageError(`--kubeconfig ${path ?? ''}: ${error.reason}`);
    }
    throw error;
  }
}

function listenProblem(error: ListenError): string {
  if (error.code === 'EADDRINUSE') return 'the port is already in use (EADDRINUSE)';
  if (error.code === 'EACCES') return 'permission denied: ports below 1024 need privileges (EACCES)';
  return error.code === undefined ? error.message : `cannot listen (${error.code})`;
}

function startManagerFor(
  options: ManagerCommandOptions,
  kubeConfig: KubeConfig,
  forges: { readonly forgeHosts: Map<string, HostedForge>; readonly githubApp: GitHubAppSource | undefined },
  korifi: KorifiControllerSettings | undefined,
  logger: Logger,
): Promise<RunningManager> {
  return startManager({
    kubeConfig,
    controllerGroups: controllerGroupsOf(options),
    ...(korifi === undefined ? {} : { korifi }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    leaderElect: options.leaderElect,
    leaderElectionNamespace: options.leaderElectionNamespace,
    leaderElectionId: options.leaderElectionId,
    leaseDurationMs: options.leaderElectLeaseDuration,
    renewDeadlineMs: options.leaderElectRenewDeadline,
    retryPeriodMs: options.leaderElectRetryPeriod,
    webhookPort: options.webhookPort,
    webhookCertDir: options.webhookCertDir,
    metricsPort: options.metricsPort,
    metricsAuth: options.metricsAuth,
    ...(options.webhookMaxInflightBytes === undefined
      ? {}
      : { webhookMaxInflightBytes: options.webhookMaxInflightBytes }),
    healthPort: options.healthPort,
    ...dashboardOf(options),
    changeGroups: {
      forgeHosts: forges.forgeHosts,
      ...(forges.githubApp === undefined ? {} : { githubApp: forges.githubApp }),
      ...(options.gitCacheDir === undefined ? {} : { gitCacheDir: options.gitCacheDir }),
      pollIntervalMs: options.changegroupPollInterval,
      link:
        options.changegroupUrlTemplate === undefined
          ? { kind: 'kubectl' }
          : { kind: 'console', urlTemplate: options.changegroupUrlTemplate },
      bot: { name: options.botName, email: options.botEmail },
    },
    dispatch: { enabled: options.nudgeDispatch, defaultExecutor: options.nudgeExecutor },
    logger,
  });
}

/** `--dashboard-port` turns the dashboard on; a cluster's dashboard always reviews tokens (N46). */
function dashboardOf(options: ManagerCommandOptions): Pick<ManagerOptions, 'dashboard'> {
  if (options.dashboardPort === undefined) return {};
  return {
    dashboard: {
      port: options.dashboardPort,
      ...(options.dashboardHost === undefined ? {} : { host: options.dashboardHost }),
      ...(options.dashboardCertDir === undefined ? {} : { certDir: options.dashboardCertDir }),
      auth: { mode: 'kubernetes' },
    },
  };
}
