// Which kpack builder a BuildWorkload is built with (Korifi ADR 6, docs/decisions.md D13, N41),
// pure: from the CFBuild's and the CFApp's lifecycles, the Builders already in the space and the
// default ClusterBuilder, the builder reference for the kpack Image and, for an app or build
// lifecycle, the namespaced Builder that must exist. The same inputs always give the same answer, and
// the Builder is named deterministically, so a reconciler killed after creating it finds it again.
import { KPACK_API_VERSION } from '../../schema/kpack.ts';
import { BUILDER_APP_GUID_LABEL, BUILDER_BUILD_GUID_LABEL, KPACK_SERVICE_ACCOUNT } from './labels.ts';

/** `kind`, `name` (and `namespace` for a Builder), as kpack's Image and Builder specs refer to objects. */
export interface KpackObjectReference {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly apiVersion?: string;
}

/** A CF lifecycle (`spec.lifecycle` of a CFApp or CFBuild) as far as builder choice reads it. */
export interface CfLifecycle {
  readonly type?: string;
  readonly data?: { readonly buildpacks?: readonly string[]; readonly stack?: string };
}

/** The parts of a kpack Builder's or ClusterBuilder's status the choice and readiness read. */
export interface KpackBuilderStatusView {
  readonly observedGeneration?: number;
  readonly conditions?: readonly {
    readonly type: string;
    readonly status: string;
    readonly reason?: string;
    readonly message?: string;
  }[];
  readonly order?: readonly { readonly group?: readonly { readonly id?: string }[] }[];
  readonly builderMetadata?: readonly { readonly id?: string }[];
}

/** A kpack Builder or ClusterBuilder as the choice reads it. */
export interface KpackBuilderView {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly generation?: number;
    readonly creationTimestamp?: string;
  };
  readonly spec?: {
    readonly tag?: string;
    readonly stack?: KpackObjectReference;
    readonly store?: KpackObjectReference;
    readonly serviceAccountName?: string;
    readonly order?: readonly { readonly group?: readonly { readonly id?: string }[] }[];
  };
  readonly status?: KpackBuilderStatusView;
}

export interface BuilderChoiceInput {
  readonly namespace: string;
  readonly appGuid: string;
  readonly buildGuid: string;
  /** The CFBuild's lifecycle; undefined when the CFBuild is not known (then `workloadBuildpacks`). */
  readonly buildLifecycle: CfLifecycle | undefined;
  /** The CFApp's lifecycle; undefined when the CFApp is not known. */
  readonly appLifecycle: CfLifecycle | undefined;
  /** `BuildWorkload.spec.buildpacks`: Korifi copies the CFBuild's buildpacks there. */
  readonly workloadBuildpacks: readonly string[] | undefined;
  /** The namespaced kpack Builders of the space (any labels). */
  readonly builders: readonly KpackBuilderView[];
  /** The default ClusterBuilder's name (`--korifi-cluster-builder`). */
  readonly clusterBuilderName: string;
  /** The default ClusterBuilder, undefined when it does not exist. */
  readonly clusterBuilder: KpackBuilderView | undefined;
  /** Prefix of every tag nudger gives kpack (`--korifi-image-repository`). */
  readonly repositoryPrefix: string;
}

/** A namespaced kpack Builder nudger wants to exist, exactly as it should be written. */
export interface DesiredBuilder {
  readonly apiVersion: 'kpack.io/v1alpha2';
  readonly kind: 'Builder';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
  };
  readonly spec: {
    readonly tag: string;
    readonly stack: KpackObjectReference;
    readonly store: KpackObjectReference;
    readonly serviceAccountName: string;
    readonly order: readonly { readonly group: readonly { readonly id: string }[] }[];
  };
}

export type LifecycleSource = 'default' | 'app' | 'build';

export type BuilderChoice =
  /** The operator's ClusterBuilder, used as it is: nudger never creates or changes it. */
  | { readonly kind: 'default'; readonly source: 'default'; readonly ref: KpackObjectReference }
  /**
   * A namespaced Builder for the app's or the build's buildpacks: `desired` is what it must be;
   * `existing` the one found by label (reused, its spec brought to `desired`), absent to create.
   */
  | {
      readonly kind: 'builder';
      readonly source: 'app' | 'build';
      readonly ref: KpackObjectReference;
      readonly desired: DesiredBuilder;
      readonly existing: KpackBuilderView | undefined;
    }
  /** A requested buildpack is not in the default ClusterBuilder's store: the build fails. */
  | {
      readonly kind: 'invalidBuildpacks';
      readonly source: 'app' | 'build';
      readonly missing: readonly string[];
      readonly message: string;
    }
  /**
   * A Builder is needed but the default ClusterBuilder, whose stack and store it copies, is missing
   * or not reconciled yet: the build waits (and fails after the readiness timeout).
   */
  | { readonly kind: 'waitingForClusterBuilder'; readonly source: 'app' | 'build'; readonly why: string };

