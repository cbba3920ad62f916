// The Korifi and kpack kinds the korifi controller group watches, each with its resource and its
// decoder (src/domain/korifi/objects.ts), like src/cluster/watched-kinds.ts for the Konflux kinds.
// None is watched unless the korifi group runs (`--controllers=korifi|all`), so a Konflux cluster
// without these CRDs never asks for them (docs/decisions.md N39).
import {
  BUILD_WORKLOADS,
  CF_APPS,
  CF_BUILDS,
  CF_PACKAGES,
  CF_PROCESSES,
  KPACK_BUILDERS,
  KPACK_BUILDS,
  KPACK_CLUSTER_BUILDERS,
  KPACK_IMAGES,
} from '../adapters/kubernetes/korifi-resources.ts';
import {
  decodeBuildWorkload,
  decodeCFApp,
  decodeCFBuild,
  decodeCFPackage,
  decodeCFProcess,
  decodeKpackBuild,
  decodeKpackBuilder,
  decodeKpackClusterBuilder,
  decodeKpackImage,
} from '../domain/korifi/objects.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import type { ControllerContext } from '../runtime/controller-module.ts';
import { OptionalKindCache } from '../runtime/optional-kind.ts';
import type { InformerRequest } from '../runtime/shared-informers.ts';
import type { WatchedKind } from '../runtime/watched-kind.ts';
import type { BuildWorkload, CFApp, CFBuild, CFPackage, CFProcess } from '../schema/korifi.ts';
import type { KpackBuild, KpackBuilder, KpackClusterBuilder, KpackImage } from '../schema/kpack.ts';

export const BUILD_WORKLOADS_KIND: WatchedKind<BuildWorkload> = {
  resource: BUILD_WORKLOADS,
  decode: decodeBuildWorkload,
};
export const CF_APPS_KIND: WatchedKind<CFApp> = { resource: CF_APPS, decode: decodeCFApp };
export const CF_BUILDS_KIND: WatchedKind<CFBuild> = { resource: CF_BUILDS, decode: decodeCFBuild };
export const CF_PACKAGES_KIND: WatchedKind<CFPackage> = { resource: CF_PACKAGES, decode: decodeCFPackage };
export const CF_PROCESSES_KIND: WatchedKind<CFProcess> = { resource: CF_PROCESSES, decode: decodeCFProcess };
export const KPACK_IMAGES_KIND: WatchedKind<KpackImage> = { resource: KPACK_IMAGES, decode: decodeKpackImage };
export const KPACK_BUILDS_KIND: WatchedKind<KpackBuild> = { resource: KPACK_BUILDS, decode: decodeKpackBuild };
export const KPACK_BUILDERS_KIND: WatchedKind<KpackBuilder> = { resource: KPACK_BUILDERS, decode: decodeKpackBuilder };
export const KPACK_CLUSTER_BUILDERS_KIND: WatchedKind<KpackClusterBuilder> = {
  resource: KPACK_CLUSTER_BUILDERS,
  decode: decodeKpackClusterBuilder,
};

type CacheSetup = Pick<ControllerContext<unknown>, 'client' | 'informers' | 'logger' | 'namespace'>;

/**
 * The korifi group's caches of one informer set (one leadership term), shared by its controllers:
 * each kind is probed and watched through an OptionalKindCache (docs/decisions.md N22), so a
 * manager started before Korifi or kpack is installed says once which kind is missing and its
 * korifi controllers start once the kinds can be listed. Every controller asks for its caches in
 * `setUp` (`cache`), then in its run calls `run` (which starts each cache once, whoever asks first;
 * all controllers of a term share its signal) and waits in `whenListable` before it starts.
 */
export class KorifiKindCaches {
  static readonly #bySet = new WeakMap<object, KorifiKindCaches>();

  /**
   * The caches of `setup.informers`, made on first use (`probeIntervalMs`, how often a missing kind
   * is asked for again, default 5 minutes, is the first caller's).
   */
  static of(setup: CacheSetup, options: { readonly probeIntervalMs?: number } = {}): KorifiKindCaches {
    let caches = KorifiKindCaches.#bySet.get(setup.informers);
    if (caches === undefined) {
      caches = new KorifiKindCaches(setup, options.probeIntervalMs);
      KorifiKindCaches.#bySet.set(setup.informers, caches);
    }
    return caches;
  }

  readonly #setup: CacheSetup;
  readonly #probeIntervalMs: number | undefined;
  readonly #caches = new Map<string, { cache: OptionalKindCache<KubeObject>; run?: Promise<void> }>();

  private constructor(setup: CacheSetup, probeIntervalMs: number | undefined) {
    this.#setup = setup;
    this.#probeIntervalMs = probeIntervalMs;
  }

  /** The cache of `kind` (with `request`'s label selector, if any); the same one for every caller. */
  cache<T extends KubeObject>(
    kind: WatchedKind<T>,
    request: Omit<InformerRequest, 'runByCaller'> = {},
  ): OptionalKindCache<T> {
    const { group, plural } = kind.resource;
    const key = `${group}/${plural}?${request.labelSelector ?? ''}`;
    const existing = this.#caches.get(key);
    // Sound: the informer set refuses a second kind descriptor for the same key.
    if (existing !== undefined) return existing.cache as unknown as OptionalKindCache<T>;
    const { client, informers, logger, namespace } = this.#setup;
    const cache = new OptionalKindCache<T>({
      kind,
      request,
      client,
      informers,
      logger,
      ...(namespace === undefined ? {} : { namespace }),
      ...(this.#probeIntervalMs === undefined ? {} : { probeIntervalMs: this.#probeIntervalMs }),
      unavailableMessage: `${kind.resource.kind} objects cannot be listed; nudger's Korifi controllers wait until Korifi and kpack are installed and nudger may list them (N39). Checking again every few minutes.`,
      availableMessage: `${kind.resource.kind} objects can be listed now; nudger's Korifi controllers start`,
    });
    this.#caches.set(key, { cache: cache as unknown as OptionalKindCache<KubeObject> });
    return cache;
  }

  /** Runs every cache asked for so far that is not running yet, until `signal` aborts. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const runs: Promise<void>[] = [];
    for (const entry of this.#caches.values()) {
      entry.run ??= entry.cache.run(signal);
      runs.push(entry.run);
    }
    await Promise.all(runs);
  }

  /** Resolves true once every one of `caches` can be listed, false if `signal` aborts first. */
  async whenListable(caches: readonly OptionalKindCache<KubeObject>[], signal: AbortSignal): Promise<boolean> {
    const listable = await Promise.all(caches.map((cache) => cache.whenListable(signal)));
    return listable.every(Boolean);
  }
}
