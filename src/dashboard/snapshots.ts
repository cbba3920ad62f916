// What the dashboard renders, read from the manager's informer caches (docs/decisions.md D14, N46):
// one namespace's Konflux objects with its nudge graph (derived by the one graph function,
// namespaceNudgeGraph), or one CF space's Korifi objects. Nothing here asks the API server. A
// namespace's snapshot is built once and kept until an object of that namespace changes, so a
// thousand clients on one view, or a re-render that finds nothing new, cost no graph rebuild.
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { KorifiKindCaches } from '../cluster/korifi-watched-kinds.ts';
import {
  BUILD_WORKLOADS_KIND,
  CF_APPS_KIND,
  CF_BUILDS_KIND,
  KPACK_BUILDERS_KIND,
  KPACK_CLUSTER_BUILDERS_KIND,
  KPACK_IMAGES_KIND,
} from '../cluster/korifi-watched-kinds.ts';
import { namespaceNudgeGraph } from '../cluster/nudge-graph.ts';
import {
  BUILD_RUNS_KIND,
  CHANGE_GROUPS_KIND,
  COMPONENTS_KIND,
  NUDGE_CONFIGS_KIND,
  NUDGE_RUNS_SELECTOR,
  PIPELINE_RUNS_KIND,
  PUSH_BUILD_RUNS_SELECTOR,
} from '../cluster/watched-kinds.ts';
import { compareStrings } from '../domain/compare.ts';
import type { KorifiSnapshot, NamespaceSnapshot } from '../domain/dashboard/inputs.ts';
import type { InformerHandlers } from '../runtime/informer.ts';
import type { InformerSource } from '../runtime/shared-informers.ts';
import type { Store } from '../runtime/store.ts';
import type { ClusterChangeGroup } from '../schema/changegroup.ts';
import type { ClusterComponent } from '../schema/component.ts';
import type { BuildWorkload, CFApp, CFBuild } from '../schema/korifi.ts';
import type { KpackBuilder, KpackClusterBuilder, KpackImage } from '../schema/kpack.ts';
import { NUDGE_CONFIG_NAME, type ClusterNudgeConfig } from '../schema/nudgeconfig.ts';
import type { PipelineRun } from '../schema/pipelinerun.ts';

/** A cache the live updates follow: an Informer. */
export interface ChangeSource {
  addHandlers(handlers: InformerHandlers<KubeObject>): () => void;
}

/** A cache the dashboard reads: an Informer (its store) that says when it changes. */
export interface Cache<T extends KubeObject> extends ChangeSource {
  readonly store: Pick<Store<T>, 'list' | 'get'>;
}

/** Everything the server reads. */
export interface DashboardData {
  /** Whether the korifi controllers run: the Korifi view exists only then. */
  readonly korifi: boolean;
  /** Namespaces with any Component, NudgeConfig or ChangeGroup, sorted. */
  namespaces(): readonly string[];
  namespace(name: string): NamespaceSnapshot;
  /** Namespaces with any CFApp, sorted. */
  korifiSpaces(): readonly string[];
  korifiSpace(name: string): KorifiSnapshot;
  /** The caches whose changes the live updates follow. */
  readonly sources: readonly ChangeSource[];
}

export interface KonfluxCaches {
  readonly components: Cache<ClusterComponent>;
  readonly nudgeConfigs: Cache<ClusterNudgeConfig>;
  readonly changeGroups: Cache<ClusterChangeGroup>;
  readonly buildRuns: Cache<PipelineRun>;
  readonly nudgeRuns: Cache<PipelineRun>;
}

export interface KorifiCaches {
  readonly apps: Cache<CFApp>;
  readonly builds: Cache<CFBuild>;
  readonly buildWorkloads: Cache<BuildWorkload>;
  readonly images: Cache<KpackImage>;
  readonly builders: Cache<KpackBuilder>;
  readonly clusterBuilders: Cache<KpackClusterBuilder>;
}

/**
 * The Konflux caches, from the replica's informer set: the webhooks' Components, NudgeConfigs and
 * ChangeGroups, and the dispatcher's push builds and nudge PipelineRuns with the very kind and
 * selector the controllers ask for, so a leadership term finds them in its parent set and shares
 * them (shared-informers.ts `forTerm`) instead of watching twice. Ask before the set runs.
 */
export function konfluxCaches(informers: InformerSource): KonfluxCaches {
  return {
    components: informers.informer(COMPONENTS_KIND),
    nudgeConfigs: informers.informer(NUDGE_CONFIGS_KIND),
    changeGroups: informers.informer(CHANGE_GROUPS_KIND),
    buildRuns: informers.informer(BUILD_RUNS_KIND, PUSH_BUILD_RUNS_SELECTOR),
    nudgeRuns: informers.informer(PIPELINE_RUNS_KIND, NUDGE_RUNS_SELECTOR),
  };
}

/**
 * The Korifi caches, from KorifiKindCaches (probed: a kind not installed yet leaves its cache empty
 * until it is). Run them with `kinds.run(signal)`.
 */
export function korifiCaches(kinds: KorifiKindCaches): KorifiCaches {
  return {
    apps: kinds.cache(CF_APPS_KIND).informer,
    builds: kinds.cache(CF_BUILDS_KIND).informer,
    buildWorkloads: kinds.cache(BUILD_WORKLOADS_KIND).informer,
    images: kinds.cache(KPACK_IMAGES_KIND).informer,
    builders: kinds.cache(KPACK_BUILDERS_KIND).informer,
    clusterBuilders: kinds.cache(KPACK_CLUSTER_BUILDERS_KIND).informer,
  };
}

