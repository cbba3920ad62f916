// kpack, as far as the Korifi sandbox and tests need it (docs/decisions.md N43): a stand-in that
// plays kpack's controllers through the real objects on the API server, the way the Tekton and
// Konflux stand-ins play theirs. Each round it reconciles ClusterStacks, ClusterStores,
// ClusterBuilders and Builders to Ready with kpack's status fields (kpack-builders.ts), then every
// Image: a Build per change, named, labelled and annotated as kpack does, "run" by pushing an image
// with a buildpacks build's config labels to the Image's tag in a real local registry, and the
// Build's and Image's status written (kpack-images.ts). Rebuilds come from the objects as in
// kpack: the operator's updates here only change a ClusterStack's run image or a ClusterStore's
// buildpack version, and the next round finds the Images whose last Build used them (STACK,
// BUILDPACK, or both: `BUILDPACK,STACK`).
//
// It does not run buildpacks, pull sources, push builder or run images, nor play kpack's webhooks,
// SourceResolvers, build pods, caches or the COMMIT and LIFECYCLE reasons.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isAlreadyExists } from '../../adapters/kubernetes/errors.ts';
import type { ResourceRef } from '../../adapters/kubernetes/types.ts';
import { RegistryClient, type RegistryClientOptions } from '../../adapters/registry/client.ts';
import { DEFAULT_CLUSTER_BUILDER, KPACK_SERVICE_ACCOUNT } from '../../domain/korifi/labels.ts';
import { SerialPoller } from '../poll-loop.ts';
import { builderKey, buildpackOfSource, reconcileBuilders, type BuilderKind } from './kpack-builders.ts';
import { DEFAULT_LAUNCH, syntheticDigest, type LaunchFacts } from './kpack-image.ts';
import { reconcileImages, type ImageRoundOptions, type PushImage, type RanBuild } from './kpack-images.ts';
import {
  KPACK_API_VERSION,
  KPACK_CLUSTER_BUILDERS,
  KPACK_CLUSTER_STACKS,
  KPACK_CLUSTER_STORES,
  recordAt,
  recordsAt,
  repositoryOf,
  stringAt,
  type KpackObject,
  type RejectedObject,
} from './kpack-objects.ts';

export type { PushImage, RanBuild } from './kpack-images.ts';
export type { KpackObject, RejectedObject } from './kpack-objects.ts';
export type { LaunchFacts } from './kpack-image.ts';

/** A Builder (namespaced) or ClusterBuilder. */
export interface BuilderRef {
  readonly kind: BuilderKind;
  readonly name: string;
  /** A Builder's namespace; ignored for a ClusterBuilder. */
  readonly namespace?: string;
}

export interface KpackStandInOptions {
  readonly client: ObjectClient;
  /** Pushes a built image; default registryPush() (anonymous, loopback registries over HTTP). */
  readonly push?: PushImage;
  /** Only Images and Builders of this namespace; default every namespace. Cluster kinds always. */
  readonly namespace?: string;
  /** The ClusterBuilder whose ClusterStack updateStack updates by default. */
  readonly clusterBuilder?: string;
  /** The process types and ports an Image's app gets; default one `web` process on 8080. */
  readonly launch?: (image: KpackObject) => LaunchFacts;
  /** The builder order group that "detects" for an Image; default the first. */
  readonly detect?: ImageRoundOptions['detect'];
  /** Builders held from the start (see holdBuilder). */
  readonly held?: readonly BuilderRef[];
  /** How many Images a round reconciles at once; default 8. */
  readonly concurrency?: number;
  readonly now?: () => Date;
}

/** What updateStack changed. */
export interface StackUpdate {
  readonly clusterStack: string;
  readonly id: string;
  /** The new run image, digest-pinned. */
  readonly runImage: string;
}

/** What updateBuildpack changed. */
export interface BuildpackUpdate {
  readonly clusterStore: string;
  readonly id: string;
  readonly from: string;
  readonly to: string;
}

/** The registry client's image writer as the stand-in's push: the manifest digest of each push. */
export function registryPush(options?: RegistryClientOptions): PushImage {
  const registry = new RegistryClient(options);
  return async (reference, image) => {
    const pushed = await registry.pushImage(reference, {
      labels: image.labels,
      exposedPorts: image.exposedPorts,
      layers: image.layers,
    });
    return pushed.digest;
  };
}

