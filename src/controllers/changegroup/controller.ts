// The ChangeGroup controller as a module (src/runtime/controller-module.ts): leader only. Its
// reconciler, the caches it reads (Components, NudgeConfigs, ChangeGroups, nudge PipelineRuns and,
// optionally, ReleasePlanAdmissions) and the watches that wake it.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostedForgeResolver, type GitHubAppSource } from '../../adapters/forges/hosted-resolver.ts';
import { publicForgeHosts, type HostedForge } from '../../adapters/forges/registry.ts';
import type { ForgeResolver } from '../../adapters/forges/resolver.ts';
import type { GitIdentity } from '../../adapters/git/workspace.ts';
import { GitWorkspaces } from '../../adapters/git/workspace.ts';
import type { KubeClient, ObjectClient } from '../../adapters/kubernetes/client.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import {
  CHANGE_GROUPS_KIND,
  COMPONENTS_KIND,
  NUDGE_CONFIGS_KIND,
  NUDGE_RUNS_SELECTOR,
  PIPELINE_RUNS_KIND,
} from '../../cluster/watched-kinds.ts';
import { isTerminalPhase } from '../../domain/changegroup/model.ts';
import type { ChangeGroupLink } from '../../domain/pr-description/index.ts';
import type { ControllerModule } from '../../runtime/controller-module.ts';
import { Controller, generationChanged } from '../../runtime/controller.ts';
import type { ObjectKey } from '../../runtime/reconciler.ts';
import type { Store } from '../../runtime/store.ts';
import type { ClusterChangeGroup } from '../../schema/changegroup.ts';
import type { ControllerSettings } from '../settings.ts';
import { BuildVerifier } from './build-verifier.ts';
import { changeGroupsHolding } from './inputs.ts';
import { changeGroupMetrics } from './metrics.ts';
import { ChangeGroupReconciler, type ChangeGroupReconcilerOptions } from './reconciler.ts';
import { ReleasePlanAdmissionCache } from './release-plan-admissions.ts';
import { managerRedispatcher } from '../redispatch.ts';

