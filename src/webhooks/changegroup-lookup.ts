// The facts ChangeGroup admission and the nudge hold read from the informer caches. A nudge edge
// missing from the cache is confirmed against the API server before it can cause a denial, because
// the cache may trail a NudgeConfig or Component edited a moment ago.
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { isNotFound } from '../adapters/kubernetes/errors.ts';
import { COMPONENTS, NUDGE_CONFIGS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../adapters/kubernetes/types.ts';
import { namespaceNudgeGraph } from '../cluster/nudge-graph.ts';
import type { ComponentResource, NudgeConfigResource } from '../cluster/nudgeconfig-objects.ts';
import { NUDGE_CONFIG_NAME } from '../domain/model.ts';
import type { Store } from '../runtime/store.ts';
import type { NudgeEdgeLookup } from './changegroup.ts';

/** Does `nudging` nudge `nudged`, by the namespace's NudgeConfig or the Component's build-nudges-ref? */
export function hasNudgeEdge(
  nudgeConfig: NudgeConfigResource | undefined,
  nudgingComponent: ComponentResource | undefined,
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
  readonly #components: Store<ComponentResource>;
  readonly #nudgeConfigs: Store<NudgeConfigResource>;
  readonly #client: ObjectClient;

  constructor(components: Store<ComponentResource>, nudgeConfigs: Store<NudgeConfigResource>, client: ObjectClient) {
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
      this.#getOrUndefined<NudgeConfigResource>(NUDGE_CONFIGS, namespace, NUDGE_CONFIG_NAME, signal),
      ...unconfirmed.map((name) => this.#getOrUndefined<ComponentResource>(COMPONENTS, namespace, name, signal)),
    ]);
    return new Set(unconfirmed.filter((name, i) => !hasNudgeEdge(liveConfig, liveComponents[i], name, nudged)));
  }

  async #getOrUndefined<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string,
    name: string,
    signal: AbortSignal,
  ): Promise<T | undefined> {
    try {
      return await this.#client.get<T>(ref, namespace, name, signal);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