/** Thrown for an operator update the cluster's objects cannot take. */
export class KpackStandInError extends Error {
  override readonly name = 'KpackStandInError';
}

/** `1.2.3` → `1.2.4`; anything else gets `.1` appended. */
export function nextVersion(version: string): string {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (match === null) return `${version}.1`;
  return `${match[1] ?? ''}.${match[2] ?? ''}.${String(Number(match[3]) + 1)}`;
}

export class KpackStandIn {
  readonly #client: ObjectClient;
  readonly #push: PushImage;
  readonly #namespace: string | undefined;
  readonly #clusterBuilder: string;
  readonly #launch: (image: KpackObject) => LaunchFacts;
  readonly #detect: ImageRoundOptions['detect'];
  readonly #now: () => Date;
  readonly #held = new Set<string>();
  readonly #heldWhere = new Set<(builder: KpackObject) => boolean>();
  readonly #failWhere = new Set<(image: KpackObject) => boolean>();
  readonly #concurrency: number;
  readonly #builds: RanBuild[] = [];
  readonly #rejected = new Map<string, RejectedObject>();
  /** Rounds and operator updates one at a time: an update lands wholly between two rounds. */
  #tail: Promise<unknown> = Promise.resolve();
  readonly #poller = new SerialPoller<RanBuild[]>(() => this.#exclusive(() => this.#round()));

  constructor(options: KpackStandInOptions) {
    this.#client = options.client;
    this.#push = options.push ?? registryPush();
    this.#namespace = options.namespace;
    this.#clusterBuilder = options.clusterBuilder ?? DEFAULT_CLUSTER_BUILDER;
    this.#launch = options.launch ?? (() => DEFAULT_LAUNCH);
    this.#detect = options.detect ?? (() => 0);
    this.#now = options.now ?? (() => new Date());
    this.#concurrency = options.concurrency ?? 8;
    for (const ref of options.held ?? []) this.holdBuilder(ref);
  }

  /** Every Build run so far, in order. */
  get builds(): readonly RanBuild[] {
    return this.#builds;
  }

  /** Objects left alone because they do not decode, latest round's reading of each. */
  get rejected(): readonly RejectedObject[] {
    return [...this.#rejected.values()];
  }

  /** One round: builders, then Images; the Builds it ran. */
  poll(): Promise<RanBuild[]> {
    return this.#poller.poll();
  }

  /** Polls every `intervalMs` until stop(); a failed round goes to `onError` and polling goes on. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.#poller.start(intervalMs, onError);
  }

  /** Stops polling and waits for a round underway. */
  stop(): Promise<void> {
    return this.#poller.stop();
  }

  /**
   * Keeps a builder from being built, as when kpack cannot build it: one that never had an image
   * stays `Ready=False` (`NoLatestImage`), and Images on it get `BuilderNotReady`. As in kpack, a
   * builder that already has an image stays Ready (`UpToDate=False`, `ReconcileFailed`): hold a
   * builder before its first round to keep it not ready.
   */
  holdBuilder(ref: BuilderRef): void {
    this.#held.add(builderKey(ref.kind, ref.namespace ?? '', ref.name));
  }

  /**
   * Holds every builder (Builder or ClusterBuilder object) `predicate` accepts, e.g. the Builders
   * labelled with one app, whose names the test does not know beforehand; returns the release.
   */
  holdBuildersWhere(predicate: (builder: KpackObject) => boolean): () => void {
    this.#heldWhere.add(predicate);
    return () => {
      this.#heldWhere.delete(predicate);
    };
  }

  /**
   * Makes the Builds of every Image `predicate` accepts fail (`Succeeded=False`, nothing pushed;
   * the Image `Ready=False` `BuildFailed`) until the returned function is called. As in kpack, a
   * failed Build is not retried by itself: a CONFIG change or an additionalBuildNeeded is.
   */
  failBuildsWhere(predicate: (image: KpackObject) => boolean): () => void {
    this.#failWhere.add(predicate);
    return () => {
      this.#failWhere.delete(predicate);
    };
  }

  /** Lets a held builder be built at the next round. */
  releaseBuilder(ref: BuilderRef): void {
    this.#held.delete(builderKey(ref.kind, ref.namespace ?? '', ref.name));
  }

  /**
   * A stack update as an operator makes it: the ClusterStack (by default the one the default
   * ClusterBuilder uses) gets new digest-pinned run and build images, and `id` if given. The next
   * round rebuilds every Image whose builder uses it, with reason STACK (a rebase when the id is
   * unchanged).
   */
  updateStack(options: { id?: string; clusterStack?: string } = {}): Promise<StackUpdate> {
    return this.#exclusive(async () => {
      const name = options.clusterStack ?? (await this.#defaultStackName());
      const stack = await this.#client.get<KpackObject>(KPACK_CLUSTER_STACKS, '', name);
      return this.#writeStack(stack, options.id);
    });
  }

