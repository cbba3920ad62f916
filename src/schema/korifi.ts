// The part of Korifi's kinds (`korifi.cloudfoundry.org/v1alpha1`, all namespaced: the namespace is
// the CF space) that nudger's Korifi controllers read and write (docs/decisions.md D13, N39):
// BuildWorkload, CFApp, CFBuild, CFPackage and CFProcess. Korifi owns the full schemas (vendored in
// sandbox/crds/korifi/); these use upstream's exact field names and require what upstream's CRDs
// require (the API server enforces those, so no served object is refused for them), and type only
// the fields nudger reads or writes. Every object is open: other fields pass through.
// There is no CFDroplet kind: a droplet is a CFBuild whose `status.state` is `STAGED`, and the
// droplet's GUID is that CFBuild's name.
import Type, { type Static } from 'typebox';
import { ClusterKind, Condition, StringEnum } from './common.ts';

export const KORIFI_GROUP = 'korifi.cloudfoundry.org';
export const KORIFI_VERSION = 'v1alpha1';
export const KORIFI_API_VERSION = `${KORIFI_GROUP}/${KORIFI_VERSION}`;

export const BUILD_WORKLOAD_KIND = 'BuildWorkload';
export const CF_APP_KIND = 'CFApp';
export const CF_BUILD_KIND = 'CFBuild';
export const CF_PACKAGE_KIND = 'CFPackage';
export const CF_PROCESS_KIND = 'CFProcess';

const open = { additionalProperties: true } as const;

/** `corev1.LocalObjectReference`: Korifi's `appRef`, `packageRef`, `currentDropletRef`, pull secrets. */
export const LocalObjectReference = Type.Object({ name: Type.Optional(Type.String()) }, open);
export type LocalObjectReference = Static<typeof LocalObjectReference>;

/** Korifi's `RequiredLocalObjectReference` (`BuildWorkload.spec.buildRef`). */
const RequiredLocalObjectReference = Type.Object({ name: Type.String() }, open);

/** An OCI image and the Secrets to pull it: a package's source, a droplet's image. */
export const KorifiRegistry = Type.Object(
  { image: Type.String(), imagePullSecrets: Type.Optional(Type.Array(LocalObjectReference)) },
  open,
);
export type KorifiRegistry = Static<typeof KorifiRegistry>;

export const PackageSource = Type.Object({ registry: KorifiRegistry }, open);
export type PackageSource = Static<typeof PackageSource>;

export const LIFECYCLE_TYPES = ['buildpack', 'docker'] as const;
export type LifecycleType = (typeof LIFECYCLE_TYPES)[number];

/**
 * An app's or a build's lifecycle. `data.buildpacks` empty or absent: every buildpack of the
 * default builder is tried (auto-detection). `data.stack` is required by the CRD.
 */
export const Lifecycle = Type.Object(
  {
    type: StringEnum(LIFECYCLE_TYPES),
    data: Type.Object({ buildpacks: Type.Optional(Type.Array(Type.String())), stack: Type.String() }, open),
  },
  open,
);
export type Lifecycle = Static<typeof Lifecycle>;

/** One process type of a droplet, from the image's `io.buildpacks.build.metadata` label. */
export const ProcessType = Type.Object({ type: Type.String(), command: Type.String() }, open);
export type ProcessType = Static<typeof ProcessType>;

/** `BuildDropletStatus`: the droplet a BuildWorkload produced, copied onto its CFBuild. */
export const BuildDropletStatus = Type.Object(
  {
    registry: KorifiRegistry,
    stack: Type.Optional(Type.String()),
    processTypes: Type.Optional(Type.Array(ProcessType)),
    ports: Type.Optional(Type.Array(Type.Integer())),
  },
  open,
);
export type BuildDropletStatus = Static<typeof BuildDropletStatus>;

const Conditions = Type.Optional(Type.Array(Condition));
const ObservedGeneration = Type.Optional(Type.Integer());
/** The status of the kinds nudger reads no status field of but their conditions. */
const SimpleStatus = Type.Object({ conditions: Conditions, observedGeneration: ObservedGeneration }, open);

// --- BuildWorkload ---------------------------------------------------------------------------