export interface ChangeGroupControllerOptions {
  /** Default: the registry's public hosts and `forgeHosts`, with tokens from the tenant's SCM Secrets. */
  readonly forgeResolver?: ForgeResolver;
  /** Hosts besides the public ones (GitHub Enterprise, ...), by host name (`--<kind>-host`). */
  readonly forgeHosts?: ReadonlyMap<string, HostedForge>;
  /**
   * The cluster's GitHub App (`--github-app-secret`), tried before SCM Secrets on GitHub hosts
   * (docs/decisions.md N23); absent: none. The dispatcher's executors share it, tokens included.
   */
  readonly githubApp?: GitHubAppSource;
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

function changeGroupReconciler(
  settings: ChangeGroupControllerOptions,
  client: KubeClient,
  stores: Pick<
    ChangeGroupReconcilerOptions,
    | 'changeGroups'
    | 'components'
    | 'nudgeConfigs'
    | 'nudgeRuns'
    | 'releasePlanAdmissions'
    | 'events'
    | 'metrics'
    | 'redispatcher'
  >,
): ChangeGroupReconciler {
  const hosts = publicForgeHosts();
  for (const [host, forge] of settings.forgeHosts ?? []) hosts.set(host, forge);
  return new ChangeGroupReconciler({
    client,
    ...stores,
    builds: new BuildVerifier(client),
    forges: settings.forgeResolver ?? hostedForgeResolver(client, hosts, settings),
    workspaces: new GitWorkspaces({ cacheDir: settings.gitCacheDir ?? join(tmpdir(), 'nudger-git') }),
    bot: settings.bot ?? DEFAULT_BOT,
    link: settings.link ?? { kind: 'kubectl' },
    pollIntervalMs: settings.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
  });
}

/** The manager's resolver over `hosts`, with the settings' GitHub App when there is one. */
export function hostedForgeResolver(
  client: KubeClient | ObjectClient,
  hosts: ReadonlyMap<string, HostedForge>,
  settings: Pick<ChangeGroupControllerOptions, 'githubApp'>,
): HostedForgeResolver {
  return new HostedForgeResolver(
    client,
    hosts,
    settings.githubApp === undefined ? {} : { githubApp: settings.githubApp },
  );
}

/** A held nudge wakes the ChangeGroups its held-targets annotation names. */
function heldByChangeGroups(run: KubeObject): ObjectKey[] {
  const namespace = run.metadata?.namespace ?? '';
  return changeGroupsHolding(run).map((name) => ({ namespace, name }));
}

/** A Component or NudgeConfig change can move any ChangeGroup of its namespace still collecting. */
function changeGroupsOfNamespace(store: Store<ClusterChangeGroup>): (object: KubeObject) => ObjectKey[] {
  return (object) => {
    const namespace = object.metadata?.namespace ?? '';
    return store
      .list(namespace)
      .filter((cg) => {
        const phase = cg.status?.phase;
        return phase === undefined || !isTerminalPhase(phase);
      })
      .map((cg) => ({ namespace, name: cg.metadata?.name ?? '' }));
  };
}

export const changeGroupController: ControllerModule<ControllerSettings> = {
  name: 'changegroup',
  group: 'konflux',
  leaderOnly: true,
  setUp({ client, informers, events, registry, logger, namespace, cacheSyncTimeoutMs, settings }) {
    const components = informers.informer(COMPONENTS_KIND);
    const nudgeConfigs = informers.informer(NUDGE_CONFIGS_KIND);
    const changeGroups = informers.informer(CHANGE_GROUPS_KIND);
    const nudgeRuns = informers.informer(PIPELINE_RUNS_KIND, NUDGE_RUNS_SELECTOR);
    // D6 distribution repositories; optional (release-service may not be installed), never blocking.
    const releasePlanAdmissions = new ReleasePlanAdmissionCache({
      client,
      informers,
      logger,
      ...(namespace === undefined ? {} : { namespace }),
    });
    const options = settings.changeGroups ?? {};
    // A released target of a build-service or integration-service run is fired through the
    // dispatcher's executors (src/controllers/redispatch.ts); none with dispatch off.
    const redispatcher = managerRedispatcher(client, settings, {
      components: components.store,
      nudgeConfigs: nudgeConfigs.store,
      releasePlanAdmissions: releasePlanAdmissions.store,
      events,
    });
    const controller = new Controller({
      reconciler: changeGroupReconciler(options, client, {
        changeGroups: changeGroups.store,
        components: components.store,
        nudgeConfigs: nudgeConfigs.store,
        nudgeRuns: nudgeRuns.store,
        releasePlanAdmissions: releasePlanAdmissions.store,
        events,
        metrics: changeGroupMetrics(registry),
        ...(redispatcher === undefined ? {} : { redispatcher }),
      }),
      concurrency: options.workers ?? 4,
      registry,
      logger,
      ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
      onCacheSyncTimeout: 'keepWaiting',
    });
    // Status writes are the controller's own; only spec edits and deletions need a new look.
    controller.watch(changeGroups, { updatePredicate: generationChanged });
    controller.watch(nudgeRuns, { map: heldByChangeGroups });
    // Only graph changes matter here. A Component's status moves on every build (lastPromotedImage),
    // and waking every ChangeGroup of the namespace for it would re-read each one's pull request;
    // the build's own nudge PipelineRun already wakes the ChangeGroup that holds it.
    controller.watch(components, {
      map: changeGroupsOfNamespace(changeGroups.store),
      updatePredicate: generationChanged,
    });
    controller.watch(nudgeConfigs, {
      map: changeGroupsOfNamespace(changeGroups.store),
      updatePredicate: generationChanged,
    });
    return async (signal) => {
      const admissions = releasePlanAdmissions.run(signal);
      // A slow or missing cache delays the controller, never stops it (docs/decisions.md N51).
      await releasePlanAdmissions.settled(signal);
      await controller.start(signal);
      await admissions;
    };
  },
};
