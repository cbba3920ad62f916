// `nudger manager`: the long-running process. Every replica serves the admission webhooks (they
// need the Component cache, so every replica runs the informers); only the elected leader runs the
// controllers. Losing leadership ends the process, as controller-runtime does: a fresh start is
// the simplest way to be sure no controller of the old term is still writing.
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostedForgeResolver } from '../adapters/forges/hosted-resolver.ts';
import { publicForgeHosts, type HostedForge } from '../adapters/forges/registry.ts';
import type { ForgeResolver } from '../adapters/forges/resolver.ts';
import { GitWorkspaces, type GitIdentity } from '../adapters/git/workspace.ts';
import { BuildVerifier } from '../controllers/changegroup/build-verifier.ts';
import { changeGroupsHolding } from '../controllers/changegroup/inputs.ts';
import { changeGroupMetrics } from '../controllers/changegroup/metrics.ts';
import { ChangeGroupReconciler, type ChangeGroupReconcilerOptions } from '../controllers/changegroup/reconciler.ts';
import { ReleasePlanAdmissionCache } from '../controllers/changegroup/release-plan-admissions.ts';
import { isTerminalPhase, type ChangeGroupPhase } from '../domain/changegroup/model.ts';
import type { ChangeGroupLink } from '../domain/pr-description/index.ts';
import type { ObjectKey } from '../runtime/reconciler.ts';
import type { Store } from '../runtime/store.ts';
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../adapters/kubernetes/client.ts';
import { KubeLeaseLock } from '../adapters/kubernetes/lease-lock.ts';
import { KubeListWatchSource } from '../adapters/kubernetes/list-watch.ts';
import { CHANGE_GROUPS, COMPONENTS, NUDGE_CONFIGS, PIPELINE_RUNS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { NudgeSweepReconciler, notStartedNudgeRunsFor } from '../controllers/nudge-sweeper.ts';
import type { ComponentResource, NudgeConfigResource } from '../cluster/nudgeconfig-objects.ts';
import { StaleReferenceReconciler, nudgeConfigOfComponent } from '../controllers/stale-references.ts';
import { CacheSyncTimeoutError, Controller, generationChanged } from '../runtime/controller.ts';
import { EventRecorder } from '../runtime/events.ts';
import { HealthServer } from '../runtime/health-server.ts';
import { Informer } from '../runtime/informer.ts';
import { NUDGE_TYPE_LABEL, NUDGE_TYPE_VALUE } from '../domain/nudge-pipelinerun.ts';
import { LeaderElector } from '../runtime/leader-election.ts';
import type { Logger } from '../runtime/logger.ts';
import { createRegistry } from '../runtime/metrics.ts';
import { CachedComponentLookup } from '../webhooks/component-lookup.ts';
import { changeGroupValidator } from '../webhooks/changegroup.ts';
import { CachedNudgeEdgeLookup, StoreChangeGroupSource } from '../webhooks/changegroup-lookup.ts';
import { nudgeConfigValidator } from '../webhooks/nudgeconfig.ts';
import { pipelineRunHoldMutator } from '../webhooks/pipelinerun.ts';
import {
  CHANGEGROUP_VALIDATING_PATH,
  NUDGECONFIG_VALIDATING_PATH,
  PIPELINERUN_MUTATING_PATH,
} from '../webhooks/paths.ts';
import { DEFAULT_MAX_BODY_BYTES, WebhookServer } from '../webhooks/server.ts';
import { inflightBudgetFromEnvironment } from '../webhooks/inflight-budget.ts';
import { KubernetesMetricsAuthorizer, type MetricsAuthorizer } from '../runtime/metrics-auth.ts';

export interface ManagerOptions {
  readonly kubeConfig: KubeConfig;
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
  /** A watch down for longer than this makes the replica unready. */
  readonly watchDownThresholdMs?: number;
  /** How long each controller waits for its caches before it fails; default 2 min. */
  readonly cacheSyncTimeoutMs?: number;
  /** Lease timings; the defaults are controller-runtime's 15 s / 10 s / 2 s. */
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly logger: Logger;
  /** The ChangeGroup controller's forges, git cache and pull request settings. */
  readonly changeGroups?: ChangeGroupControllerOptions;
}

export interface ChangeGroupControllerOptions {
  /** Default: the registry's public hosts and `forgeHosts`, with tokens from the tenant's SCM Secrets. */
  readonly forgeResolver?: ForgeResolver;
  /** Hosts besides the public ones (GitHub Enterprise, ...), by host name (`--<kind>-host`). */
  readonly forgeHosts?: ReadonlyMap<string, HostedForge>;
  /** Bare repositories reused across pull request updates; default `<tmpdir>/nudger-git`. */
  readonly gitCacheDir?: string;
  /** The identity of nudger's commits; the controller recognises its own commits by the email. */
  readonly bot?: GitIdentity;
  readonly link?: ChangeGroupLink;
  /** How often open pull requests are re-read for human actions; default 30 s. */
  readonly pollIntervalMs?: number;
  readonly workers?: number;
}

export const DEFAULT_BOT: GitIdentity = { name: 'nudger', email: 'nudger@konflux-ci.dev' };
const DEFAULT_POLL_INTERVAL_MS = 30_000;

export interface RunningManager {
  readonly webhookPort: number;
  readonly healthPort: number;
  readonly metricsPort: number;
  readonly identity: string;
  /** Resolves when the manager has stopped: after `stop()`, when leadership was lost, or on a failure. */
  readonly done: Promise<void>;
  /** Why the manager stopped by itself, if it failed (the controllers ended with an error). */
  failure(): unknown;
  stop(): Promise<void>;
}

export type ManagerServer = 'webhook' | 'health' | 'metrics';
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

  const components = new Informer<ComponentResource>({
    source: new KubeListWatchSource(client.http, COMPONENTS, scope),
    registry,
    logger,
  });
  const nudgeConfigs = new Informer<NudgeConfigResource>({
    source: new KubeListWatchSource(client.http, NUDGE_CONFIGS, scope),
    registry,
    logger,
  });
  // Read by the ChangeGroup and PipelineRun webhooks, so every replica runs it too.
  const changeGroups = new Informer<KubeObject>({
    source: new KubeListWatchSource(client.http, CHANGE_GROUPS, scope),
    registry,
    logger,
  });
  const informers: Informer<KubeObject>[] = [components, nudgeConfigs, changeGroups];
  const changeGroupSource = new StoreChangeGroupSource(changeGroups.store);
  // One lookup for both webhooks, so they share one rate limit of live checks.
  const componentLookup = new CachedComponentLookup(components.store, client);
  const inflight = webhookInflightBytes(options);

  const webhook = new WebhookServer({
    port: options.webhookPort,
    ...(options.webhookHost === undefined ? {} : { host: options.webhookHost }),
    certDir: options.webhookCertDir,
    maxInflightBytes: inflight,
    handlers: new Map([
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
    ]),
    registry,
    logger,
  });

  const metricsAuthorizer: { metricsAuthorizer?: MetricsAuthorizer } =
    options.metricsAuth === 'kubernetes'
      ? { metricsAuthorizer: new KubernetesMetricsAuthorizer({ client, logger }) }
      : {};
  const health = new HealthServer({ port: options.healthPort, registry, ...hostOf(options), ...metricsAuthorizer });
  const threshold = options.watchDownThresholdMs ?? DEFAULT_WATCH_DOWN_THRESHOLD_MS;
  health.addReadinessCheck('informers-synced', () =>
    informers.every((i) => i.hasSynced()) ? true : 'informer caches have not synced yet',
  );
  health.addReadinessCheck('watches', () => {
    const down = informers
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
  try {
    webhookPort = await listen('webhook', options.webhookPort, webhook, listening);
    healthPort = await listen('health', options.healthPort, health, listening);
    metricsPort = metrics === undefined ? healthPort : await listen('metrics', options.metricsPort, metrics, listening);
  } catch (error) {
    for (const server of listening.reverse()) await server.stop();
    client.close();
    throw error;
  }
  const stopping = new AbortController();
  const informerRuns = informers.map((informer) => informer.run(stopping.signal));

  const events = new EventRecorder({ client, component: 'nudger-manager', instance: identity, logger });
  const syncTimeout =
    options.cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs: options.cacheSyncTimeoutMs };
  const runControllers = async (leading: AbortSignal): Promise<void> => {
    const staleReferences = new Controller({
      reconciler: new StaleReferenceReconciler({
        client,
        nudgeConfigs: nudgeConfigs.store,
        components: components.store,
        events,
      }),
      registry,
      logger,
      ...syncTimeout,
    });
    staleReferences.watch(nudgeConfigs, { updatePredicate: generationChanged });
    // A Component's edits never change which names exist; only its creation and deletion matter.
    staleReferences.watch(components, { map: nudgeConfigOfComponent, updatePredicate: () => false });

    // Only the sweeper reads nudge PipelineRuns, so only the leader caches them (D2).
    const nudgeRuns = new Informer<KubeObject>({
      source: new KubeListWatchSource(client.http, PIPELINE_RUNS, {
        ...scope,
        labelSelector: `${NUDGE_TYPE_LABEL}=${NUDGE_TYPE_VALUE}`,
      }),
      registry,
      logger,
    });
    const nudgeSweeper = new Controller({
      reconciler: new NudgeSweepReconciler({
        client,
        pipelineRuns: nudgeRuns.store,
        changeGroups: changeGroupSource,
        events,
      }),
      registry,
      logger,
      ...syncTimeout,
    });
    nudgeSweeper.watch(nudgeRuns);
    nudgeSweeper.watch(changeGroups, { map: notStartedNudgeRunsFor(nudgeRuns.store) });
    // A cluster without Tekton's CRD never syncs this cache: the sweeper is a backstop, so that
    // must not take the other controllers down with it. The informer keeps retrying and logging.
    const sweeping = nudgeSweeper.start(leading).catch((error: unknown) => {
      if (!(error instanceof CacheSyncTimeoutError)) throw error;
      logger.error({ err: error }, 'nudge sweeper not running: the PipelineRun cache did not sync');
    });
    // D6 distribution repositories; optional (release-service may not be installed), never blocking.
    const releasePlanAdmissions = new ReleasePlanAdmissionCache({ client, logger, registry, ...scope });
    const changeGroupController = new Controller({
      reconciler: changeGroupReconciler(options, client, {
        changeGroups: changeGroups.store,
        components: components.store,
        nudgeConfigs: nudgeConfigs.store,
        nudgeRuns: nudgeRuns.store,
        releasePlanAdmissions: releasePlanAdmissions.store,
        events,
        metrics: changeGroupMetrics(registry),
      }),
      concurrency: options.changeGroups?.workers ?? 4,
      registry,
      logger,
      ...syncTimeout,
    });
    // Status writes are the controller's own; only spec edits and deletions need a new look.
    changeGroupController.watch(changeGroups, { updatePredicate: generationChanged });
    changeGroupController.watch(nudgeRuns, { map: heldByChangeGroups });
    // Only graph changes matter here. A Component's status moves on every build (lastPromotedImage),
    // and waking every ChangeGroup of the namespace for it would re-read each one's pull request;
    // the build's own nudge PipelineRun already wakes the ChangeGroup that holds it.
    changeGroupController.watch(components, {
      map: changeGroupsOfNamespace(changeGroups.store),
      updatePredicate: generationChanged,
    });
    changeGroupController.watch(nudgeConfigs, {
      map: changeGroupsOfNamespace(changeGroups.store),
      updatePredicate: generationChanged,
    });
    const rpasRunning = releasePlanAdmissions.run(leading);
    const changeGroupsRunning = (async () => {
      await releasePlanAdmissions.settled(leading);
      await changeGroupController.start(leading);
    })().catch((error: unknown) => {
      if (!(error instanceof CacheSyncTimeoutError)) throw error;
      logger.error({ err: error }, 'ChangeGroup controller not running: a cache did not sync');
    });
    await Promise.all([
      nudgeRuns.run(leading),
      staleReferences.start(leading),
      sweeping,
      changeGroupsRunning,
      rpasRunning,
    ]);
  };

  // Controllers that end with an error end the manager (exit non-zero), leader or not: a leader
  // whose controllers died must not keep renewing the Lease and so block a healthy replica.
  let failure: unknown;
  const fail = (error: unknown): void => {
    if (failure === undefined) failure = error ?? new Error('unknown failure');
    logger.error({ err: error }, 'manager failed');
    void stop();
  };
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
      await leadership.catch((error: unknown) => {
        logger.error({ err: error }, 'controllers ended with an error');
      });
      await webhook.stop();
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
  return { webhookPort, healthPort, metricsPort, identity, done, failure: () => failure, stop };
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

function changeGroupReconciler(
  options: ManagerOptions,
  client: KubeClient,
  stores: Pick<
    ChangeGroupReconcilerOptions,
    'changeGroups' | 'components' | 'nudgeConfigs' | 'nudgeRuns' | 'releasePlanAdmissions' | 'events' | 'metrics'
  >,
): ChangeGroupReconciler {
  const settings = options.changeGroups ?? {};
  const hosts = publicForgeHosts();
  for (const [host, forge] of settings.forgeHosts ?? []) hosts.set(host, forge);
  return new ChangeGroupReconciler({
    client,
    ...stores,
    builds: new BuildVerifier(client),
    forges: settings.forgeResolver ?? new HostedForgeResolver(client, hosts),
    workspaces: new GitWorkspaces({ cacheDir: settings.gitCacheDir ?? join(tmpdir(), 'nudger-git') }),
    bot: settings.bot ?? DEFAULT_BOT,
    link: settings.link ?? { kind: 'kubectl' },
    pollIntervalMs: settings.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
  });
}

/** A held nudge wakes the ChangeGroups its held-targets annotation names. */
function heldByChangeGroups(run: KubeObject): ObjectKey[] {
  const namespace = run.metadata?.namespace ?? '';
  return changeGroupsHolding(run).map((name) => ({ namespace, name }));
}

/** A Component or NudgeConfig change can move any ChangeGroup of its namespace still collecting. */
function changeGroupsOfNamespace(store: Store<KubeObject>): (object: KubeObject) => ObjectKey[] {
  return (object) => {
    const namespace = object.metadata?.namespace ?? '';
    return store
      .list(namespace)
      .filter((cg) => {
        const phase = (cg as { status?: { phase?: ChangeGroupPhase } }).status?.phase;
        return phase === undefined || !isTerminalPhase(phase);
      })
      .map((cg) => ({ namespace, name: cg.metadata?.name ?? '' }));
  };
}

/** The flag's value, or a share of the container's memory and heap limits (inflight-budget.ts). */
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
