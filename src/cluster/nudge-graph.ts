// The nudge graph of one namespace from the decoded Components and NudgeConfig the informer caches
// (or a live read) hold, derived by the one graph function, buildNamespaceGraph; controllers,
// webhooks and the sandbox ask this and never walk `spec.nudges` or `build-nudges-ref` themselves.
// The objects were decoded once where they entered (src/cluster/watched-kinds.ts), so nothing is
// checked again here: each object is only mapped into the domain model, once, and the mapping is
// kept for as long as the object lives (cached objects are immutable and shared).
import { buildNamespaceGraph, type GraphOptions, type NamespaceGraph } from '../domain/graph.ts';
import type { ComponentObject, NudgeConfigObject, ObjectRef, SourceLocation } from '../domain/model.ts';
import { BUILD_NUDGES_REF, COMPONENT_KIND, type ClusterComponent } from '../schema/component.ts';
import { NUDGE_CONFIG_KIND, type ClusterNudgeConfig } from '../schema/nudgeconfig.ts';
import { storedNudgeConfigFlavour } from './nudgeconfig-objects.ts';

export interface NamespaceObjects {
  /** The namespace's Components, or only those whose outgoing edges matter. */
  readonly components: readonly ClusterComponent[];
  /** Its NudgeConfig (`nudge-config`), either version; absent when it has none. */
  readonly nudgeConfig?: ClusterNudgeConfig | undefined;
}

export function namespaceNudgeGraph(
  namespace: string,
  objects: NamespaceObjects,
  options: GraphOptions = {},
): NamespaceGraph {
  const read = objects.components.flatMap((component) => remembered(components, component, componentObjectOf) ?? []);
  const config =
    objects.nudgeConfig === undefined ? undefined : remembered(nudgeConfigs, objects.nudgeConfig, nudgeConfigObjectOf);
  return buildNamespaceGraph(
    namespace,
    { components: read, nudgeConfigs: config === undefined ? [] : [config] },
    options,
  );
}

const components = new WeakMap<ClusterComponent, ComponentObject | undefined>();
const nudgeConfigs = new WeakMap<ClusterNudgeConfig, NudgeConfigObject | undefined>();

/** `read(object)`, computed once per object. */
function remembered<K extends object, V>(cache: WeakMap<K, V>, object: K, read: (object: K) => V): V {
  if (cache.has(object)) return cache.get(object) as V;
  const value = read(object);
  cache.set(object, value);
  return value;
}

/** Where a cluster object's findings point: there is no file, so the namespace stands for it. */
function locationOf(ref: ObjectRef): SourceLocation {
  return { file: `cluster ${ref.namespace}` };
}

/** A nameless object cannot be referred to, so it is left out, as manifest reading leaves it out. */
function refOf(object: ClusterComponent | ClusterNudgeConfig, kind: string): ObjectRef | undefined {
  const name = object.metadata?.name ?? '';
  return name === '' ? undefined : { kind, namespace: object.metadata?.namespace ?? '', name };
}

function componentObjectOf(component: ClusterComponent): ComponentObject | undefined {
  const ref = refOf(component, COMPONENT_KIND);
  if (ref === undefined) return undefined;
  const location = locationOf(ref);
  const { containerImage } = component.spec ?? {};
  const lastPromotedImage = component.status?.lastPromotedImage;
  return {
    ref,
    location,
    ...(containerImage === undefined ? {} : { containerImage }),
    ...(lastPromotedImage === undefined ? {} : { lastPromotedImage }),
    buildNudgesRef: (component.spec?.[BUILD_NUDGES_REF] ?? []).map((name) => ({ name, location })),
  };
}

function nudgeConfigObjectOf(config: ClusterNudgeConfig): NudgeConfigObject | undefined {
  const ref = refOf(config, NUDGE_CONFIG_KIND);
  if (ref === undefined) return undefined;
  const location = locationOf(ref);
  return {
    ref,
    flavour: storedNudgeConfigFlavour(config),
    location,
    entries: (config.spec?.nudges ?? []).map(({ from, to, mode, gatingGroup }, index) => ({
      index,
      from,
      to,
      ...(mode === undefined ? {} : { mode }),
      ...(gatingGroup === undefined ? {} : { gatingGroup }),
      location,
    })),
  };
}
