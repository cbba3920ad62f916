// The Korifi build reconciler (Korifi ADR 6, docs/decisions.md D13, N41): for each BuildWorkload
// whose spec.builderName is nudger's, it reads the CFBuild, the CFApp, the space's kpack Builders,
// the default ClusterBuilder, the app's kpack Image and its Builds from the informer caches, asks
// the pure decision (src/domain/korifi/) for the next status and intents, carries the intents out
// idempotently and writes the status, which records only what was observed. Nothing is remembered
// between reconciles but the BuildWorkload's Image generation label, written after the Image, so
// a restart at any point recomputes the same intents and finds them done. Builders are never deleted.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isAlreadyExists, isNotFound } from '../../adapters/kubernetes/errors.ts';
import {
  BUILD_WORKLOADS,
  KPACK_BUILDERS,
  KPACK_BUILDS,
  KPACK_IMAGES,
} from '../../adapters/kubernetes/korifi-resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import {
  chooseBuilder,
  type BuilderChoice,
  type DesiredBuilder,
  type KpackBuilderView,
} from '../../domain/korifi/builder-choice.ts';
import {
  SUCCEEDED_CONDITION,
  applyStatusChange,
  decideBuildWorkload,
  isFinished,
  type BuildWorkloadDecision,
  type BuildWorkloadIntent,
  type BuildWorkloadView,
  type DesiredImage,
  type DropletImageConfig,
  type KpackBuildView,
  type KpackImageView,
} from '../../domain/korifi/build-workload-status.ts';
import {
  KORIFI_APP_GUID_LABEL,
  KORIFI_BUILD_GUID_LABEL,
  KORIFI_KPACK_IMAGE_GENERATION_LABEL,
  KPACK_ADDITIONAL_BUILD_NEEDED_ANNOTATION,
  KPACK_IMAGE_LABEL,
} from '../../domain/korifi/labels.ts';
import { formatObjectKey } from '../../domain/object-key.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../../runtime/reconciler.ts';
import { retryOnConflict, updateStatus } from '../../runtime/status.ts';
import type { Store } from '../../runtime/store.ts';
import type { BuildWorkload, BuildWorkloadSpec, CFApp, CFBuild } from '../../schema/korifi.ts';
import type { KpackBuild, KpackBuilder, KpackClusterBuilder, KpackImage } from '../../schema/kpack.ts';

/** Reads a built image's config: process types and ports for the droplet. */
export type DropletReader = (image: string, namespace: string, signal: AbortSignal) => Promise<DropletImageConfig>;

export interface BuildReconcilerSettings {
  /** `BuildWorkload.spec.builderName` taken (`--korifi-builder-name`, default `nudger-kpack`). */
  readonly builderName: string;
  /** The default ClusterBuilder (`--korifi-cluster-builder`, default `cf-kpack-cluster-builder`). */
  readonly clusterBuilderName: string;
  /** Prefix of kpack tags (`--korifi-image-repository`). */
  readonly repositoryPrefix: string;
  /** `--builder-readiness-timeout`. */
  readonly readinessTimeoutMs: number;
}

export interface BuildWorkloadReconcilerOptions extends BuildReconcilerSettings {
  readonly client: ObjectClient;
  readonly buildWorkloads: Store<BuildWorkload>;
  readonly cfApps: Store<CFApp>;
  readonly cfBuilds: Store<CFBuild>;
  readonly images: Store<KpackImage>;
  readonly builds: Store<KpackBuild>;
  readonly builders: Store<KpackBuilder>;
  readonly clusterBuilders: Store<KpackClusterBuilder>;
  readonly droplets: DropletReader;
  readonly events?: Pick<EventRecorder, 'event'>;
  readonly clock?: () => Date;
}

const FIELD_MANAGER = 'nudger-korifi-build';
/** A decision that asks to read the image config is made again with it; never more than this. */
const MAX_PASSES = 3;

/** The app and build GUIDs of a workload: Korifi's labels, else its CFBuild's references. */
export function guidsOf(
  workload: BuildWorkload & { spec: BuildWorkloadSpec },
  cfBuild: CFBuild | undefined,
): { readonly appGuid: string | undefined; readonly buildGuid: string } {
  const labels = workload.metadata?.labels ?? {};
  return {
    appGuid: labels[KORIFI_APP_GUID_LABEL] ?? cfBuild?.spec?.appRef.name,
    buildGuid: labels[KORIFI_BUILD_GUID_LABEL] ?? workload.spec.buildRef.name,
  };
}

/** The workload as the pure decision reads it (the decoded object, with its key). */
function viewOf(workload: BuildWorkload & { spec: BuildWorkloadSpec }, key: ObjectKey): BuildWorkloadView {
  const m = workload.metadata;
  return {
    metadata: {
      ...key,
      ...(m?.uid === undefined ? {} : { uid: m.uid }),
      ...(m?.generation === undefined ? {} : { generation: m.generation }),
      ...(typeof m?.creationTimestamp === 'string' ? { creationTimestamp: m.creationTimestamp } : {}),
      ...(m?.labels === undefined ? {} : { labels: m.labels }),
    },
    spec: workload.spec as BuildWorkloadView['spec'],
    ...(workload.status === undefined ? {} : { status: workload.status as BuildWorkloadView['status'] }),
  };
}