  /**
   * A buildpack update: the ClusterStore source that provides buildpack `id` moves to `version`
   * (default the next patch version). The next round rebuilds every Image whose last Build used
   * it, with reason BUILDPACK.
   */
  updateBuildpack(id: string, version?: string): Promise<BuildpackUpdate> {
    return this.#exclusive(() => this.#writeBuildpack(id, version));
  }

  /** Both at once, so the next round's rebuilds carry `BUILDPACK,STACK`. */
  updateBoth(options: {
    buildpack: string;
    version?: string;
    id?: string;
    clusterStack?: string;
  }): Promise<{ stack: StackUpdate; buildpack: BuildpackUpdate }> {
    return this.#exclusive(async () => {
      const name = options.clusterStack ?? (await this.#defaultStackName());
      const stack = await this.#client.get<KpackObject>(KPACK_CLUSTER_STACKS, '', name);
      const buildpack = await this.#writeBuildpack(options.buildpack, options.version);
      return { stack: await this.#writeStack(stack, options.id), buildpack };
    });
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(work, work);
    this.#tail = next.catch(() => undefined);
    return next;
  }

  async #round(): Promise<RanBuild[]> {
    this.#rejected.clear();
    const reject = (rejected: RejectedObject): void => {
      this.#rejected.set(`${rejected.kind} ${rejected.object}`, rejected);
    };
    const round = await reconcileBuilders(this.#client, {
      reject,
      ...(this.#namespace === undefined ? {} : { namespace: this.#namespace }),
      now: this.#now().toISOString(),
      isHeld: (key, builder) => this.#held.has(key) || [...this.#heldWhere].some((predicate) => predicate(builder)),
    });
    const ran = await reconcileImages(this.#client, {
      reject,
      ...(this.#namespace === undefined ? {} : { namespace: this.#namespace }),
      now: this.#now,
      builders: round.builders,
      push: this.#push,
      launch: this.#launch,
      detect: this.#detect,
      concurrency: this.#concurrency,
      fails: (image) => [...this.#failWhere].some((predicate) => predicate(image)),
    });
    this.#builds.push(...ran);
    return ran;
  }

  async #defaultStackName(): Promise<string> {
    const builder = await this.#client.get<KpackObject>(KPACK_CLUSTER_BUILDERS, '', this.#clusterBuilder);
    const name = stringAt(recordAt(builder.spec, 'stack'), 'name');
    if (name === undefined) {
      throw new KpackStandInError(`ClusterBuilder ${this.#clusterBuilder}: spec.stack.name is not set`);
    }
    return name;
  }

  async #writeStack(stack: KpackObject, id: string | undefined): Promise<StackUpdate> {
    const name = stack.metadata?.name ?? '';
    const spec = stack.spec ?? {};
    const runImage = stringAt(recordAt(spec, 'runImage'), 'image');
    const buildImage = stringAt(recordAt(spec, 'buildImage'), 'image');
    const currentId = stringAt(spec, 'id');
    if (runImage === undefined || buildImage === undefined || currentId === undefined) {
      throw new KpackStandInError(
        `ClusterStack ${name}: spec.id, spec.runImage.image and spec.buildImage.image are required`,
      );
    }
    const newId = id ?? currentId;
    // A new digest per update: the generation moves with every spec write.
    const seed = `${name} ${String(stack.metadata?.generation ?? 0)} ${newId}`;
    const next = {
      id: newId,
      runImage: { image: `${repositoryOf(runImage)}@${syntheticDigest(`run ${seed}`)}` },
      buildImage: { image: `${repositoryOf(buildImage)}@${syntheticDigest(`build ${seed}`)}` },
    };
    await this.#client.patch(KPACK_CLUSTER_STACKS, '', name, 'merge', { spec: next });
    return { clusterStack: name, id: newId, runImage: next.runImage.image };
  }

  async #writeBuildpack(id: string, version: string | undefined): Promise<BuildpackUpdate> {
    for (const store of (await this.#client.list<KpackObject>(KPACK_CLUSTER_STORES)).items) {
      const sources = recordsAt(store.spec, 'sources');
      const index = sources.findIndex((source) => buildpackOfSource(stringAt(source, 'image') ?? '').id === id);
      const source = sources[index];
      if (source === undefined) continue;
      const image = stringAt(source, 'image') ?? '';
      const from = buildpackOfSource(image).version;
      const to = version ?? nextVersion(from);
      const updated = sources.map((entry, at) =>
        at === index ? { ...entry, image: `${repositoryOf(image.split('@')[0] ?? image)}:${to}` } : entry,
      );
      const name = store.metadata?.name ?? '';
      // A replace, not a merge patch: sources is a list, and the compare-and-swap keeps others' writes.
      await this.#client.replace(KPACK_CLUSTER_STORES, { ...store, spec: { ...store.spec, sources: updated } });
      return { clusterStore: name, id, from, to };
    }
    throw new KpackStandInError(`no ClusterStore source provides buildpack ${JSON.stringify(id)}`);
  }
}

