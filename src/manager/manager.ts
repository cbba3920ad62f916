// `nudger manager`: the long-running process. Every replica serves the admission webhooks (they
// need the Component cache, so every replica runs the informers); only the elected leader runs the
// controllers. Losing leadership ends the process, as controller-runtime does: a fresh start is
// the simplest way to be sure no controller of the old term is still writing.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../adapters/kubernetes/client.ts';
import { KubeLeaseLock } from '../adapters/kubernetes/lease-lock.ts';
import { CHANGE_GROUPS_KIND, COMPONENTS_KIND, NUDGE_CONFIGS_KIND } from '../cluster/watched-kinds.ts';
import { EventRecorder } from '../runtime/events.ts';
import { HealthServer } from '../runtime/health-server.ts';
import { LeaderElector } from '../runtime/leader-election.ts';
import type { Logger } from '../runtime/logger.ts';
import { createRegistry } from '../runtime/metrics.ts';
import { CachedComponentLookup } from '../webhooks/component-lookup.ts';
import { changeGroupValidator } from '../webhooks/changegroup.ts';
import { CachedNudgeEdgeLookup } from '../webhooks/changegroup-lookup.ts';
import { StoreChangeGroupSource } from '../cluster/changegroups.ts';
import { nudgeConfigValidator } from '../webhooks/nudgeconfig.ts';
import { pipelineRunHoldMutator } from '../webhooks/pipelinerun.ts';
import {
  CHANGEGROUP_VALIDATING_PATH,
  NUDGECONFIG_VALIDATING_PATH,
  PIPELINERUN_MUTATING_PATH,
} from '../webhooks/paths.ts';
import { DEFAULT_MAX_BODY_BYTES, WebhookServer } from '../webhooks/server.ts';
import type { AdmissionHandler } from '../webhooks/admission.ts';
import { inflightBudgetFromEnvironment } from '../webhooks/inflight-budget.ts';
import { KubernetesMetricsAuthorizer, type MetricsAuthorizer } from '../runtime/metrics-auth.ts';
import type { ControllerSettings } from '../controllers/settings.ts';
import { SharedInformers } from '../runtime/shared-informers.ts';
import { CONTROLLERS } from './controllers.ts';
import { DEFAULT_CONTROLLER_GROUPS, type ControllerGroup } from '../runtime/controller-groups.ts';
import { createDashboard, type DashboardOptions } from '../dashboard/dashboard.ts';

export type { DashboardAuth, DashboardOptions } from '../dashboard/dashboard.ts';

export interface ManagerOptions extends ControllerSettings {
  readonly kubeConfig: KubeConfig;
  /**
   * The controller groups to run (`--controllers`; default konflux only, docs/decisions.md N39).
   * Without konflux, the Konflux kinds are not watched and the Konflux webhooks not served.
   */
  readonly controllerGroups?: readonly ControllerGroup[];
  /** Watch one namespace; undefined watches all. */
  readonly namespace?: string;
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace: string;
  readonly leaderElectionId: string;
  readonly webhookPort: number;
  readonly webhookHost?: string;
  readonly webhookCertDir: string;
  readonly metricsPort: number;
  readonly healthPort: number;
  readonly healthHost?: string;
  /** Request-body bytes the webhook server holds at once; default from the memory and heap limits. */
  readonly webhookMaxInflightBytes?: number;
  /** Who may read /metrics: anyone (`none`, the default here) or TokenReview + SubjectAccessReview. */
  readonly metricsAuth?: MetricsAuthMode;
  /**
   * The read-only dashboard (docs/decisions.md D14, N46); off when absent. Every replica serves
   * it from its own caches.
   */
  readonly dashboard?: DashboardOptions;
  /** A watch down for longer than this makes the replica unready. */
  readonly watchDownThresholdMs?: number;
  /** How long each controller waits for its caches before it fails; default 2 min. */
  readonly cacheSyncTimeoutMs?: number;
  /** Lease timings; the defaults are controller-runtime's 15 s / 10 s / 2 s. */
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly logger: Logger;
}

