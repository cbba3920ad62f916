// The part of kpack's kinds (`kpack.io/v1alpha2`) that nudger's Korifi controllers and the
// sandbox's kpack stand-in read and write (docs/decisions.md D13, N39): Image, Build, Builder and
// ClusterBuilder, with upstream's exact field names (kpack's Go types and OpenAPI definitions).
// kpack's CRDs carry no schema at all (vendored in sandbox/crds/kpack/: every field is preserved
// and kpack's admission webhook validates), so the API server applies no rule here: every field is
// optional, and only the types of the fields nudger reads are checked. Every object is open.
import Type, { type Static } from 'typebox';
import { ClusterKind } from './common.ts';

export const KPACK_GROUP = 'kpack.io';
export const KPACK_VERSION = 'v1alpha2';
export const KPACK_API_VERSION = `${KPACK_GROUP}/${KPACK_VERSION}`;

export const KPACK_IMAGE_KIND = 'Image';
export const KPACK_BUILD_KIND = 'Build';
export const KPACK_BUILDER_KIND = 'Builder';
export const KPACK_CLUSTER_BUILDER_KIND = 'ClusterBuilder';
export const KPACK_CLUSTER_STACK_KIND = 'ClusterStack';
export const KPACK_CLUSTER_STORE_KIND = 'ClusterStore';

const open = { additionalProperties: true } as const;
const str = Type.Optional(Type.String());
const int = Type.Optional(Type.Integer());

/** `corev1.ObjectReference` as kpack uses it: an Image's builder, a Builder's stack and store. */
export const KpackObjectReference = Type.Object({ kind: str, name: str, namespace: str, apiVersion: str }, open);
export type KpackObjectReference = Static<typeof KpackObjectReference>;

const LocalObjectReference = Type.Object({ name: str }, open);

/**
 * kpack's `corev1alpha1.Condition` (knative style): types `Ready` (Image, Builder),
 * `Succeeded` (Build), `BuilderReady`, `UpToDate`; `severity` is `""`, `Warning` or `Info`.
 */
export const KpackCondition = Type.Object(
  {
    type: Type.String(),
    status: Type.String(),
    severity: str,
    lastTransitionTime: str,
    reason: str,
    message: str,
  },
  open,
);
export type KpackCondition = Static<typeof KpackCondition>;

/** kpack's `corev1alpha1.Status`, embedded in every status. */
const kpackStatus = { observedGeneration: int, conditions: Type.Optional(Type.Array(KpackCondition)) };

/** Where an Image's or a Build's source comes from: one of git, blob or registry. */
export const KpackSourceConfig = Type.Object(
  {
    git: Type.Optional(
      Type.Object({ url: str, revision: str, initializeSubmodules: Type.Optional(Type.Boolean()) }, open),
    ),
    blob: Type.Optional(Type.Object({ url: str }, open)),
    registry: Type.Optional(
      Type.Object({ image: str, imagePullSecrets: Type.Optional(Type.Array(LocalObjectReference)) }, open),
    ),
    subPath: str,
  },
  open,
);
export type KpackSourceConfig = Static<typeof KpackSourceConfig>;

/** `{id, version, homepage}` of a buildpack a Build used or a Builder holds. */
export const BuildpackMetadata = Type.Object({ id: str, version: str, homepage: str }, open);
export type BuildpackMetadata = Static<typeof BuildpackMetadata>;

/** `{id, runImage}`: the stack a Build ran on or a Builder offers. */
export const BuildStack = Type.Object({ id: str, runImage: str }, open);
export type BuildStack = Static<typeof BuildStack>;

// --- Image -----------------------------------------------------------------------------------

export const KpackImageSpec = Type.Object(
  {
    /** Where the built image is pushed; immutable. */
    tag: str,
    additionalTags: Type.Optional(Type.Array(Type.String())),
    builder: Type.Optional(KpackObjectReference),
    serviceAccountName: str,
    source: Type.Optional(KpackSourceConfig),
    cache: Type.Optional(Type.Object({}, open)),
    build: Type.Optional(Type.Object({ env: Type.Optional(Type.Array(Type.Object({}, open))) }, open)),
    imageTaggingStrategy: str,
    failedBuildHistoryLimit: int,
    successBuildHistoryLimit: int,
  },
  open,
);
export type KpackImageSpec = Static<typeof KpackImageSpec>;