/** The default builder objects, as Korifi's Helm chart makes them when none is configured. */
export interface DefaultBuilderOptions {
  /** Buildpack ids, e.g. `paketo-buildpacks/nodejs`; one order group each, in this order. */
  readonly buildpacks: readonly string[];
  /** The stack id; default `io.buildpacks.stacks.jammy`. */
  readonly stackId?: string;
  readonly clusterBuilder?: string;
  readonly clusterStack?: string;
  readonly clusterStore?: string;
  /** The builder image's tag (never pushed by the stand-in). */
  readonly tag?: string;
  /** Where the ClusterBuilder's `kpack-service-account` lives (Korifi's root namespace). */
  readonly serviceAccountNamespace?: string;
}

/** Where the stand-in's store sources point: a reserved, never-resolved host. */
export const STAND_IN_BUILDPACK_HOST = 'buildpacks.sandbox.invalid';

/**
 * Creates the ClusterStack `cf-default-stack`, ClusterStore `cf-default-buildpacks` and
 * ClusterBuilder `cf-kpack-cluster-builder` (names overridable), shaped as Korifi's Helm chart
 * makes them, each buildpack as its own order group; one that exists already is left as it is.
 * nudger itself never creates them (D13).
 */
export async function installDefaultClusterBuilder(
  client: ObjectClient,
  options: DefaultBuilderOptions,
): Promise<void> {
  const stackName = options.clusterStack ?? 'cf-default-stack';
  const storeName = options.clusterStore ?? 'cf-default-buildpacks';
  const builderName = options.clusterBuilder ?? DEFAULT_CLUSTER_BUILDER;
  const create = async (ref: ResourceRef, name: string, spec: Record<string, unknown>): Promise<void> => {
    const object: KpackObject = { apiVersion: KPACK_API_VERSION, kind: ref.kind, metadata: { name }, spec };
    await client.create(ref, object).catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
    });
  };
  await create(KPACK_CLUSTER_STACKS, stackName, {
    id: options.stackId ?? 'io.buildpacks.stacks.jammy',
    buildImage: { image: 'paketobuildpacks/build-jammy-full' },
    runImage: { image: 'paketobuildpacks/run-jammy-full' },
  });
  await create(KPACK_CLUSTER_STORES, storeName, {
    sources: options.buildpacks.map((id) => ({ image: `${STAND_IN_BUILDPACK_HOST}/${id}:1.0.0` })),
  });
  await create(KPACK_CLUSTER_BUILDERS, builderName, {
    serviceAccountRef: { name: KPACK_SERVICE_ACCOUNT, namespace: options.serviceAccountNamespace ?? 'cf' },
    tag: options.tag ?? `${STAND_IN_BUILDPACK_HOST}/builders/${builderName}`,
    stack: { name: stackName, kind: 'ClusterStack' },
    store: { name: storeName, kind: 'ClusterStore' },
    order: options.buildpacks.map((id) => ({ group: [{ id }] })),
  });
}