export type { ChangeGroupControllerOptions } from '../controllers/changegroup/controller.ts';
export { DEFAULT_BOT } from '../controllers/changegroup/controller.ts';

export interface RunningManager {
  readonly webhookPort: number;
  readonly healthPort: number;
  readonly metricsPort: number;
  /** Where the dashboard listens, when it runs. */
  readonly dashboardPort?: number;
  readonly identity: string;
  /** Resolves when the manager has stopped: after `stop()`, when leadership was lost, or on a failure. */
  readonly done: Promise<void>;
  /** Why the manager stopped by itself, if it failed (the controllers ended with an error). */
  failure(): unknown;
  stop(): Promise<void>;
}

export type ManagerServer = 'webhook' | 'health' | 'metrics' | 'dashboard';
export const METRICS_AUTH_MODES = ['none', 'kubernetes'] as const;
export type MetricsAuthMode = (typeof METRICS_AUTH_MODES)[number];

/** A server of the manager could not listen (port taken, not permitted): nothing was left running. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
  readonly server: ManagerServer;
  readonly port: number;
  readonly code: string | undefined;
  constructor(server: ManagerServer, port: number, cause: unknown) {
    const code = (cause as { code?: unknown }).code;
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${server} server cannot listen on port ${String(port)}: ${reason}`, { cause });
    this.server = server;
    this.port = port;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

const DEFAULT_WATCH_DOWN_THRESHOLD_MS = 60_000;

export async function startManager(options: ManagerOptions): Promise<RunningManager> {
  const { logger } = options;
  const registry = createRegistry();
  const client = new KubeClient(options.kubeConfig, { userAgent: 'nudger-manager' });
  const identity = `${process.env.POD_NAME ?? hostname()}_${randomBytes(4).toString('hex')}`;
  const scope = options.namespace === undefined ? {} : { namespace: options.namespace };

  // Only the groups asked for set anything up: a group that is off asks for none of its kinds.
  const groups = new Set(options.controllerGroups ?? DEFAULT_CONTROLLER_GROUPS);
  const controllers = CONTROLLERS.filter((controller) => groups.has(controller.group));
  // One informer per resource for the whole replica: the webhooks read these caches on every
  // replica; controllers share them, and a leadership term adds its own (nudge PipelineRuns).
  const replicaInformers = new SharedInformers({ http: client.http, registry, logger, ...scope });
  const inflight = webhookInflightBytes(options);

  const webhook = new WebhookServer({
    port: options.webhookPort,
    ...(options.webhookHost === undefined ? {} : { host: options.webhookHost }),
    certDir: options.webhookCertDir,
    maxInflightBytes: inflight,
    handlers: groups.has('konflux') ? konfluxWebhookHandlers(replicaInformers, client) : new Map(),
    registry,
    logger,
  });

  // Asked for before the replica's informers run: the dashboard's PipelineRun caches join the set.
  const dashboard =
    options.dashboard === undefined
      ? undefined
      : createDashboard(options.dashboard, {
          informers: replicaInformers,
          client,
          konflux: groups.has('konflux'),
          korifi: groups.has('korifi'),
          ...scope,
          logger,
          registry,
        });

  const metricsAuthorizer: { metricsAuthorizer?: MetricsAuthorizer } =
    options.metricsAuth === 'kubernetes'
      ? { metricsAuthorizer: new KubernetesMetricsAuthorizer({ client, logger }) }
      : {};
  const health = new HealthServer({ port: options.healthPort, registry, ...hostOf(options), ...metricsAuthorizer });
  const threshold = options.watchDownThresholdMs ?? DEFAULT_WATCH_DOWN_THRESHOLD_MS;
  health.addReadinessCheck('informers-synced', () =>
    replicaInformers.own().every((i) => i.hasSynced()) ? true : 'informer caches have not synced yet',
  );
  health.addReadinessCheck('watches', () => {
    const down = replicaInformers
      .own()
      .map((i) => i.health())
      .find((h) => h.downSinceMs !== undefined && Date.now() - h.downSinceMs > threshold);
    return down === undefined ? true : `a watch has been down for more than ${String(threshold / 1000)} s`;
  });
  health.addReadinessCheck('webhook', () => (webhook.ready ? true : 'webhook server is not serving'));
  const metrics =
    options.metricsPort === options.healthPort
      ? undefined
      : new HealthServer({ port: options.metricsPort, registry, ...hostOf(options), ...metricsAuthorizer });

  // Built before anything listens or connects: its constructor refuses inconsistent timings.
  const elector = options.leaderElect
    ? new LeaderElector({
        lock: new KubeLeaseLock(client, options.leaderElectionNamespace, options.leaderElectionId),
        identity,
        registry,
        logger,
        ...(options.leaseDurationMs === undefined ? {} : { leaseDurationMs: options.leaseDurationMs }),
        ...(options.renewDeadlineMs === undefined ? {} : { renewDeadlineMs: options.renewDeadlineMs }),
        ...(options.retryPeriodMs === undefined ? {} : { retryPeriodMs: options.retryPeriodMs }),
      })
    : undefined;

  // Listen first, connect after: a start-up failure must leave nothing running (a watch retrying
  // or a server listening would keep the process alive after the error was printed).
  const listening: { stop(): Promise<void> }[] = [];
  let webhookPort: number;
  let healthPort: number;
  let metricsPort: number;
  let dashboardPort: number | undefined;
  try {
    webhookPort = await listen('webhook', options.webhookPort, webhook, listening);
    healthPort = await listen('health', options.healthPort, health, listening);
    metricsPort = metrics === undefined ? healthPort : await listen('metrics', options.metricsPort, metrics, listening);
    if (dashboard !== undefined && options.dashboard !== undefined) {
      dashboardPort = await listen('dashboard', options.dashboard.port, dashboard.server, listening);
    }
  } catch (error) {
    for (const server of listening.reverse()) await server.stop();
    client.close();
    throw error;
  }
  const stopping = new AbortController();
  const events = new EventRecorder({ client, component: 'nudger-manager', instance: identity, logger });
  const context = {
    client,
    events,
    registry,
    logger,
    ...scope,
    ...(options.cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs: options.cacheSyncTimeoutMs }),
    settings: options,
  };
  // Controllers every replica runs set up first, so that the informers they ask for run with the
  // replica's; none writes today (writers are leader-only), but the composition does not assume it.
  const replicaControllers = controllers
    .filter((c) => !c.leaderOnly)
    .map((controller) => controller.setUp({ ...context, informers: replicaInformers }));
  const informerRuns = [replicaInformers.run(stopping.signal), ...(dashboard ? [dashboard.run(stopping.signal)] : [])];

  const runControllers = async (leading: AbortSignal): Promise<void> => {
    // A leadership term's own informers (nudge PipelineRuns) start and stop with it.
    const term = replicaInformers.forTerm();
    const runs = controllers
      .filter((c) => c.leaderOnly)
      .map((controller) => controller.setUp({ ...context, informers: term }));
    // A term with no controller (none of the chosen groups has one yet) still lasts until it ends,
    // rather than ending the manager at once.
    const idle = runs.length === 0 ? [untilAborted(leading)] : [];
    await Promise.all([term.run(leading), ...runs.map((run) => run(leading)), ...idle]);
  };

  // Controllers that end with an error end the manager (exit non-zero), leader or not: a leader
  // whose controllers died must not keep renewing the Lease and so block a healthy replica.
  let failure: unknown;
  const fail = (error: unknown): void => {
    if (failure === undefined) failure = error ?? new Error('unknown failure');
    logger.error({ err: error }, 'manager failed');
    void stop();
  };
  const replicaControllersRunning = Promise.all(replicaControllers.map((run) => run(stopping.signal).catch(fail)));
  const leadership: Promise<void> = elector
    ? elector.run(stopping.signal, {
        onStartedLeading: (leading) => {
          logger.info({ identity }, 'became leader; starting controllers');
          return runControllers(leading).catch(fail);
        },
        onStoppedLeading: () => {
          logger.info({ identity }, 'stopped leading');
        },
        onNewLeader: (leader) => {
          logger.info({ leader }, 'leader observed');
        },
      })
    : runControllers(stopping.signal).catch(fail);

  let stopped: Promise<void> | undefined;
  function stop(): Promise<void> {
    stopped ??= (async () => {
      stopping.abort();
      // Its event streams end first, so that no browser holds the process open.
      await dashboard?.server.stop();
      await leadership.catch((error: unknown) => {
        logger.error({ err: error }, 'controllers ended with an error');
      });
      await webhook.stop();
      await replicaControllersRunning;
      await Promise.allSettled(informerRuns);
      await events.flush();
      await health.stop();
      await metrics?.stop();
      client.close();
    })();
    return stopped;
  }
  // Leadership ends only on stop or on loss; on loss the manager shuts down so the process exits.
  const done = leadership.then(
    () => stop(),
    (error: unknown) => {
      fail(error);
      return stop();
    },
  );
  return {
    webhookPort,
    healthPort,
    metricsPort,
    ...(dashboardPort === undefined ? {} : { dashboardPort }),
    identity,
    done,
    failure: () => failure,
    stop,
  };
}

/** Starts one server; a listen failure becomes a ListenError naming it (certificate errors pass). */
async function listen(
  server: ManagerServer,
  port: number,
  target: { start(): Promise<{ port: number }>; stop(): Promise<void> },
  listening: { stop(): Promise<void> }[],
): Promise<number> {
  try {
    const started = await target.start();
    listening.push(target);
    return started.port;
  } catch (error) {
    // The server may hold a half-open socket: close it too.
    await target.stop().catch(() => undefined);
    if (typeof (error as { syscall?: unknown }).syscall === 'string') throw new ListenError(server, port, error);
    throw error;
  }
}

