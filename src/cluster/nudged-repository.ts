// Where a nudge lands and which files it may touch, read the same way by the ChangeGroup
// controller and by the sandbox's Renovate stand-in: the nudged Component's git source, and the
// Renovate ConfigMaps in force for it (docs/decisions.md D6). ConfigMaps are read by name, never
// listed; the namespace-wide one may come from a cache of exactly those (N49).
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { isNotFound } from '../adapters/kubernetes/errors.ts';
import { CONFIG_MAPS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import type { NudgingComponentFacts } from '../domain/changegroup/verify-build.ts';
import type { ClusterComponent } from '../schema/component.ts';
import {
  NAMESPACE_WIDE_RENOVATE_CONFIG_MAP,
  NUDGE_RENOVATE_CONFIG_MAP_ANNOTATION,
  type FileMatchSources,
} from '../domain/digest-rewrite/index.ts';

/** The base branch when a Component names no `spec.source.git.revision`. */
export const DEFAULT_BASE_BRANCH = 'main';

export interface GitSource {
  /** `spec.source.git.url`, when set. */
  readonly url: string | undefined;
  /** `spec.source.git.revision`, else `main`. */
  readonly revision: string;
}

/** Empty strings mean unset, as build-service reads them. */
export function gitSourceOf(component: ClusterComponent): GitSource {
  const { url, revision } = component.spec?.source?.git ?? {};
  return {
    url: url === undefined || url === '' ? undefined : url,
    revision: revision === undefined || revision === '' ? DEFAULT_BASE_BRANCH : revision,
  };
}

/**
 * A synced cache of the namespace-wide Renovate ConfigMaps (NAMESPACE_WIDE_RENOVATE_CONFIG_SELECTOR):
 * absent from it means absent from the cluster, as for any informer-fed read.
 */
export interface NamespaceWideConfigMaps {
  get(namespace: string, name: string): { readonly data?: Readonly<Record<string, string>> } | undefined;
}

async function configMapData(
  client: ObjectClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<Record<string, string> | undefined> {
  try {
    const map = await client.get<KubeObject & { data?: Record<string, string> }>(CONFIG_MAPS, namespace, name, signal);
    return map.data ?? {};
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * The ConfigMap part of D6's fileMatch sources for `nudged`: the ConfigMap its annotation names
 * (`null` when named but missing: it replaces, never falls back to, the namespace-wide one), else
 * `namespace-wide-nudging-renovate-config` when it exists. The namespace-wide one comes from
 * `namespaceWide` when given (the manager's cache: no request per nudge, docs/decisions.md N49),
 * else it is read by name like the per-Component one.
 */
export async function renovateConfigMapSources(
  client: ObjectClient,
  namespace: string,
  nudged: KubeObject,
  signal?: AbortSignal,
  namespaceWide?: NamespaceWideConfigMaps,
): Promise<FileMatchSources> {
  const named = nudged.metadata?.annotations?.[NUDGE_RENOVATE_CONFIG_MAP_ANNOTATION];
  if (named !== undefined && named !== '') {
    return { perComponentConfigMap: (await configMapData(client, namespace, named, signal)) ?? null };
  }
  const wide =
    namespaceWide === undefined
      ? await configMapData(client, namespace, NAMESPACE_WIDE_RENOVATE_CONFIG_MAP, signal)
      : cachedData(namespaceWide, namespace);
  return wide === undefined ? {} : { renovateConfigMap: wide };
}

function cachedData(cache: NamespaceWideConfigMaps, namespace: string): Record<string, string> | undefined {
  const map = cache.get(namespace, NAMESPACE_WIDE_RENOVATE_CONFIG_MAP);
  // A copy: the cache's object is shared and must not be handed on to be changed.
  return map === undefined ? undefined : { ...map.data };
}

/** D3's facts from a Component object: its image repository and the branch it builds. */
export function nudgingComponentFacts(component: ClusterComponent | undefined): NudgingComponentFacts | undefined {
  if (component === undefined) return undefined;
  const image = component.spec?.containerImage;
  // Only a revision the Component names binds its builds (verify-build.ts says why).
  const revision = component.spec?.source?.git?.revision;
  return {
    ...(image === undefined ? {} : { containerImage: image }),
    ...(revision === undefined || revision === '' ? {} : { branch: revision }),
  };
}
