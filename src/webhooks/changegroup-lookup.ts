// The facts ChangeGroup admission and the nudge hold read from the informer caches. A nudge edge
// missing from the cache is confirmed against the API server before it can cause a denial, because
// the cache may trail a NudgeConfig or Component edited a moment ago.
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { isNotFound } from '../adapters/kubernetes/errors.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { namespaceNudgeGraph } from '../cluster/nudge-graph.ts';
import { COMPONENTS_KIND, NUDGE_CONFIGS_KIND } from '../cluster/watched-kinds.ts';
import { NUDGE_CONFIG_NAME } from '../domain/model.ts';
import type { Store } from '../runtime/store.ts';
import type { WatchedKind } from '../runtime/watched-kind.ts';
import type { ClusterComponent } from '../schema/component.ts';
import type { ClusterNudgeConfig } from '../schema/nudgeconfig.ts';
import type { NudgeEdgeLookup } from './changegroup.ts';

/** Does `nudging` nudge `nudged`, by the namespace's NudgeConfig or the Component's build-nudges-ref? */
export function hasNudgeEdge(
  nudgeConfig: ClusterNudgeConfig | undefined,
  nudgingComponent: ClusterComponent | undefined,
  nudging: string,
  nudged: string,
): boolean {
  const namespace = nudgeConfig?.metadata?.namespace ?? nudgingComponent?.metadata?.namespace ?? '';
  // Found by name in this namespace: say so, whatever its metadata holds.
  const component =
    nudgingComponent === undefined
      ? []
      : [{ ...nudgingComponent, metadata: { ...nudgingComponent.metadata, name: nudging, namespace } }];
  const graph = namespaceNudgeGraph(namespace, {
    components: component,
    ...(nudgeConfig === undefined
      ? {}
      : { nudgeConfig: { ...nudgeConfig, metadata: { ...nudgeConfig.metadata, namespace } } }),
  });
  return graph.successors(nudging).includes(nudged);
}

export class CachedNudgeEdgeLookup implements NudgeEdgeLookup {
  readonly #components: Store<ClusterComponent>;
  readonly #nudgeConfigs: Store<ClusterNudgeConfig>;
  readonly #client: ObjectClient;

  constructor(components: Store<ClusterComponent>, nudgeConfigs: Store<ClusterNudgeConfig>, client: ObjectClient) {
    this.#components = components;
    this.#nudgeConfigs = nudgeConfigs;
    this.#client = client;
  }

  async withoutEdge(
    namespace: string,
    nudged: string,
    nudging: readonly string[],
    signal: AbortSignal,
  ): Promise<ReadonlySet<string>> {
    const cachedConfig = this.#nudgeConfigs.get(namespace, NUDGE_CONFIG_NAME);
    const unconfirmed = nudging.filter(
      (name) => !hasNudgeEdge(cachedConfig, this.#components.get(namespace, name), name, nudged),
    );
    if (unconfirmed.length === 0) return new Set();
    const [liveConfig, ...liveComponents] = await Promise.all([
      this.#read(NUDGE_CONFIGS_KIND, namespace, NUDGE_CONFIG_NAME, signal),
      ...unconfirmed.map((name) => this.#read(COMPONENTS_KIND, namespace, name, signal)),
    ]);
    return new Set(unconfirmed.filter((name, i) => !hasNudgeEdge(liveConfig, liveComponents[i], name, nudged)));
  }

  /**
   * A live read, decoded as the informer decodes the kind: absent when there is none, and when
   * it does not decode (the informer reports that), since nothing can be read from it either.
   */
  async #read<T extends KubeObject>(
    kind: WatchedKind<T>,
    namespace: string,
    name: string,
    signal: AbortSignal,
  ): Promise<T | undefined> {
    try {
      const decoded = kind.decode(await this.#client.get(kind.resource, namespace, name, signal));
      return decoded.ok ? decoded.object : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