/** The flag's value, or a share of the container's memory and heap limits (inflight-budget.ts). */
/**
 * The Konflux admission webhooks, on the replica's caches of Components, NudgeConfigs and
 * ChangeGroups (asked for here, so only when the konflux group runs).
 */
function konfluxWebhookHandlers(informers: SharedInformers, client: KubeClient): Map<string, AdmissionHandler> {
  const components = informers.informer(COMPONENTS_KIND);
  const nudgeConfigs = informers.informer(NUDGE_CONFIGS_KIND);
  const changeGroups = informers.informer(CHANGE_GROUPS_KIND);
  const changeGroupSource = new StoreChangeGroupSource(changeGroups.store);
  // One lookup for both webhooks, so they share one rate limit of live checks.
  const componentLookup = new CachedComponentLookup(components.store, client);
  return new Map([
    [NUDGECONFIG_VALIDATING_PATH, nudgeConfigValidator(componentLookup)],
    [
      CHANGEGROUP_VALIDATING_PATH,
      changeGroupValidator({
        components: componentLookup,
        edges: new CachedNudgeEdgeLookup(components.store, nudgeConfigs.store, client),
        changeGroups: changeGroupSource,
      }),
    ],
    [PIPELINERUN_MUTATING_PATH, pipelineRunHoldMutator(changeGroupSource)],
  ]);
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
  });
}

function webhookInflightBytes(options: ManagerOptions): number {
  if (options.webhookMaxInflightBytes !== undefined) return options.webhookMaxInflightBytes;
  const choice = inflightBudgetFromEnvironment(DEFAULT_MAX_BODY_BYTES);
  options.logger.info(
    {
      bytes: choice.bytes,
      memoryLimitBytes: choice.memoryLimitBytes,
      source: choice.source,
      heapLimitBytes: choice.heapLimitBytes,
    },
    'webhook in-flight body budget',
  );
  return choice.bytes;
}

function hostOf(options: ManagerOptions): { host?: string } {
  return options.healthHost === undefined ? {} : { host: options.healthHost };
}