function hasSpec<T extends { spec?: unknown }>(object: T | undefined): object is T & { spec: NonNullable<T['spec']> } {
  return object?.spec !== undefined;
}

export class BuildWorkloadReconciler implements Reconciler {
  readonly name = 'korifi-build';
  readonly #o: BuildWorkloadReconcilerOptions;

  constructor(options: BuildWorkloadReconcilerOptions) {
    this.#o = options;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const o = this.#o;
    const workload = o.buildWorkloads.get(key.namespace, key.name);
    if (!hasSpec(workload) || workload.spec.builderName !== o.builderName) return undefined;
    const view = viewOf(workload, key);
    if (isFinished(view)) return undefined;
    const cfBuild = o.cfBuilds.get(key.namespace, workload.spec.buildRef.name);
    const { appGuid, buildGuid } = guidsOf(workload, cfBuild);
    if (appGuid === undefined) {
      // Korifi labels every BuildWorkload with its app; without the label or the CFBuild there is
      // no Image to name. The CFBuild's arrival wakes this workload again.
      o.events?.event(
        workload,
        'Warning',
        'AppUnknown',
        `BuildWorkload ${formatObjectKey(key)}: no ${KORIFI_APP_GUID_LABEL} label and CFBuild ${workload.spec.buildRef.name} not found`,
      );
      return undefined;
    }
    const cfApp = o.cfApps.get(key.namespace, appGuid);
    const clusterBuilder = o.clusterBuilders.get('', o.clusterBuilderName);
    const choice = chooseBuilder({
      namespace: key.namespace,
      appGuid,
      buildGuid,
      buildLifecycle: cfBuild?.spec?.lifecycle,
      appLifecycle: cfApp?.spec?.lifecycle,
      workloadBuildpacks: workload.spec.buildpacks,
      builders: o.builders.list(key.namespace) as KpackBuilderView[],
      clusterBuilderName: o.clusterBuilderName,
      clusterBuilder: clusterBuilder as KpackBuilderView | undefined,
      repositoryPrefix: o.repositoryPrefix,
    });
    let dropletConfig: DropletImageConfig | undefined;
    let decision: BuildWorkloadDecision | undefined;
    for (let pass = 0; pass < MAX_PASSES; pass += 1) {
      decision = decideBuildWorkload({
        workload: view,
        now: o.clock?.() ?? new Date(),
        readinessTimeoutMs: o.readinessTimeoutMs,
        appGuid,
        choice,
        builder: this.#chosenBuilder(choice, key.namespace, clusterBuilder),
        image: o.images.get(key.namespace, appGuid) as KpackImageView | undefined,
        builds: o.builds
          .list(key.namespace)
          .filter((b) => b.metadata?.labels?.[KPACK_IMAGE_LABEL] === appGuid) as KpackBuildView[],
        repositoryPrefix: o.repositoryPrefix,
        ...(dropletConfig === undefined ? {} : { dropletConfig }),
      });
      const read = decision.intents.find((intent) => intent.kind === 'readImageConfig');
      if (read === undefined) break;
      dropletConfig = await o.droplets(read.image, key.namespace, signal);
    }
    if (decision === undefined) return undefined;
    for (const intent of decision.intents) await this.#carryOut(intent, workload, key, signal);
    if (decision.status !== undefined) {
      const finished = await this.#writeStatus(key, decision, workload.metadata?.generation, signal);
      // A failed build is told once, by the reconcile whose status write finished the workload.
      const succeeded = decision.change?.conditions.find((c) => c.type === SUCCEEDED_CONDITION);
      if (finished && succeeded?.status === 'False') {
        o.events?.event(workload, 'Warning', succeeded.reason, succeeded.message);
      }
    }
    return decision.requeueAfterMs === undefined ? undefined : { requeueAfterMs: decision.requeueAfterMs };
  }