export { KorifiKindCaches };

/**
 * Snapshots kept at most: any valid namespace name may be asked for (an empty one renders too), so
 * past this many the kept ones are dropped and rebuilt on demand.
 */
const MAX_KEPT_SNAPSHOTS = 2_000;

/** The dashboard's data over the caches; snapshots are kept until their namespace changes. */
export class CacheData implements DashboardData {
  readonly korifi: boolean;
  readonly sources: readonly ChangeSource[];
  readonly #konflux: KonfluxCaches | undefined;
  readonly #korifi: KorifiCaches | undefined;
  readonly #namespaces = new Map<string, NamespaceSnapshot>();
  readonly #spaces = new Map<string, KorifiSnapshot>();
  #namespaceList: readonly string[] | undefined;
  #spaceList: readonly string[] | undefined;

  constructor(caches: { readonly konflux?: KonfluxCaches; readonly korifi?: KorifiCaches }) {
    this.#konflux = caches.konflux;
    this.#korifi = caches.korifi;
    this.korifi = caches.korifi !== undefined;
    const konflux = caches.konflux === undefined ? [] : sourcesOf(caches.konflux);
    const korifi = caches.korifi === undefined ? [] : sourcesOf(caches.korifi);
    for (const source of konflux) source.addHandlers(this.#forget(this.#namespaces, 'konflux'));
    for (const source of korifi) source.addHandlers(this.#forget(this.#spaces, 'korifi'));
    this.sources = [...konflux, ...korifi];
  }

  namespaces(): readonly string[] {
    const konflux = this.#konflux;
    if (konflux === undefined) return [];
    this.#namespaceList ??= namespacesOf([
      ...konflux.components.store.list(),
      ...konflux.nudgeConfigs.store.list(),
      ...konflux.changeGroups.store.list(),
    ]);
    return this.#namespaceList;
  }

  namespace(name: string): NamespaceSnapshot {
    let snapshot = this.#namespaces.get(name);
    if (snapshot === undefined) {
      snapshot = this.#readNamespace(name);
      keep(this.#namespaces, name, snapshot);
    }
    return snapshot;
  }

  korifiSpaces(): readonly string[] {
    if (this.#korifi === undefined) return [];
    this.#spaceList ??= namespacesOf(this.#korifi.apps.store.list());
    return this.#spaceList;
  }

  korifiSpace(name: string): KorifiSnapshot {
    let snapshot = this.#spaces.get(name);
    if (snapshot === undefined) {
      snapshot = this.#readSpace(name);
      keep(this.#spaces, name, snapshot);
    }
    return snapshot;
  }

  #readNamespace(namespace: string): NamespaceSnapshot {
    const konflux = this.#konflux;
    const components = konflux?.components.store.list(namespace) ?? [];
    const nudgeConfig = konflux?.nudgeConfigs.store.get(namespace, NUDGE_CONFIG_NAME);
    return {
      namespace,
      components,
      nudgeConfig,
      graph: namespaceNudgeGraph(namespace, { components, nudgeConfig }),
      changeGroups: konflux?.changeGroups.store.list(namespace) ?? [],
      buildRuns: konflux?.buildRuns.store.list(namespace) ?? [],
      nudgeRuns: konflux?.nudgeRuns.store.list(namespace) ?? [],
    };
  }

  #readSpace(namespace: string): KorifiSnapshot {
    const korifi = this.#korifi;
    return {
      namespace,
      apps: korifi?.apps.store.list(namespace) ?? [],
      builds: korifi?.builds.store.list(namespace) ?? [],
      buildWorkloads: korifi?.buildWorkloads.store.list(namespace) ?? [],
      images: korifi?.images.store.list(namespace) ?? [],
      builders: korifi?.builders.store.list(namespace) ?? [],
      clusterBuilders: korifi?.clusterBuilders.store.list() ?? [],
    };
  }

  /** Handlers that drop what a change makes stale: its namespace's snapshot (all, if cluster-scoped). */
  #forget(snapshots: Map<string, unknown>, family: 'konflux' | 'korifi'): InformerHandlers<KubeObject> {
    const changed = (object: KubeObject, listed: boolean): void => {
      const namespace = object.metadata?.namespace;
      if (namespace === undefined || namespace === '') snapshots.clear();
      else snapshots.delete(namespace);
      if (!listed) return;
      if (family === 'konflux') this.#namespaceList = undefined;
      else this.#spaceList = undefined;
    };
    return {
      add: (object) => {
        changed(object, true);
      },
      update: (_previous, current) => {
        changed(current, false);
      },
      delete: (object) => {
        changed(object, true);
      },
    };
  }
}

function keep<T>(snapshots: Map<string, T>, name: string, snapshot: T): void {
  if (snapshots.size >= MAX_KEPT_SNAPSHOTS) snapshots.clear();
  snapshots.set(name, snapshot);
}

function sourcesOf(caches: KonfluxCaches | KorifiCaches): ChangeSource[] {
  return Object.values(caches as unknown as Record<string, ChangeSource>);
}

function namespacesOf(objects: readonly KubeObject[]): readonly string[] {
  const names = new Set<string>();
  for (const object of objects) {
    const namespace = object.metadata?.namespace;
    if (namespace !== undefined && namespace !== '') names.add(namespace);
  }
  return [...names].sort(compareStrings);
}
