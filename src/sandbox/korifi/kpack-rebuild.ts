// kpack's rebuild decision as the sandbox's kpack stand-in plays it (docs/decisions.md N43): the
// changes between an Image's last Build and what the Image and its builder hold now, evaluated in
// kpack's fixed order, each a reason; the reasons joined with "," are the Build's
// `image.kpack.io/reason` and the Image's `status.latestBuildReason`. COMMIT (git sources) and
// LIFECYCLE (lifecycle upgrades) are not played: Korifi's sources are registry images and the
// stand-in's lifecycle never changes. Pure.
import type { KpackBuildReason } from '../../domain/korifi/labels.ts';
import { canonical } from './kpack-objects.ts';

/** A buildpack as kpack records it: builder `status.builderMetadata`, Build `status.buildMetadata`. */
export interface BuildpackInfo {
  readonly id: string;
  readonly version: string;
}

/** What a Build is built from that CONFIG compares: env, resources, services, bindings, source. */
export interface BuildConfig {
  readonly env: unknown;
  readonly resources: unknown;
  readonly services: unknown;
  readonly cnbBindings: unknown;
  readonly source: unknown;
}

/** What the decision reads of an Image's last Build. */
export interface LastBuildFacts {
  /** `Succeeded`: true, false, or undefined while it runs. */
  readonly succeeded: boolean | undefined;
  /** The `image.kpack.io/additionalBuildNeeded` annotation's value, if any. */
  readonly additionalBuildNeeded: string | undefined;
  readonly config: BuildConfig;
  /** `status.buildMetadata`: the buildpacks it ran. */
  readonly buildpacks: readonly BuildpackInfo[];
  /** `status.stack.runImage`. */
  readonly runImage: string | undefined;
}

/** What the decision reads of the ready builder. */
export interface BuilderFacts {
  readonly buildpacks: readonly BuildpackInfo[];
  readonly runImage: string;
}

/** One entry of `image.kpack.io/buildChanges`. */
export interface BuildChange {
  readonly reason: KpackBuildReason;
  readonly old: unknown;
  readonly new: unknown;
}

/** A run image's digest (`repo@sha256:...` → `sha256:...`); the reference itself without one. */
export function digestOf(reference: string): string {
  const at = reference.indexOf('@');
  return at === -1 ? reference : reference.slice(at + 1);
}

const sameBuildpack = (a: BuildpackInfo, b: BuildpackInfo): boolean => a.id === b.id && a.version === b.version;

/**
 * The changes that require a new Build, in kpack's order (TRIGGER, CONFIG, BUILDPACK, STACK); none
 * when the Image is up to date. The first Build of an Image is CONFIG. BUILDPACK and STACK count
 * only after a successful Build, as in kpack: BUILDPACK when a buildpack that Build used is no
 * longer in the builder at that version, STACK when the builder's run image digest differs.
 */
export function buildChanges(
  config: BuildConfig,
  last: LastBuildFacts | undefined,
  builder: BuilderFacts,
): BuildChange[] {
  if (last === undefined) return [{ reason: 'CONFIG', old: null, new: config }];
  const changes: BuildChange[] = [];
  if (last.additionalBuildNeeded !== undefined) {
    changes.push({ reason: 'TRIGGER', old: '', new: last.additionalBuildNeeded });
  }
  if (canonical(last.config) !== canonical(config)) changes.push({ reason: 'CONFIG', old: last.config, new: config });
  if (last.succeeded === true) {
    const gone = last.buildpacks.filter((used) => !builder.buildpacks.some((now) => sameBuildpack(used, now)));
    if (gone.length > 0) {
      const ids = new Set(gone.map((buildpack) => buildpack.id));
      changes.push({
        reason: 'BUILDPACK',
        old: gone,
        new: builder.buildpacks.filter((buildpack) => ids.has(buildpack.id)),
      });
    }
    if (last.runImage !== undefined && digestOf(last.runImage) !== digestOf(builder.runImage)) {
      changes.push({ reason: 'STACK', old: digestOf(last.runImage), new: digestOf(builder.runImage) });
    }
  }
  return changes;
}

/** The reason annotation's value: the changes' reasons joined with ",". */
export function reasonsOf(changes: readonly BuildChange[]): string {
  return changes.map((change) => change.reason).join(',');
}

/**
 * kpack rebases (swaps the run image under the same app layers) instead of rebuilding when the
 * reason is exactly STACK and the stack id is unchanged; every other Build runs detect and build
 * again with the builder's current buildpacks.
 */
export function isRebase(reasons: string, lastStackId: string | undefined, builderStackId: string): boolean {
  return reasons === 'STACK' && lastStackId === builderStackId;
}
