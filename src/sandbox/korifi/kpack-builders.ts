// kpack's ClusterStack, ClusterStore, Builder and ClusterBuilder reconcilers as the sandbox's kpack
// stand-in plays them (docs/decisions.md N43): each status is derived from the spec and the
// objects it references, with kpack's field names, and written only when it changed. Nothing is
// pulled or pushed for these: a stack's tag resolves to a digest derived from the tag (a
// digest-pinned reference stays as it is), a store's source image names its buildpack
// (`[host/]<id>:<version>`), and a builder's image digest is derived from its stack and order.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import type { KubeObject, ResourceRef } from '../../adapters/kubernetes/types.ts';
import { decodeKpackBuilder, decodeKpackClusterBuilder } from '../../domain/korifi/objects.ts';
import { STAND_IN_LIFECYCLE_VERSION, syntheticDigest } from './kpack-image.ts';
import type { BuildpackInfo } from './kpack-rebuild.ts';
import {
  KPACK_BUILDERS,
  KPACK_CLUSTER_BUILDERS,
  KPACK_CLUSTER_STACKS,
  KPACK_CLUSTER_STORES,
  canonical,
  conditionStatus,
  recordAt,
  recordsAt,
  repositoryOf,
  stringAt,
  withConditions,
  writeStatus,
  type ConditionUpdate,
  type KpackObject,
  type RejectedObject,
} from './kpack-objects.ts';

export type BuilderKind = 'Builder' | 'ClusterBuilder';

/** A ClusterStack the stand-in made Ready. */
export interface ResolvedStack {
  readonly id: string;
  /** `status.runImage.latestImage`: digest-pinned. */
  readonly runImage: string;
  readonly generation: number;
}

/** A buildpack of a ClusterStore. */
export interface StoreBuildpack extends BuildpackInfo {
  readonly homepage: string;
  /** The `spec.sources[].image` it came from. */
  readonly source: string;
}

export interface ResolvedStore {
  readonly buildpacks: readonly StoreBuildpack[];
  readonly generation: number;
}

/** A builder as an Image sees it: ready or not, and what it builds with. */
export interface ResolvedBuilder {
  readonly kind: BuilderKind;
  readonly namespace: string;
  readonly name: string;
  /** kpack's test: Ready True and `status.observedGeneration == metadata.generation`. */
  readonly ready: boolean;
  readonly message: string;
  readonly latestImage: string;
  readonly stack: { readonly id: string; readonly runImage: string };
  /** `status.order`: each group's buildpacks, resolved to the store's versions. */
  readonly order: readonly (readonly StoreBuildpack[])[];
  /** `status.builderMetadata`. */
  readonly buildpacks: readonly StoreBuildpack[];
}

/** The builder key an Image's `spec.builder` names: `Kind/namespace/name` (no namespace for a ClusterBuilder). */
export function builderKey(kind: string, namespace: string, name: string): string {
  return kind === 'ClusterBuilder' ? `ClusterBuilder//${name}` : `${kind}/${namespace}/${name}`;
}

/** The version of a ClusterStore source without a tag. */
export const UNTAGGED_BUILDPACK_VERSION = '1.0.0';

/**
 * The buildpack a ClusterStore source names: `[host/]<id>[:<version>]`. Docker Hub's
 * `paketobuildpacks/<name>` (what Korifi's Helm chart lists) holds `paketo-buildpacks/<name>`.
 */
export function buildpackOfSource(image: string): BuildpackInfo {
  const [named = image] = image.split('@');
  const repository = repositoryOf(named);
  const tag = named.length > repository.length ? named.slice(repository.length + 1) : undefined;
  const parts = repository.split('/');
  const [first = ''] = parts;
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost')) parts.shift();
  if (parts[0] === 'paketobuildpacks' && parts.length === 2) parts[0] = 'paketo-buildpacks';
  return { id: parts.join('/'), version: tag ?? UNTAGGED_BUILDPACK_VERSION };
}

