// The BuildWorkload's next status and what the build reconciler must do for it (Korifi ADR 6,
// docs/decisions.md D13, N41), pure: from the workload, the chosen builder, its kpack Image and
// Builds, the droplet's image config and the time, the `Succeeded` condition with Korifi's reasons,
// a `BuilderReady` condition, the droplet, and intents. It is level-based: the same inputs give the
// same answer, intents are "make it so" requests carried out idempotently, and status records only
// what was observed, so a reconciler killed between an intent and its status write recomputes the
// same intent, finds it done and converges.
import { BUILD_WORKLOAD_REASONS, SUCCEEDED_CONDITION } from '../../schema/korifi.ts';
import { mergeCondition, type StoredCondition } from '../conditions.ts';
import {
  builderNeedsUpdate,
  KPACK_API_VERSION,
  type BuilderChoice,
  type DesiredBuilder,
  type KpackBuilderView,
  type KpackObjectReference,
} from './builder-choice.ts';
import {
  KORIFI_APP_GUID_LABEL,
  KORIFI_BUILD_WORKLOAD_NAME_LABEL,
  KORIFI_KPACK_IMAGE_GENERATION_LABEL,
  KPACK_ADDITIONAL_BUILD_NEEDED_ANNOTATION,
  KPACK_BUILD_NUMBER_LABEL,
  KPACK_IMAGE_GENERATION_LABEL,
  KPACK_IMAGE_LABEL,
  KPACK_SERVICE_ACCOUNT,
} from './labels.ts';

// Korifi's condition and reasons, from the one schema source (src/schema/korifi.ts).
export { BUILD_WORKLOAD_REASONS, SUCCEEDED_CONDITION };
/** nudger's report of the chosen builder's readiness (ADR 6: readiness tracked through conditions). */
export const BUILDER_READY_CONDITION = 'BuilderReady';

export const BUILDER_READY_REASONS = { ready: 'BuilderReady', notReady: 'BuilderNotReady' } as const;

interface ConditionView {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

interface ObjectMetaView {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface LocalObjectReference {
  readonly name: string;
}

export interface ProcessType {
  readonly type: string;
  readonly command: string;
}

export interface BuildDroplet {
  readonly registry: { readonly image: string; readonly imagePullSecrets?: readonly LocalObjectReference[] };
  readonly stack: string;
  readonly processTypes: readonly ProcessType[];
  readonly ports: readonly number[];
}

export interface BuildWorkloadStatusView {
  readonly conditions?: readonly StoredCondition[];
  readonly droplet?: BuildDroplet;
  readonly observedGeneration?: number;
}

/** A BuildWorkload as the reconciler reads it. */
export interface BuildWorkloadView {
  readonly metadata: ObjectMetaView & { readonly name: string; readonly namespace: string };
  readonly spec: {
    readonly buildRef: { readonly name: string };
    readonly builderName: string;
    readonly buildpacks?: readonly string[];
    readonly source?: {
      readonly registry?: { readonly image?: string; readonly imagePullSecrets?: readonly LocalObjectReference[] };
    };
    readonly env?: readonly unknown[];
    readonly services?: readonly unknown[];
  };
  readonly status?: BuildWorkloadStatusView;
}

/** A kpack Image as the reconciler reads it. */
export interface KpackImageView {
  readonly metadata?: ObjectMetaView & {
    readonly ownerReferences?: readonly {
      readonly apiVersion?: string;
      readonly uid?: string;
      readonly kind?: string;
      readonly name?: string;
    }[];
  };
  readonly spec?: { readonly tag?: string; readonly builder?: KpackObjectReference };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly conditions?: readonly ConditionView[];
  };
}

/** A kpack Build as the reconciler reads it. */
export interface KpackBuildView {
  readonly metadata?: ObjectMetaView;
  readonly status?: {
    readonly conditions?: readonly ConditionView[];
    readonly latestImage?: string;
    readonly stack?: { readonly id?: string; readonly runImage?: string };
  };
}

/** What the droplet's image config says, read from the registry for `image`. */
export interface DropletImageConfig {
  readonly image: string;
  readonly processTypes: readonly ProcessType[];
  readonly ports: readonly number[];
  /** The space's kpack service account's image pull secrets, found while reading (Korifi's droplet has them). */
  readonly imagePullSecrets?: readonly LocalObjectReference[];
}

export interface BuildWorkloadInput {
  readonly workload: BuildWorkloadView;
  readonly now: Date;
  /** `--builder-readiness-timeout`, counted from the BuildWorkload's creation. */
  readonly readinessTimeoutMs: number;
  readonly appGuid: string;
  readonly choice: BuilderChoice;
  /** The chosen builder as it is now: the ClusterBuilder, or the namespaced Builder if it exists. */
  readonly builder: KpackBuilderView | undefined;
  /** The app's kpack Image (named by the app's GUID), undefined when it does not exist. */
  readonly image: KpackImageView | undefined;
  /** The kpack Builds of that Image (others are ignored). */
  readonly builds: readonly KpackBuildView[];
  /** Prefix of the Image's tag (`--korifi-image-repository`). */
  readonly repositoryPrefix: string;
  /** The image config read for the succeeded Build's image, when the reconciler has read it. */
  readonly dropletConfig?: DropletImageConfig;
  /** The image pull secrets of the space's kpack service account, for the droplet. */
  readonly imagePullSecrets?: readonly LocalObjectReference[];
}

/** The kpack Image nudger wants for the app, exactly as it writes the fields it owns. */
export interface DesiredImage {
  readonly apiVersion: typeof KPACK_API_VERSION;
  readonly kind: 'Image';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly ownerReferences: readonly {
      readonly apiVersion: string;
      readonly kind: string;
      readonly name: string;
      readonly uid: string;
    }[];
  };
  readonly spec: {
    readonly tag: string;
    readonly builder: KpackObjectReference;
    readonly serviceAccountName: string;
    readonly source: {
      readonly registry: { readonly image: string; readonly imagePullSecrets: readonly LocalObjectReference[] };
    };
    readonly build: { readonly env: readonly unknown[]; readonly services: readonly unknown[] };
  };
}

