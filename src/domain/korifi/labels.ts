// The label and annotation keys, label values and well-known names Korifi and kpack use to link
// their objects (docs/decisions.md D13, N39), one definition each for the build reconciler, the
// stack-update propagator and the sandbox's kpack stand-in. The keys are upstream's, spelled
// exactly: nudger must find the objects Korifi's own kpack-image-builder made, and kpack must find
// ours. Pure constants.

/** The Korifi API group's label prefix. */
const KORIFI = 'korifi.cloudfoundry.org';

/** The CFApp's GUID (its name): on CFBuild, CFPackage, CFProcess and BuildWorkload (Korifi's label indexer). */
export const KORIFI_APP_GUID_LABEL = `${KORIFI}/app-guid`;
/** The CFBuild's GUID (its name), on the BuildWorkload made for it. */
export const KORIFI_BUILD_GUID_LABEL = `${KORIFI}/build-guid`;
/** A CFBuild's own name, which is its droplet's GUID (there is no CFDroplet kind). */
export const KORIFI_DROPLET_GUID_LABEL = `${KORIFI}/droplet-guid`;
/** The CFPackage a CFBuild builds. */
export const KORIFI_PACKAGE_GUID_LABEL = `${KORIFI}/package-guid`;
/** A CFBuild's `status.state`, mirrored as a label. */
export const KORIFI_BUILD_STATE_LABEL = `${KORIFI}/build-state`;
/** The CF space, which is the namespace. */
export const KORIFI_SPACE_GUID_LABEL = `${KORIFI}/space-guid`;
/** A CFPackage's upload state: `AWAITING_UPLOAD` or `READY`. */
export const KORIFI_PACKAGE_STATE_LABEL = `${KORIFI}/package-state`;
/** The kpack Image's `metadata.generation` a BuildWorkload was built against. */
export const KORIFI_KPACK_IMAGE_GENERATION_LABEL = `${KORIFI}/kpack-image-generation`;
/** On a kpack Image (kpack copies it onto each Build): the BuildWorkload that last asked for it. */
export const KORIFI_BUILD_WORKLOAD_NAME_LABEL = `${KORIFI}/build-workload-name`;

/**
 * nudger's own label on the kpack Builders it makes for a build lifecycle: the ADR labels such a
 * Builder with the app and the build, and Korifi defines no key for the build's GUID on a Builder,
 * so the BuildWorkload's `build-guid` key is reused (docs/decisions.md N39).
 */
export const BUILDER_BUILD_GUID_LABEL = KORIFI_BUILD_GUID_LABEL;
/** ... and with the app (the ADR's `korifi.cloudfoundry.org/app-guid`), also on app-lifecycle Builders. */
export const BUILDER_APP_GUID_LABEL = KORIFI_APP_GUID_LABEL;

/** kpack's label prefix on Builds. */
const KPACK_IMAGE = 'image.kpack.io';

/** On a kpack Build: the Image it was made for (the Image's name). */
export const KPACK_IMAGE_LABEL = `${KPACK_IMAGE}/image`;
/** On a kpack Build: the Image's `metadata.generation` when the Build was made. */
export const KPACK_IMAGE_GENERATION_LABEL = `${KPACK_IMAGE}/imageGeneration`;
/** On a kpack Build: its number, 1, 2, ... per Image (the highest is the latest). */
export const KPACK_BUILD_NUMBER_LABEL = `${KPACK_IMAGE}/buildNumber`;
/** Annotation on a kpack Build: why it was made, a comma-joined list of KPACK_BUILD_REASONS. */
export const KPACK_REASON_ANNOTATION = `${KPACK_IMAGE}/reason`;
/** Annotation on a kpack Build: the changes behind the reasons, JSON `[{reason, old, new}]`. */
export const KPACK_BUILD_CHANGES_ANNOTATION = `${KPACK_IMAGE}/buildChanges`;
/** Annotation on a kpack Build: the builder's name and kind it ran with. */
export const KPACK_BUILDER_NAME_ANNOTATION = `${KPACK_IMAGE}/builderName`;
export const KPACK_BUILDER_KIND_ANNOTATION = `${KPACK_IMAGE}/builderKind`;
/** Annotation on the last kpack Build asking kpack for one more (a `TRIGGER` build). */
export const KPACK_ADDITIONAL_BUILD_NEEDED_ANNOTATION = `${KPACK_IMAGE}/additionalBuildNeeded`;

/** Why kpack made a Build, in the order kpack evaluates them and joins them with ",". */
export const KPACK_BUILD_REASONS = ['TRIGGER', 'COMMIT', 'CONFIG', 'BUILDPACK', 'STACK', 'LIFECYCLE'] as const;
export type KpackBuildReason = (typeof KPACK_BUILD_REASONS)[number];

/** The reasons in `Image.status.latestBuildReason` or a Build's reason annotation, as written. */
export function splitBuildReasons(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((reason) => reason.trim())
    .filter((reason) => reason !== '');
}

/** The OCI config label in which a buildpacks build records its processes (and buildpacks). */
export const BUILDPACKS_BUILD_METADATA_LABEL = 'io.buildpacks.build.metadata';

/** The service account Korifi runs kpack Images and Builders as, in every space. */
export const KPACK_SERVICE_ACCOUNT = 'kpack-service-account';

/** The default ClusterBuilder Korifi's Helm chart creates; nudger reads it and never creates it. */
export const DEFAULT_CLUSTER_BUILDER = 'cf-kpack-cluster-builder';
/** The `BuildWorkload.spec.builderName` nudger's build reconciler takes by default. */
export const DEFAULT_NUDGER_BUILDER_NAME = 'nudger-kpack';
/** The `spec.builderName` Korifi's own kpack-image-builder takes. */
export const KORIFI_KPACK_IMAGE_BUILDER_NAME = 'kpack-image-builder';