/** A reference resolved as kpack resolves a tag: a digest-pinned one as it is, else `repo@<digest>`. */
export function resolveImage(reference: string): string {
  return reference.includes('@') ? reference : `${repositoryOf(reference)}@${syntheticDigest(reference)}`;
}

const generationOf = (object: KubeObject): number => object.metadata?.generation ?? 0;

function readyConditions(object: KpackObject, ready: boolean, reason: string, message: string, now: string): unknown[] {
  return withConditions(
    object,
    [ready ? { type: 'Ready', status: 'True' } : { type: 'Ready', status: 'False', reason, message }],
    now,
  );
}

function stackStatus(stack: KpackObject, now: string): { status: Record<string, unknown>; resolved?: ResolvedStack } {
  const id = stringAt(stack.spec, 'id');
  const runImage = stringAt(recordAt(stack.spec, 'runImage'), 'image');
  const buildImage = stringAt(recordAt(stack.spec, 'buildImage'), 'image');
  const observedGeneration = generationOf(stack);
  if (id === undefined || runImage === undefined || buildImage === undefined) {
    const message = 'spec.id, spec.buildImage.image and spec.runImage.image are required';
    return {
      status: { observedGeneration, conditions: readyConditions(stack, false, 'ReconcileFailed', message, now) },
    };
  }
  const resolved = { id, runImage: resolveImage(runImage), generation: observedGeneration };
  return {
    status: {
      observedGeneration,
      conditions: readyConditions(stack, true, '', '', now),
      id,
      buildImage: { image: buildImage, latestImage: resolveImage(buildImage) },
      runImage: { image: runImage, latestImage: resolved.runImage },
      mixins: [],
      userId: 1000,
      groupId: 1000,
    },
    resolved,
  };
}

function storeStatus(store: KpackObject, now: string): { status: Record<string, unknown>; resolved: ResolvedStore } {
  const buildpacks = recordsAt(store.spec, 'sources').flatMap((source) => {
    const image = stringAt(source, 'image');
    if (image === undefined) return [];
    const { id, version } = buildpackOfSource(image);
    return [{ id, version, homepage: `https://${id}`, source: image }];
  });
  const observedGeneration = generationOf(store);
  return {
    status: {
      observedGeneration,
      conditions: readyConditions(store, true, '', '', now),
      buildpacks: buildpacks.map((buildpack) => ({
        id: buildpack.id,
        version: buildpack.version,
        homepage: buildpack.homepage,
        buildpackage: { id: buildpack.id, version: buildpack.version, homepage: buildpack.homepage },
        storeImage: { image: buildpack.source },
        digest: syntheticDigest(`buildpack ${buildpack.id}@${buildpack.version}`),
        diffId: syntheticDigest(`layer ${buildpack.id}@${buildpack.version}`),
        size: 1,
        api: '0.8',
        stacks: [{ id: '*' }],
      })),
    },
    resolved: { buildpacks, generation: observedGeneration },
  };
}

interface BuilderInputs {
  readonly stacks: ReadonlyMap<string, ResolvedStack>;
  readonly stores: ReadonlyMap<string, ResolvedStore>;
  readonly held: boolean;
}

/** The builder's stack, store and order resolved, or why not (kpack's reconcile error). */
function resolveBuilder(
  builder: KpackObject,
  inputs: BuilderInputs,
): { stack: ResolvedStack; store: ResolvedStore; order: StoreBuildpack[][] } | string {
  if (inputs.held) return 'held not ready by the sandbox (kpack stand-in)';
  const stackName = stringAt(recordAt(builder.spec, 'stack'), 'name');
  const storeName = stringAt(recordAt(builder.spec, 'store'), 'name');
  const stack = stackName === undefined ? undefined : inputs.stacks.get(stackName);
  if (stack === undefined)
    return `spec.stack: ClusterStack ${JSON.stringify(stackName ?? '')} is not ready or does not exist`;
  const store = storeName === undefined ? undefined : inputs.stores.get(storeName);
  if (store === undefined) return `spec.store: ClusterStore ${JSON.stringify(storeName ?? '')} does not exist`;
  const order: StoreBuildpack[][] = [];
  for (const [index, entry] of recordsAt(builder.spec, 'order').entries()) {
    const group: StoreBuildpack[] = [];
    for (const reference of recordsAt(entry, 'group')) {
      const id = stringAt(reference, 'id');
      const version = stringAt(reference, 'version');
      const found = store.buildpacks.find(
        (buildpack) => buildpack.id === id && (version === undefined || buildpack.version === version),
      );
      if (found === undefined) {
        return `spec.order[${String(index)}]: could not find buildpack with id ${JSON.stringify(id ?? '')}${version === undefined ? '' : ` and version ${JSON.stringify(version)}`} in ClusterStore ${JSON.stringify(storeName ?? '')}`;
      }
      group.push(found);
    }
    order.push(group);
  }
  if (order.length === 0) return 'spec.order: no buildpack groups';
  return { stack, store, order };
}