export type BuildWorkloadIntent =
  /** Create the Builder, or bring the labelled one found to `desired` (labels merged, spec replaced). */
  | { readonly kind: 'ensureBuilder'; readonly desired: DesiredBuilder; readonly exists: boolean }
  /**
   * Create the Image or bring the fields nudger owns to `desired`, then label the BuildWorkload
   * with the Image's resulting `metadata.generation`: the kpack Builds of that generation are this
   * workload's.
   */
  | { readonly kind: 'ensureImage'; readonly desired: DesiredImage }
  /** kpack settled on this workload's Image generation without a Build (kpack#1198): ask for one. */
  | { readonly kind: 'requestAdditionalBuild'; readonly build: string }
  /** Read the succeeded Build's image config (process types, ports), then decide again. */
  | { readonly kind: 'readImageConfig'; readonly image: string };

/** What a decision sets in the status: these conditions (by type) and the droplet, nothing else. */
export interface StatusChange {
  readonly conditions: readonly Omit<StoredCondition, 'lastTransitionTime' | 'observedGeneration'>[];
  readonly droplet?: BuildDroplet;
}

export interface BuildWorkloadDecision {
  /** The status to write, undefined when nothing changes. */
  readonly status: BuildWorkloadStatusView | undefined;
  /**
   * The same as a change, for a writer that applies it to the status as stored (applyStatusChange):
   * a cache behind the API server must not bring back a condition a later reconcile replaced.
   */
  readonly change?: StatusChange;
  readonly intents: readonly BuildWorkloadIntent[];
  /** Decide again after this long even if nothing changes (the readiness deadline). */
  readonly requeueAfterMs?: number;
}

const BUILD_WORKLOAD_API_VERSION = 'korifi.cloudfoundry.org/v1alpha1';

function condition(conditions: readonly ConditionView[] | undefined, type: string): ConditionView | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Succeeded True or False: Korifi's reconciler leaves a finished BuildWorkload alone, and so does nudger. */
export function isFinished(workload: BuildWorkloadView): boolean {
  const succeeded = condition(workload.status?.conditions, SUCCEEDED_CONDITION);
  return succeeded !== undefined && succeeded.status !== 'Unknown';
}

export function describeReference(ref: KpackObjectReference): string {
  return ref.namespace === undefined ? `${ref.kind} ${ref.name}` : `${ref.kind} ${ref.namespace}/${ref.name}`;
}

/**
 * Why a kpack builder is not ready, or undefined when it is: kpack's own rule, the `Ready`
 * condition True and `status.observedGeneration` caught up with `metadata.generation`, so that a
 * Builder nudger just changed is not taken for ready on its previous spec.
 */