  #chosenBuilder(
    choice: BuilderChoice,
    namespace: string,
    clusterBuilder: KpackClusterBuilder | undefined,
  ): KpackBuilderView | undefined {
    if (choice.kind === 'default') return clusterBuilder as KpackBuilderView | undefined;
    if (choice.kind !== 'builder') return undefined;
    return (
      choice.existing ?? (this.#o.builders.get(namespace, choice.desired.metadata.name) as KpackBuilderView | undefined)
    );
  }

  async #carryOut(
    intent: BuildWorkloadIntent,
    workload: BuildWorkload,
    key: ObjectKey,
    signal: AbortSignal,
  ): Promise<void> {
    switch (intent.kind) {
      case 'ensureBuilder':
        await this.#ensureBuilder(intent.desired, signal);
        return;
      case 'ensureImage':
        await this.#ensureImage(intent.desired, key, signal);
        return;
      case 'requestAdditionalBuild':
        await this.#o.client.patch(
          KPACK_BUILDS,
          key.namespace,
          intent.build,
          'merge',
          { metadata: { annotations: { [KPACK_ADDITIONAL_BUILD_NEEDED_ANNOTATION]: 'true' } } },
          { fieldManager: FIELD_MANAGER, signal },
        );
        this.#o.events?.event(
          workload,
          'Normal',
          'AdditionalBuildRequested',
          `kpack made no Build for this workload's Image generation; asked for one on Build ${intent.build}`,
        );
        return;
      case 'readImageConfig':
        // Done before the last decision; reaching here means the passes ran out.
        throw new Error(`BuildWorkload ${formatObjectKey(key)}: image config of ${intent.image} still unread`);
    }
  }

  /** Create, or bring the labelled Builder to the desired labels and spec; its tag is immutable. */
  async #ensureBuilder(desired: DesiredBuilder, signal: AbortSignal): Promise<void> {
    const { client } = this.#o;
    const { name, namespace } = desired.metadata;
    try {
      await client.create<KubeObject>(KPACK_BUILDERS, desired, { fieldManager: FIELD_MANAGER, signal });
      return;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    const { tag: _immutable, ...spec } = desired.spec;
    await client.patch(
      KPACK_BUILDERS,
      namespace,
      name,
      'merge',
      { metadata: { labels: desired.metadata.labels }, spec },
      { fieldManager: FIELD_MANAGER, signal },
    );
  }

  /**
   * Create or update the app's Image, then label the workload with the Image's generation. The
   * workload is read fresh first: a cache that has not seen the label yet must not bring back this
   * workload's spec over a newer workload's.
   */
  async #ensureImage(desired: DesiredImage, key: ObjectKey, signal: AbortSignal): Promise<void> {
    const { client } = this.#o;
    const fresh = await client.get<BuildWorkload>(BUILD_WORKLOADS, key.namespace, key.name, signal);
    if (fresh.metadata?.labels?.[KORIFI_KPACK_IMAGE_GENERATION_LABEL] !== undefined) return;
    const generation = await retryOnConflict(
      async () => {
        let current: KpackImage | undefined;
        try {
          current = await client.get<KpackImage>(
            KPACK_IMAGES,
            desired.metadata.namespace,
            desired.metadata.name,
            signal,
          );
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
        if (current === undefined) {
          const created = await client.create<KubeObject>(KPACK_IMAGES, desired, {
            fieldManager: FIELD_MANAGER,
            signal,
          });
          return created.metadata?.generation;
        }
        const { tag: _immutable, source, ...spec } = desired.spec;
        const patched = await client.patch<KpackImage>(
          KPACK_IMAGES,
          desired.metadata.namespace,
          desired.metadata.name,
          'merge',
          {
            metadata: {
              resourceVersion: current.metadata?.resourceVersion,
              labels: desired.metadata.labels,
              ownerReferences: desired.metadata.ownerReferences,
            },
            // A registry source replaces any other kind of source.
            spec: { ...spec, source: { git: null, blob: null, ...source } },
          },
          { fieldManager: FIELD_MANAGER, signal },
        );
        return patched.metadata?.generation;
      },
      { signal },
    );
    await client.patch(
      BUILD_WORKLOADS,
      key.namespace,
      key.name,
      'merge',
      { metadata: { labels: { [KORIFI_KPACK_IMAGE_GENERATION_LABEL]: String(generation ?? 1) } } },
      { fieldManager: FIELD_MANAGER, signal },
    );
  }

  async #writeStatus(
    key: ObjectKey,
    decision: BuildWorkloadDecision,
    generation: number | undefined,
    signal: AbortSignal,
  ): Promise<boolean> {
    const change = decision.change;
    if (change === undefined) return false;
    const now = this.#o.clock?.() ?? new Date();
    let finishedHere = false;
    await updateStatus<BuildWorkload>(
      this.#o.client,
      BUILD_WORKLOADS,
      key,
      (current) => {
        // The cache may be behind: a workload finished meanwhile keeps its outcome.
        if (current.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status !== 'Unknown') === true) {
          return undefined;
        }
        // Applied to the status as stored, not as cached: a cache behind the API server must not
        // bring back a condition a later reconcile replaced.
        const next = applyStatusChange(current.status as BuildWorkloadView['status'], change, now, generation);
        if (next === undefined) return undefined;
        finishedHere = next.conditions?.some((c) => c.type === SUCCEEDED_CONDITION && c.status !== 'Unknown') === true;
        return { ...current, status: next as BuildWorkload['status'] };
      },
      { signal, fieldManager: FIELD_MANAGER },
    );
    return finishedHere;
  }
}