function builderStatus(
  builder: KpackObject,
  inputs: BuilderInputs,
  now: string,
): { status: Record<string, unknown>; resolved?: Omit<ResolvedBuilder, 'kind' | 'namespace' | 'name'> } {
  const observedGeneration = generationOf(builder);
  const resolved = resolveBuilder(builder, inputs);
  if (typeof resolved === 'string') {
    // kpack: a builder that fails to reconcile stays Ready while it has an image to build with.
    const previous = builder.status ?? {};
    const latestImage = stringAt(previous, 'latestImage');
    const ready: ConditionUpdate =
      latestImage === undefined
        ? { type: 'Ready', status: 'False', reason: 'NoLatestImage', message: 'Builder has no latestImage' }
        : { type: 'Ready', status: 'True' };
    const upToDate: ConditionUpdate = {
      type: 'UpToDate',
      status: 'False',
      reason: 'ReconcileFailed',
      message: resolved,
    };
    return { status: { ...previous, observedGeneration, conditions: withConditions(builder, [ready, upToDate], now) } };
  }
  const buildpacks = [
    ...new Map(resolved.order.flat().map((buildpack) => [`${buildpack.id}@${buildpack.version}`, buildpack])).values(),
  ];
  const stack = { runImage: resolved.stack.runImage, id: resolved.stack.id };
  const order = resolved.order.map((group) => ({
    group: group.map((buildpack) => ({ id: buildpack.id, version: buildpack.version })),
  }));
  const tag = stringAt(builder.spec, 'tag') ?? `kpack-builder/${builder.metadata?.name ?? ''}`;
  const latestImage = `${repositoryOf(tag)}@${syntheticDigest(canonical({ stack, order }))}`;
  return {
    status: {
      observedGeneration,
      conditions: withConditions(
        builder,
        [
          { type: 'Ready', status: 'True' },
          { type: 'UpToDate', status: 'True' },
        ],
        now,
      ),
      builderMetadata: buildpacks.map((buildpack) => ({
        id: buildpack.id,
        version: buildpack.version,
        homepage: buildpack.homepage,
      })),
      order,
      stack,
      lifecycle: { version: STAND_IN_LIFECYCLE_VERSION },
      latestImage,
      observedStackGeneration: resolved.stack.generation,
      observedStoreGeneration: resolved.store.generation,
      os: 'linux',
    },
    resolved: { ready: true, message: '', latestImage, stack, order: resolved.order, buildpacks },
  };
}

/** The stand-in's view of every builder after one round of reconciling. */
export interface BuilderRound {
  readonly builders: ReadonlyMap<string, ResolvedBuilder>;
  readonly stacks: ReadonlyMap<string, ResolvedStack>;
  readonly stores: ReadonlyMap<string, ResolvedStore>;
}

/**
 * Reconciles every ClusterStack, ClusterStore, ClusterBuilder and Builder (of `namespace`, or all)
 * once, in that order, so that one round carries a stack or store change through to the builders.
 * `isHeld` names builders kept from building (what a builder that cannot be built shows).
 */