export function builderNotReadyReason(builder: KpackBuilderView | undefined): string | undefined {
  if (builder === undefined) return 'not found';
  const ready = condition(builder.status?.conditions, 'Ready');
  if (ready === undefined) return 'no Ready condition yet';
  if (ready.status !== 'True') {
    const detail = [ready.reason, ready.message].filter((part) => part !== undefined && part !== '').join(': ');
    return `Ready is ${ready.status}${detail === '' ? '' : ` (${detail})`}`;
  }
  const generation = builder.metadata?.generation;
  const observed = builder.status?.observedGeneration;
  if (generation !== undefined && observed !== generation) {
    return `status.observedGeneration ${observed ?? 'unset'} is behind metadata.generation ${generation}`;
  }
  return undefined;
}

/** `30s`, `5m`, `5m30s`, `1h`: how the readiness timeout appears in messages. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts = [h > 0 ? `${h}h` : '', m > 0 ? `${m}m` : '', s > 0 || seconds === 0 ? `${s}s` : ''];
  return parts.join('');
}

/** The app's Image: one per app, named by its GUID, as Korifi names it. */
export function desiredImage(input: BuildWorkloadInput, builder: KpackObjectReference): DesiredImage {
  const { workload } = input;
  const owners = (input.image?.metadata?.ownerReferences ?? []).filter(
    (ref) => ref.uid !== undefined && ref.uid !== workload.metadata.uid,
  );
  const registry = workload.spec.source?.registry;
  return {
    apiVersion: KPACK_API_VERSION,
    kind: 'Image',
    metadata: {
      name: input.appGuid,
      namespace: workload.metadata.namespace,
      labels: {
        [KORIFI_BUILD_WORKLOAD_NAME_LABEL]: workload.metadata.name,
        [KORIFI_APP_GUID_LABEL]: input.appGuid,
      },
      // Every BuildWorkload of the app owns the Image (not as controller), as in Korifi: the
      // Image goes when the app's last build does, and each owner finds it through its references.
      ownerReferences: [
        ...owners.map((ref) => ({
          apiVersion: ref.apiVersion ?? BUILD_WORKLOAD_API_VERSION,
          kind: ref.kind ?? 'BuildWorkload',
          name: ref.name ?? '',
          uid: ref.uid ?? '',
        })),
        ...(workload.metadata.uid === undefined
          ? []
          : [
              {
                apiVersion: BUILD_WORKLOAD_API_VERSION,
                kind: 'BuildWorkload',
                name: workload.metadata.name,
                uid: workload.metadata.uid,
              },
            ]),
      ],
    },
    spec: {
      // kpack's tag is immutable: an existing Image keeps its own.
      tag: input.image?.spec?.tag ?? `${input.repositoryPrefix}${input.appGuid}-droplets`,
      builder,
      serviceAccountName: KPACK_SERVICE_ACCOUNT,
      source: { registry: { image: registry?.image ?? '', imagePullSecrets: registry?.imagePullSecrets ?? [] } },
      build: { env: workload.spec.env ?? [], services: workload.spec.services ?? [] },
    },
  };
}

function buildNumber(build: KpackBuildView): number {
  const value = Number(build.metadata?.labels?.[KPACK_BUILD_NUMBER_LABEL]);
  return Number.isFinite(value) ? value : -1;
}

/** The highest-numbered Build of the Image, of the given generation if one is given. */
export function latestBuild(
  builds: readonly KpackBuildView[],
  imageName: string,
  generation?: string,
): KpackBuildView | undefined {
  let latest: KpackBuildView | undefined;
  for (const build of builds) {
    const labels = build.metadata?.labels ?? {};
    if (labels[KPACK_IMAGE_LABEL] !== imageName) continue;
    if (generation !== undefined && labels[KPACK_IMAGE_GENERATION_LABEL] !== generation) continue;
    if (latest === undefined || buildNumber(build) > buildNumber(latest)) latest = build;
  }
  return latest;
}

interface Outcome {
  readonly succeeded: {
    readonly status: 'True' | 'False' | 'Unknown';
    readonly reason: string;
    readonly message: string;
  };
  readonly builderReady?: { readonly status: 'True' | 'False'; readonly reason: string; readonly message: string };
  readonly droplet?: BuildDroplet;
  readonly intents?: readonly BuildWorkloadIntent[];
  readonly requeueAfterMs?: number;
}