export const BuildWorkloadSpec = Type.Object(
  {
    /** The CFBuild this workload builds. */
    buildRef: RequiredLocalObjectReference,
    /** Which build reconciler takes it: Korifi's `kpack-image-builder`, or nudger's (a flag). */
    builderName: Type.String(),
    source: Type.Optional(PackageSource),
    buildpacks: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Type.Array(Type.Object({ name: Type.String() }, open))),
    services: Type.Optional(Type.Array(Type.Object({}, open))),
  },
  open,
);
export type BuildWorkloadSpec = Static<typeof BuildWorkloadSpec>;

/** `Succeeded` reasons Korifi's kpack-image-builder writes, which nudger's reconciler writes too. */
export const BUILD_WORKLOAD_REASONS = {
  running: 'BuildRunning',
  succeeded: 'BuildSucceeded',
  failed: 'BuildFailed',
  builderNotReady: 'BuilderNotReady',
  invalidBuildpacks: 'InvalidBuildpacks',
  missedBuild: 'KpackMissedBuild',
} as const;
export const SUCCEEDED_CONDITION = 'Succeeded';

export const BuildWorkloadStatus = Type.Object(
  { conditions: Conditions, droplet: Type.Optional(BuildDropletStatus), observedGeneration: ObservedGeneration },
  open,
);
export type BuildWorkloadStatus = Static<typeof BuildWorkloadStatus>;

export const BuildWorkload = ClusterKind(BuildWorkloadSpec, BuildWorkloadStatus);
export type BuildWorkload = Static<typeof BuildWorkload>;

// --- CFApp -----------------------------------------------------------------------------------

export const DESIRED_STATES = ['STOPPED', 'STARTED'] as const;

export const CFAppSpec = Type.Object(
  {
    displayName: Type.String(),
    desiredState: StringEnum(DESIRED_STATES),
    lifecycle: Lifecycle,
    envSecretName: Type.Optional(Type.String()),
    /** The CFBuild whose droplet the app runs. */
    currentDropletRef: Type.Optional(LocalObjectReference),
  },
  open,
);
export type CFAppSpec = Static<typeof CFAppSpec>;

export const CFAppStatus = Type.Object(
  { conditions: Conditions, observedGeneration: ObservedGeneration, actualState: Type.Optional(Type.String()) },
  open,
);

export const CFApp = ClusterKind(CFAppSpec, CFAppStatus);
export type CFApp = Static<typeof CFApp>;

// --- CFBuild ---------------------------------------------------------------------------------

export const BUILD_STATES = ['STAGING', 'STAGED', 'FAILED'] as const;
export type BuildState = (typeof BUILD_STATES)[number];

export const CFBuildSpec = Type.Object(
  {
    packageRef: LocalObjectReference,
    appRef: LocalObjectReference,
    stagingMemoryMB: Type.Integer(),
    stagingDiskMB: Type.Integer(),
    lifecycle: Lifecycle,
  },
  open,
);
export type CFBuildSpec = Static<typeof CFBuildSpec>;

export const CFBuildStatus = Type.Object(
  {
    conditions: Conditions,
    droplet: Type.Optional(BuildDropletStatus),
    observedGeneration: ObservedGeneration,
    state: Type.Optional(StringEnum(BUILD_STATES)),
  },
  open,
);
export type CFBuildStatus = Static<typeof CFBuildStatus>;

export const CFBuild = ClusterKind(CFBuildSpec, CFBuildStatus);
export type CFBuild = Static<typeof CFBuild>;

// --- CFPackage -------------------------------------------------------------------------------

export const PACKAGE_TYPES = ['bits', 'docker'] as const;

export const CFPackageSpec = Type.Object(
  { type: StringEnum(PACKAGE_TYPES), appRef: LocalObjectReference, source: Type.Optional(PackageSource) },
  open,
);
export type CFPackageSpec = Static<typeof CFPackageSpec>;

export const CFPackage = ClusterKind(CFPackageSpec, SimpleStatus);
export type CFPackage = Static<typeof CFPackage>;

// --- CFProcess -------------------------------------------------------------------------------

export const CFProcessSpec = Type.Object(
  {
    appRef: LocalObjectReference,
    processType: Type.String(),
    command: Type.Optional(Type.String()),
    detectedCommand: Type.Optional(Type.String()),
    desiredInstances: Type.Optional(Type.Integer()),
  },
  open,
);
export type CFProcessSpec = Static<typeof CFProcessSpec>;

export const CFProcess = ClusterKind(CFProcessSpec, SimpleStatus);
export type CFProcess = Static<typeof CFProcess>;