// From the one schema source (src/schema/kpack.ts).
export { KPACK_API_VERSION };

function buildpacksOf(lifecycle: CfLifecycle | undefined): readonly string[] {
  return lifecycle?.data?.buildpacks ?? [];
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

/**
 * Where the buildpacks come from, build > app > default (ADR 6). Korifi's API copies the app's
 * lifecycle into a CFBuild created without one, so a CFBuild whose buildpacks equal the app's is the
 * app's lifecycle; one that differs was given its own, which wins wholesale: an explicitly empty
 * list means auto-detection, the default ClusterBuilder. The lifecycle's stack is not consulted:
 * every Builder runs the default ClusterBuilder's stack (docs/decisions.md N41).
 */
export function lifecycleSource(
  input: Pick<BuilderChoiceInput, 'buildLifecycle' | 'appLifecycle' | 'workloadBuildpacks'>,
): { readonly source: LifecycleSource; readonly buildpacks: readonly string[] } {
  const requested =
    input.buildLifecycle === undefined ? (input.workloadBuildpacks ?? []) : buildpacksOf(input.buildLifecycle);
  const app = buildpacksOf(input.appLifecycle);
  if (requested.length === 0) return { source: 'default', buildpacks: [] };
  if (sameList(requested, app)) return { source: 'app', buildpacks: requested };
  return { source: 'build', buildpacks: requested };
}

/** The Builder's name for an app lifecycle, when none labelled for the app exists yet. */
export function appBuilderName(appGuid: string): string {
  return `app-${appGuid}`;
}

/** The Builder's name for a build lifecycle: one per CFBuild. */
export function buildBuilderName(buildGuid: string): string {
  return `build-${buildGuid}`;
}

function creationOrder(a: KpackBuilderView, b: KpackBuilderView): number {
  const at = a.metadata?.creationTimestamp ?? '';
  const bt = b.metadata?.creationTimestamp ?? '';
  if (at !== bt) return at < bt ? -1 : 1;
  const an = a.metadata?.name ?? '';
  const bn = b.metadata?.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/**
 * The Builder found by the ADR's labels: for an app lifecycle, one labelled with the app's GUID and
 * no build GUID; for a build lifecycle, one labelled with both. Several (made by hand, say): the
 * oldest, so that every reconcile picks the same one.
 */
export function findLabelledBuilder(
  builders: readonly KpackBuilderView[],
  source: 'app' | 'build',
  appGuid: string,
  buildGuid: string,
): KpackBuilderView | undefined {
  const matching = builders.filter((builder) => {
    const labels = builder.metadata?.labels ?? {};
    if (labels[BUILDER_APP_GUID_LABEL] !== appGuid) return false;
    return source === 'app'
      ? labels[BUILDER_BUILD_GUID_LABEL] === undefined
      : labels[BUILDER_BUILD_GUID_LABEL] === buildGuid;
  });
  return [...matching].sort(creationOrder)[0];
}

/** Every buildpack id the ClusterBuilder's store offers: its order's and its resolved metadata's. */
export function storeBuildpacks(clusterBuilder: KpackBuilderView): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const entry of clusterBuilder.status?.order ?? []) {
    for (const member of entry.group ?? []) if (member.id !== undefined) ids.add(member.id);
  }
  for (const member of clusterBuilder.status?.builderMetadata ?? []) if (member.id !== undefined) ids.add(member.id);
  return ids;
}

/** Why the default ClusterBuilder cannot be copied yet, or undefined when it can. */
function clusterBuilderProblem(name: string, clusterBuilder: KpackBuilderView | undefined): string | undefined {
  if (clusterBuilder === undefined) return `ClusterBuilder ${name} not found`;
  if (clusterBuilder.spec?.stack === undefined || clusterBuilder.spec.store === undefined) {
    return `ClusterBuilder ${name} has no spec.stack or spec.store to copy`;
  }
  // Until kpack has resolved its order there is no list to check the requested buildpacks against.
  if (storeBuildpacks(clusterBuilder).size === 0) return `ClusterBuilder ${name} has no resolved buildpacks yet`;
  return undefined;
}