const running = (message: string) => ({ status: 'Unknown' as const, reason: BUILD_WORKLOAD_REASONS.running, message });

/** Until the Image is labelled on the workload: the builder, its readiness and the deadline. */
function beforeImage(input: BuildWorkloadInput): Outcome {
  const { choice } = input;
  if (choice.kind === 'invalidBuildpacks') {
    return {
      succeeded: { status: 'False', reason: BUILD_WORKLOAD_REASONS.invalidBuildpacks, message: choice.message },
    };
  }
  const intents: BuildWorkloadIntent[] = [];
  let name: string;
  let why: string | undefined;
  let ref: KpackObjectReference | undefined;
  if (choice.kind === 'waitingForClusterBuilder') {
    name = `the ${choice.source} lifecycle's Builder`;
    why = choice.why;
  } else {
    ref = choice.ref;
    name = describeReference(choice.ref);
    if (choice.kind === 'builder') {
      const current = input.builder;
      if (current === undefined || builderNeedsUpdate(current, choice.desired)) {
        intents.push({ kind: 'ensureBuilder', desired: choice.desired, exists: current !== undefined });
      }
    }
    why = builderNotReadyReason(input.builder);
    // A Builder about to be created or changed is not ready on what it is now.
    if (why === undefined && intents.length > 0) why = 'its spec is being updated';
  }
  if (why !== undefined || ref === undefined) {
    why ??= 'no builder';
    const created = Date.parse(input.workload.metadata.creationTimestamp ?? '');
    const elapsed = Number.isFinite(created) ? input.now.getTime() - created : 0;
    const builderReady = {
      status: 'False' as const,
      reason: BUILDER_READY_REASONS.notReady,
      message: `${name}: ${why}`,
    };
    if (elapsed >= input.readinessTimeoutMs) {
      return {
        succeeded: {
          status: 'False',
          reason: BUILD_WORKLOAD_REASONS.builderNotReady,
          message: `${name} not ready within ${formatDuration(input.readinessTimeoutMs)}: ${why}`,
        },
        builderReady,
      };
    }
    return {
      succeeded: running(`waiting for ${name} to be ready: ${why}`),
      builderReady,
      intents,
      requeueAfterMs: input.readinessTimeoutMs - elapsed,
    };
  }
  return {
    succeeded: running(`kpack Image ${input.appGuid} requested with ${name}`),
    builderReady: { status: 'True', reason: BUILDER_READY_REASONS.ready, message: `${name} is ready` },
    intents: [{ kind: 'ensureImage', desired: desiredImage(input, ref) }],
  };
}

function afterImage(input: BuildWorkloadInput, generation: string): Outcome {
  const image = input.image;
  const imageName = input.appGuid;
  if (image === undefined) {
    // Deleted under us: start over, which makes it again and relabels the workload.
    return beforeImage(input);
  }
  const build = latestBuild(input.builds, imageName, generation);
  if (build === undefined) {
    const current = image.metadata?.generation;
    if (current !== undefined && String(current) !== generation) {
      return {
        succeeded: {
          status: 'False',
          reason: BUILD_WORKLOAD_REASONS.missedBuild,
          message: `a newer BuildWorkload changed kpack Image ${imageName} (generation ${current}) before kpack built generation ${generation}`,
        },
      };
    }
    const ready = condition(image.status?.conditions, 'Ready');
    const settled =
      image.status?.observedGeneration !== undefined &&
      String(image.status.observedGeneration) === generation &&
      ready !== undefined &&
      ready.status !== 'Unknown';
    const last = latestBuild(input.builds, imageName);
    // kpack made no Build for a spec change it does not count as one (kpack#1198; a changed
    // builder alone, say): the annotation on its last Build asks for one more.
    if (settled && last?.metadata?.name !== undefined) {
      const asked = last.metadata.annotations?.[KPACK_ADDITIONAL_BUILD_NEEDED_ANNOTATION] === 'true';
      return {
        succeeded: running(`waiting for kpack to build Image ${imageName} generation ${generation}`),
        ...(asked ? {} : { intents: [{ kind: 'requestAdditionalBuild' as const, build: last.metadata.name }] }),
      };
    }
    return { succeeded: running(`waiting for kpack to build Image ${imageName} generation ${generation}`) };
  }
  const buildName = build.metadata?.name ?? '';
  const succeeded = condition(build.status?.conditions, 'Succeeded');
  if (succeeded?.status === 'False') {
    const detail = [succeeded.reason, succeeded.message].filter((part) => part !== undefined && part !== '').join(': ');
    return {
      succeeded: {
        status: 'False',
        reason: BUILD_WORKLOAD_REASONS.failed,
        message: `kpack Build ${buildName} failed${detail === '' ? '' : `: ${detail}`}; check its build log`,
      },
    };
  }
  const latestImage = build.status?.latestImage;
  if (succeeded?.status !== 'True' || latestImage === undefined || latestImage === '') {
    return { succeeded: running(`kpack Build ${buildName} is running`) };
  }
  const config = input.dropletConfig;
  if (config?.image !== latestImage) {
    return {
      succeeded: running(`kpack Build ${buildName} succeeded; reading image ${latestImage}`),
      intents: [{ kind: 'readImageConfig', image: latestImage }],
    };
  }
  return {
    succeeded: {
      status: 'True',
      reason: BUILD_WORKLOAD_REASONS.succeeded,
      message: `kpack Build ${buildName} built ${latestImage}`,
    },
    droplet: {
      registry: {
        image: latestImage,
        ...pullSecrets(config.imagePullSecrets ?? input.imagePullSecrets),
      },
      stack: build.status?.stack?.id ?? '',
      processTypes: config.processTypes,
      ports: config.ports,
    },
  };
}