export const KpackImageStatus = Type.Object(
  {
    ...kpackStatus,
    latestBuildRef: str,
    latestBuildImageGeneration: int,
    /** The image of the last successful Build; unchanged while a new Build runs. */
    latestImage: str,
    latestStack: str,
    buildCounter: int,
    buildCacheName: str,
    /** The last Build's reasons, comma-joined (e.g. `BUILDPACK,STACK`), set when it is scheduled. */
    latestBuildReason: str,
  },
  open,
);
export type KpackImageStatus = Static<typeof KpackImageStatus>;

export const KpackImage = ClusterKind(KpackImageSpec, KpackImageStatus);
export type KpackImage = Static<typeof KpackImage>;

// --- Build -----------------------------------------------------------------------------------

export const KpackBuildSpec = Type.Object(
  {
    tags: Type.Optional(Type.Array(Type.String())),
    builder: Type.Optional(
      Type.Object(
        {
          image: str,
          imagePullSecrets: Type.Optional(Type.Array(LocalObjectReference)),
          ref: Type.Optional(KpackObjectReference),
        },
        open,
      ),
    ),
    serviceAccountName: str,
    source: Type.Optional(KpackSourceConfig),
    runImage: Type.Optional(Type.Object({ image: str }, open)),
    lastBuild: Type.Optional(
      Type.Object({ image: str, stackId: str, cache: Type.Optional(Type.Object({ image: str }, open)) }, open),
    ),
  },
  open,
);
export type KpackBuildSpec = Static<typeof KpackBuildSpec>;

export const KpackBuildStatus = Type.Object(
  {
    ...kpackStatus,
    buildMetadata: Type.Optional(Type.Array(BuildpackMetadata)),
    stack: Type.Optional(BuildStack),
    lifecycleVersion: str,
    latestImage: str,
    latestCacheImage: str,
    podName: str,
    stepsCompleted: Type.Optional(Type.Array(Type.String())),
  },
  open,
);
export type KpackBuildStatus = Static<typeof KpackBuildStatus>;

export const KpackBuild = ClusterKind(KpackBuildSpec, KpackBuildStatus);
export type KpackBuild = Static<typeof KpackBuild>;

// --- Builder and ClusterBuilder --------------------------------------------------------------

/** One buildpack of a builder's order group, by `id` (and optionally version) in its store. */
export const BuilderBuildpackRef = Type.Object(
  { id: str, version: str, optional: Type.Optional(Type.Boolean()), kind: str, name: str, image: str },
  open,
);
export type BuilderBuildpackRef = Static<typeof BuilderBuildpackRef>;

export const BuilderOrderEntry = Type.Object({ group: Type.Optional(Type.Array(BuilderBuildpackRef)) }, open);
export type BuilderOrderEntry = Static<typeof BuilderOrderEntry>;

const builderSpecFields = {
  tag: str,
  stack: Type.Optional(KpackObjectReference),
  store: Type.Optional(KpackObjectReference),
  lifecycle: Type.Optional(KpackObjectReference),
  order: Type.Optional(Type.Array(BuilderOrderEntry)),
  additionalLabels: Type.Optional(Type.Record(Type.String(), Type.String())),
};

/** A namespaced Builder's spec: the shared fields plus the service account it pushes with. */
export const KpackBuilderSpec = Type.Object(
  { ...builderSpecFields, serviceAccountName: str, serviceAccount: str },
  open,
);
export type KpackBuilderSpec = Static<typeof KpackBuilderSpec>;

export const KpackClusterBuilderSpec = Type.Object(
  { ...builderSpecFields, serviceAccountRef: Type.Optional(KpackObjectReference) },
  open,
);
export type KpackClusterBuilderSpec = Static<typeof KpackClusterBuilderSpec>;

/** The status of both Builder kinds. Ready means `Ready` True at `generation == observedGeneration`. */
export const KpackBuilderStatus = Type.Object(
  {
    ...kpackStatus,
    builderMetadata: Type.Optional(Type.Array(BuildpackMetadata)),
    order: Type.Optional(Type.Array(BuilderOrderEntry)),
    stack: Type.Optional(BuildStack),
    latestImage: str,
    observedStackGeneration: int,
    observedStoreGeneration: int,
    os: str,
  },
  open,
);
export type KpackBuilderStatus = Static<typeof KpackBuilderStatus>;

export const KpackBuilder = ClusterKind(KpackBuilderSpec, KpackBuilderStatus);
export type KpackBuilder = Static<typeof KpackBuilder>;

export const KpackClusterBuilder = ClusterKind(KpackClusterBuilderSpec, KpackBuilderStatus);
export type KpackClusterBuilder = Static<typeof KpackClusterBuilder>;
