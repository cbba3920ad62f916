// The nudge graph of one namespace from the objects the informer caches (or the API server) hold.
// They are read exactly as the CLI reads manifests (the schema's decoder, manifestSetFromObjects)
// and derived by the one graph function, buildNudgeGraphs; controllers, webhooks and the sandbox
// ask this and never walk `spec.nudges` or `build-nudges-ref` themselves. Cost: about 10-20 ms for
// 5,000 Components, paid per ChangeGroup reconcile or admission, not per request of a hot path.
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { buildNamespaceGraph, type GraphOptions, type NamespaceGraph } from '../domain/graph.ts';
import { manifestSetFromObjects, type InMemoryObject } from '../manifest/parse.ts';
import { COMPONENT_API_VERSION, COMPONENT_KIND } from '../schema/component.ts';
import { NUDGE_CONFIG_API_VERSION, NUDGE_CONFIG_KIND } from '../schema/nudgeconfig.ts';

export interface NamespaceObjects {
  /** The namespace's Components, or only those whose outgoing edges matter. */
  readonly components: readonly KubeObject[];
  /** Its NudgeConfig (`nudge-config`), either version; absent when it has none. */
  readonly nudgeConfig?: KubeObject | undefined;
}

export function namespaceNudgeGraph(
  namespace: string,
  objects: NamespaceObjects,
  options: GraphOptions = {},
): NamespaceGraph {
  const origin = `cluster ${namespace}`;
  // Objects are read as the version they were fetched through: the caches and the sandbox read
  // Components and NudgeConfigs through these endpoints only (both NudgeConfig versions share the
  // stored object, conversion None).
  const read: InMemoryObject[] = objects.components.map((object) => ({
    value: { ...object, apiVersion: COMPONENT_API_VERSION, kind: COMPONENT_KIND },
    origin,
  }));
  if (objects.nudgeConfig !== undefined) {
    read.push({
      value: { ...objects.nudgeConfig, apiVersion: NUDGE_CONFIG_API_VERSION, kind: NUDGE_CONFIG_KIND },
      origin,
    });
  }
  return buildNamespaceGraph(namespace, manifestSetFromObjects(read), options);
}