export async function reconcileBuilders(
  client: ObjectClient,
  options: {
    namespace?: string;
    now: string;
    isHeld: (key: string, builder: KpackObject) => boolean;
    reject: (rejected: RejectedObject) => void;
  },
): Promise<BuilderRound> {
  const stacks = new Map<string, ResolvedStack>();
  for (const stack of (await client.list<KpackObject>(KPACK_CLUSTER_STACKS)).items) {
    const { status, resolved } = stackStatus(stack, options.now);
    await writeStatus(client, KPACK_CLUSTER_STACKS, stack, status);
    if (resolved !== undefined) stacks.set(stack.metadata?.name ?? '', resolved);
  }
  const stores = new Map<string, ResolvedStore>();
  for (const store of (await client.list<KpackObject>(KPACK_CLUSTER_STORES)).items) {
    const { status, resolved } = storeStatus(store, options.now);
    await writeStatus(client, KPACK_CLUSTER_STORES, store, status);
    stores.set(store.metadata?.name ?? '', resolved);
  }
  const builders = new Map<string, ResolvedBuilder>();
  const namespaced = options.namespace === undefined ? {} : { namespace: options.namespace };
  const lists: [BuilderKind, ResourceRef, readonly KpackObject[]][] = [
    ['ClusterBuilder', KPACK_CLUSTER_BUILDERS, (await client.list<KpackObject>(KPACK_CLUSTER_BUILDERS)).items],
    ['Builder', KPACK_BUILDERS, (await client.list<KpackObject>(KPACK_BUILDERS, namespaced)).items],
  ];
  for (const [kind, ref, items] of lists) {
    for (const builder of items) {
      const namespace = builder.metadata?.namespace ?? '';
      const name = builder.metadata?.name ?? '';
      const key = builderKey(kind, namespace, name);
      const decoded = (kind === 'Builder' ? decodeKpackBuilder : decodeKpackClusterBuilder)(builder);
      if (!decoded.ok) {
        const message = decoded.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');
        options.reject({ kind, object: namespace === '' ? name : `${namespace}/${name}`, message });
        continue;
      }
      const { status, resolved } = builderStatus(
        builder,
        { stacks, stores, held: options.isHeld(key, builder) },
        options.now,
      );
      const written = await writeStatus(client, ref, builder, status);
      builders.set(key, resolvedView(kind, written, resolved));
    }
  }
  return { builders, stacks, stores };
}

/** What an Image reads of a builder: kpack's readiness test on the object as written. */
function resolvedView(
  kind: BuilderKind,
  builder: KpackObject,
  resolved: Omit<ResolvedBuilder, 'kind' | 'namespace' | 'name'> | undefined,
): ResolvedBuilder {
  const namespace = builder.metadata?.namespace ?? '';
  const name = builder.metadata?.name ?? '';
  const ready =
    conditionStatus(builder, 'Ready') === 'True' &&
    builder.status?.observedGeneration === builder.metadata?.generation &&
    stringAt(builder.status, 'latestImage') !== undefined;
  const base = { kind, namespace, name, message: `${kind} ${name} is not ready` };
  if (resolved !== undefined) return { ...resolved, ...base, ready, message: ready ? '' : base.message };
  // Not resolved this round: an Image may still build with what the status holds (kpack does).
  const stack = recordAt(builder.status, 'stack');
  const buildpacks = recordsAt(builder.status, 'builderMetadata').map((entry) => ({
    id: stringAt(entry, 'id') ?? '',
    version: stringAt(entry, 'version') ?? '',
    homepage: stringAt(entry, 'homepage') ?? '',
    source: '',
  }));
  const order = recordsAt(builder.status, 'order').map((entry) =>
    recordsAt(entry, 'group').map((reference) => ({
      id: stringAt(reference, 'id') ?? '',
      version: stringAt(reference, 'version') ?? '',
      homepage: '',
      source: '',
    })),
  );
  return {
    ...base,
    ready: ready && order.length > 0,
    message: ready ? '' : base.message,
    latestImage: stringAt(builder.status, 'latestImage') ?? '',
    stack: { id: stringAt(stack, 'id') ?? '', runImage: stringAt(stack, 'runImage') ?? '' },
    order,
    buildpacks,
  };
}