function reference(ref: KpackObjectReference): KpackObjectReference {
  return {
    kind: ref.kind,
    name: ref.name,
    ...(ref.namespace === undefined ? {} : { namespace: ref.namespace }),
    ...(ref.apiVersion === undefined ? {} : { apiVersion: ref.apiVersion }),
  };
}

export function chooseBuilder(input: BuilderChoiceInput): BuilderChoice {
  const { source, buildpacks } = lifecycleSource(input);
  if (source === 'default') {
    return {
      kind: 'default',
      source,
      ref: { kind: 'ClusterBuilder', name: input.clusterBuilderName, apiVersion: KPACK_API_VERSION },
    };
  }
  const problem = clusterBuilderProblem(input.clusterBuilderName, input.clusterBuilder);
  if (problem !== undefined || input.clusterBuilder?.spec?.stack === undefined || !input.clusterBuilder.spec.store) {
    return { kind: 'waitingForClusterBuilder', source, why: problem ?? 'ClusterBuilder incomplete' };
  }
  const store = storeBuildpacks(input.clusterBuilder);
  const missing = [...new Set(buildpacks.filter((id) => !store.has(id)))];
  if (missing.length > 0) {
    const named = missing.map((id) => JSON.stringify(id)).join(', ');
    return {
      kind: 'invalidBuildpacks',
      source,
      missing,
      message: `buildpack${missing.length === 1 ? '' : 's'} ${named} not in the store of ClusterBuilder ${input.clusterBuilderName}`,
    };
  }
  const existing = findLabelledBuilder(input.builders, source, input.appGuid, input.buildGuid);
  const name =
    existing?.metadata?.name ?? (source === 'app' ? appBuilderName(input.appGuid) : buildBuilderName(input.buildGuid));
  const labels: Record<string, string> =
    source === 'app'
      ? { [BUILDER_APP_GUID_LABEL]: input.appGuid }
      : { [BUILDER_APP_GUID_LABEL]: input.appGuid, [BUILDER_BUILD_GUID_LABEL]: input.buildGuid };
  const desired: DesiredBuilder = {
    apiVersion: KPACK_API_VERSION,
    kind: 'Builder',
    metadata: { name, namespace: input.namespace, labels },
    spec: {
      // kpack's tag is immutable once a Builder is made: a reused one keeps its own.
      tag: existing?.spec?.tag ?? `${input.repositoryPrefix}builders-${name}`,
      stack: reference(input.clusterBuilder.spec.stack),
      store: reference(input.clusterBuilder.spec.store),
      serviceAccountName: KPACK_SERVICE_ACCOUNT,
      // One group per buildpack, as Korifi's kpack-image-builder orders its Builders.
      order: buildpacks.map((id) => ({ group: [{ id }] })),
    },
  };
  return {
    kind: 'builder',
    source,
    ref: { kind: 'Builder', name, namespace: input.namespace, apiVersion: KPACK_API_VERSION },
    desired,
    existing,
  };
}

/**
 * Whether an existing Builder differs from what nudger wants of it: its labels (the ADR's must be
 * there; others are left alone) or the spec fields nudger sets.
 */
export function builderNeedsUpdate(existing: KpackBuilderView, desired: DesiredBuilder): boolean {
  const labels = existing.metadata?.labels ?? {};
  for (const [key, value] of Object.entries(desired.metadata.labels)) if (labels[key] !== value) return true;
  const spec = existing.spec;
  if (spec === undefined) return true;
  if (spec.serviceAccountName !== desired.spec.serviceAccountName) return true;
  if (!sameRef(spec.stack, desired.spec.stack) || !sameRef(spec.store, desired.spec.store)) return true;
  const order = (spec.order ?? []).map((entry) => (entry.group ?? []).map((member) => member.id ?? '').join('\u0000'));
  const wanted = desired.spec.order.map((entry) => entry.group.map((member) => member.id).join('\u0000'));
  return !sameList(order, wanted);
}

function sameRef(a: KpackObjectReference | undefined, b: KpackObjectReference): boolean {
  return a?.kind === b.kind && a.name === b.name && a.namespace === b.namespace;
}