function pullSecrets(secrets: readonly LocalObjectReference[] | undefined): {
  imagePullSecrets?: readonly LocalObjectReference[];
} {
  return secrets === undefined || secrets.length === 0 ? {} : { imagePullSecrets: secrets };
}

/** The workload's Image generation label, when the reconciler has written the Image for it. */
export function imageGenerationOf(workload: BuildWorkloadView): string | undefined {
  return workload.metadata.labels?.[KORIFI_KPACK_IMAGE_GENERATION_LABEL];
}

export function decideBuildWorkload(input: BuildWorkloadInput): BuildWorkloadDecision {
  const { workload } = input;
  if (isFinished(workload)) return { status: undefined, intents: [] };
  const generation = imageGenerationOf(workload);
  const outcome = generation === undefined ? beforeImage(input) : afterImage(input, generation);
  const change: StatusChange = {
    conditions: [
      { type: SUCCEEDED_CONDITION, ...outcome.succeeded },
      ...(outcome.builderReady === undefined ? [] : [{ type: BUILDER_READY_CONDITION, ...outcome.builderReady }]),
    ],
    ...(outcome.droplet === undefined ? {} : { droplet: outcome.droplet }),
  };
  return {
    status: applyStatusChange(workload.status, change, input.now, workload.metadata.generation),
    change,
    intents: outcome.intents ?? [],
    ...(outcome.requeueAfterMs === undefined ? {} : { requeueAfterMs: Math.max(0, outcome.requeueAfterMs) }),
  };
}

/**
 * `current` with the change's conditions merged in (Kubernetes semantics: a transition time moves
 * only with the status), its droplet and the observed generation; undefined when nothing changes.
 */
export function applyStatusChange(
  current: BuildWorkloadStatusView | undefined,
  change: StatusChange,
  now: Date,
  observedGeneration: number | undefined,
): BuildWorkloadStatusView | undefined {
  const previous = current ?? {};
  let conditions: readonly StoredCondition[] = previous.conditions ?? [];
  for (const next of change.conditions) {
    conditions = mergeCondition(conditions, next, now.toISOString(), observedGeneration);
  }
  const next: BuildWorkloadStatusView = {
    ...previous,
    conditions,
    ...(change.droplet === undefined ? {} : { droplet: change.droplet }),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
  };
  return sameStatus(previous, next) ? undefined : next;
}

/** Equal up to key order and the order of conditions (merging moves a condition to the end). */
function sameStatus(a: BuildWorkloadStatusView, b: BuildWorkloadStatusView): boolean {
  const byType = (s: BuildWorkloadStatusView) => ({
    ...s,
    conditions: [...(s.conditions ?? [])].sort((x, y) => (x.type < y.type ? -1 : x.type > y.type ? 1 : 0)),
  });
  return canonical(byType(a)) === canonical(byType(b));
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
        )
      : v,
  );
}
