// The stack-update propagator's decision (docs/decisions.md D13, N42), pure: from one kpack Image of a
// CF app as observed (its Ready condition, latestImage, latestStack and the reasons of its latest
// Build), the app's current droplet and the app's CFBuilds, decide whether to roll the rebuilt
// image out as a new droplet, and what the controller should do next.
//
// Only a rebuild whose reasons are exactly `STACK` is rolled out (Korifi ADR 6: buildpack updates
// are the operator's to roll out). A mixed `BUILDPACK,STACK` rebuild reran the buildpacks, so it is
// ignored like `BUILDPACK`; so are `CONFIG`, `COMMIT`, `LIFECYCLE` and `TRIGGER`, each with an Event
// naming the reasons.
//
// Exactly once, crash-safe, with no memory but the cluster (N42): the new CFBuild's name is derived
// from the app, the droplet it replaces and the new image, and it carries, in annotations, the
// droplet status it is to get. Creating it is the write-ahead record; its status (a separate write,
// the status subresource ignores status on create) and the app's switch are derived from it. A
// controller killed after any step decides again from what the cluster holds: the CFBuild exists,
// so it is not created twice; its status is missing, so it is written from the annotation; the app
// still names the old droplet, so it is switched. Intents are "make it so" requests, carried out
// in order and idempotently.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { BuildDropletStatus } from '../../schema/korifi.ts';
import type { KpackImage } from '../../schema/kpack.ts';
import { objectDecoder } from '../schema-validation.ts';
import {
  KORIFI_APP_GUID_LABEL,
  KORIFI_DROPLET_GUID_LABEL,
  KORIFI_PACKAGE_GUID_LABEL,
  KORIFI_SPACE_GUID_LABEL,
  splitBuildReasons,
} from './labels.ts';

/** Label on the CFBuilds the propagator creates: what selects them as ours. */
export const STACK_UPDATE_LABEL = 'nudger.konflux-ci.dev/stack-update';
/** Annotation on our CFBuild: the droplet (CFBuild) whose spec and droplet it was made from. */
export const STACK_UPDATE_FROM_ANNOTATION = 'nudger.konflux-ci.dev/stack-update-from';
/** Annotation on our CFBuild: the kpack Image and Build (`<image>/<build>`) whose rebuild it rolls out. */
export const STACK_UPDATE_SOURCE_ANNOTATION = 'nudger.konflux-ci.dev/stack-update-source';
/** Annotation on our CFBuild: the droplet status to write (JSON), so the status follows from the CFBuild alone. */
export const STACK_UPDATE_DROPLET_ANNOTATION = 'nudger.konflux-ci.dev/stack-update-droplet';

/**
 * Annotation on the CFApp, set in the same write as the switch: the droplet the propagator last
 * switched it to. A human who sets the old droplet again (`cf set-droplet`) is not overruled.
 */
export const STACK_UPDATE_APPLIED_ANNOTATION = 'nudger.konflux-ci.dev/stack-updated-to';

/** Event reasons the propagator tells on the CFApp. */
export const STACK_UPDATE_EVENT_REASONS = {
  /** A rebuild whose reasons are not exactly STACK: not rolled out. */
  ignored: 'RebuildNotRolledOut',
  /** A stack-only rebuild rolled out: new droplet, app switched. */
  propagated: 'StackUpdated',
  /** The name our CFBuild must have is taken by a CFBuild that is not ours. */
  nameTaken: 'StackUpdateBlocked',
  /** Our CFBuild's droplet annotation does not read: a human edited it. */
  unreadable: 'StackUpdateBlocked',
  /** The app was switched to our droplet and then back by someone else: left as they chose. */
  revertedByUser: 'StackUpdateReverted',
} as const;

/** `BuildDropletStatus` of a CFBuild, as Korifi defines it (src/schema/korifi.ts). */
export type DropletStatus = BuildDropletStatus;

const decodeDroplet = objectDecoder(BuildDropletStatus);

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A kpack Image as the propagator reads it. */
export interface ImageView {
  readonly namespace: string;
  readonly name: string;
  readonly generation?: number;
  readonly observedGeneration?: number;
  /** `status.conditions[type=Ready].status`. */
  readonly ready?: ConditionStatus;
  readonly latestImage?: string;
  readonly latestStack?: string;
  readonly latestBuildRef?: string;
  /** `status.latestBuildReason`: kpack copies its latest Build's reason annotation here. */
  readonly latestBuildReason?: string;
}

/** The propagator's view of a decoded kpack Image: the one mapping, for its controller and the dashboard (D14). */
export function imageView(image: KpackImage): ImageView {
  const status = image.status;
  const ready = status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return {
    namespace: image.metadata?.namespace ?? '',
    name: image.metadata?.name ?? '',
    ...(image.metadata?.generation === undefined ? {} : { generation: image.metadata.generation }),
    ...(status?.observedGeneration === undefined ? {} : { observedGeneration: status.observedGeneration }),
    ...(ready === 'True' || ready === 'False' || ready === 'Unknown' ? { ready } : {}),
    ...(status?.latestImage === undefined ? {} : { latestImage: status.latestImage }),
    ...(status?.latestStack === undefined ? {} : { latestStack: status.latestStack }),
    ...(status?.latestBuildRef === undefined ? {} : { latestBuildRef: status.latestBuildRef }),
    ...(status?.latestBuildReason === undefined ? {} : { latestBuildReason: status.latestBuildReason }),
  };
}

/** The Image's latest Build (the one `latestBuildRef` names), when the cache holds it. */
export interface LatestBuildView {
  readonly name: string;
  /** The `image.kpack.io/reason` annotation, comma-joined. */
  readonly reason?: string;
}

export interface AppView {
  readonly namespace: string;
  readonly name: string;
  readonly currentDropletRef?: string;
  /** STACK_UPDATE_APPLIED_ANNOTATION: the droplet the propagator last switched the app to. */
  readonly lastSwitchedTo?: string;
}

/** A CFBuild's spec, copied whole into the new droplet's CFBuild. */
export interface CFBuildSpecView {
  readonly appRef: { readonly name: string };
  readonly packageRef: { readonly name: string };
  readonly [field: string]: unknown;
}

export interface OwnerReferenceView {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface CFBuildView {
  readonly name: string;
  readonly generation?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReferenceView[];
  readonly spec: CFBuildSpecView;
  /** `status.state`: STAGING, STAGED or FAILED. */
  readonly state?: string;
  readonly droplet?: DropletStatus;
}

export interface StackUpdateInput {
  readonly image: ImageView;
  readonly latestBuild?: LatestBuildView;
  readonly app: AppView;
  /** The app's CFBuilds (spec.appRef.name), the current droplet's among them. */
  readonly builds: readonly CFBuildView[];
  /** Kubernetes time for condition transitions. */
  readonly now: string;
}

/** A new CFBuild, as created (no status: the status subresource ignores it on create). */
export interface NewCFBuild {
  readonly apiVersion: 'korifi.cloudfoundry.org/v1alpha1';
  readonly kind: 'CFBuild';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly OwnerReferenceView[];
  };
  readonly spec: CFBuildSpecView;
}

export interface CFBuildCondition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

/** The status our CFBuild gets: staged, succeeded, holding the new droplet. */
export interface StagedStatus {
  readonly state: 'STAGED';
  readonly droplet: DropletStatus;
  readonly conditions: readonly CFBuildCondition[];
  readonly observedGeneration?: number;
}

export type StackUpdateIntent =
  | { readonly kind: 'createBuild'; readonly build: NewCFBuild }
  /** Write the status of our CFBuild `name` (status subresource). */
  | { readonly kind: 'writeBuildStatus'; readonly name: string; readonly status: StagedStatus }
  /**
   * Set the app's `spec.currentDropletRef.name` from `from` to `to` and its
   * STACK_UPDATE_APPLIED_ANNOTATION to `to`, in one write (compare-and-swap on the app read).
   */
  | { readonly kind: 'switchDroplet'; readonly app: string; readonly from: string; readonly to: string };

export interface StackUpdateEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  /** What the Event is about: told once per fact (its name is derived from it). */
  readonly fact: readonly string[];
}

export type IgnoreWhy =
  /** Image not Ready=True for its current generation, or no latestImage yet: nothing to trust. */
  | 'not-ready'
  /** The app has no current droplet, or it is not a staged one with a droplet. */
  | 'no-droplet'
  /** The current droplet already holds latestImage (first build, restaged, or already rolled out). */
  | 'same-image'
  /** The rebuild's reasons are not exactly STACK. */
  | 'not-stack-only'
  /** A CFBuild that is not ours has the name ours must have. */
  | 'name-taken'
  /** Our CFBuild's droplet annotation does not read. */
  | 'unreadable'
  /** The propagator switched the app to this droplet once and someone switched it back. */
  | 'reverted';

export type StackUpdateOutcome =
  | { readonly kind: 'ignore'; readonly why: IgnoreWhy; readonly reasons: readonly string[] }
  /** Rolling out (or finishing rolling out) `latestImage` as the droplet `droplet`. */
  | { readonly kind: 'propagate'; readonly droplet: string; readonly from: string };

export interface StackUpdateDecision {
  readonly outcome: StackUpdateOutcome;
  readonly intents: readonly StackUpdateIntent[];
  /** Told once per fact, on the app. */
  readonly event?: StackUpdateEvent;
}

/** The reasons of the Image's latest rebuild: its Build's annotation, else the Image's copy. */
export function rebuildReasons(image: ImageView, latestBuild: LatestBuildView | undefined): string[] {
  const fromBuild =
    latestBuild !== undefined && latestBuild.name === image.latestBuildRef ? latestBuild.reason : undefined;
  return splitBuildReasons(fromBuild ?? image.latestBuildReason);
}

/** Stack-only: the reasons, split on ",", are exactly `STACK` (a repeated STACK still counts). */
export function isStackOnly(reasons: readonly string[]): boolean {
  return reasons.length > 0 && reasons.every((r) => r === 'STACK');
}

/** kpack Images are trusted only when Ready=True for the generation they were asked for. */
export function isImageSettled(image: ImageView): boolean {
  if (image.ready !== 'True') return false;
  if (image.generation !== undefined && image.observedGeneration !== image.generation) return false;
  return image.latestImage !== undefined && image.latestImage !== '';
}

/** The digest of an image reference (`<repo>@sha256:...`), else the reference itself. */
export function imageIdentity(ref: string): string {
  const at = ref.lastIndexOf('@');
  return at < 0 ? ref : ref.slice(at + 1);
}

/** Two image references name the same image: equal digests when both carry one, else equal text. */
export function sameImage(a: string, b: string): boolean {
  return imageIdentity(a) === imageIdentity(b);
}

/**
 * The new droplet's CFBuild name: a GUID (as CF droplet GUIDs are) derived from the space, the app
 * and the new image's digest, so a decision repeated after a crash, or by another replica, names
 * the same CFBuild: one droplet per (app, image). sha256 in the UUID layout, version 8 (RFC 9562:
 * custom, name-based).
 */
export function stackUpdateBuildName(namespace: string, app: string, image: string): string {
  const hex = bytesToHex(
    sha256(utf8ToBytes(['nudger-stack-update-v1', namespace, app, imageIdentity(image)].join('\0'))),
  );
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    `8${hex.slice(13, 16)}`,
    `${variant}${hex.slice(17, 20)}`,
    hex.slice(20, 32),
  ].join('-');
}

export function isOurBuild(build: CFBuildView): boolean {
  return (
    build.labels?.[STACK_UPDATE_LABEL] === 'true' && build.annotations?.[STACK_UPDATE_DROPLET_ANNOTATION] !== undefined
  );
}

/** Our CFBuild's droplet annotation, read back; undefined if it does not read as a droplet. */
export function readDropletAnnotation(build: CFBuildView): DropletStatus | undefined {
  const text = build.annotations?.[STACK_UPDATE_DROPLET_ANNOTATION];
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const decoded = decodeDroplet(value);
  return decoded.ok ? decoded.object : undefined;
}

/** The status our CFBuild gets, from its droplet annotation. */
export function stagedStatus(build: CFBuildView, droplet: DropletStatus, now: string): StagedStatus {
  const from = build.annotations?.[STACK_UPDATE_FROM_ANNOTATION] ?? 'the previous droplet';
  const source = build.annotations?.[STACK_UPDATE_SOURCE_ANNOTATION] ?? 'kpack';
  const generation = build.generation;
  const condition = (type: string, status: ConditionStatus, reason: string, message: string): CFBuildCondition => ({
    type,
    status,
    reason,
    message,
    lastTransitionTime: now,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  });
  // Korifi's buildpack delegate's reasons, so that the CF API reads our droplet like any other.
  return {
    state: 'STAGED',
    droplet,
    conditions: [
      condition('Staging', 'False', 'BuildNotRunning', `Stack update of droplet ${from}: no staging run`),
      condition('Succeeded', 'True', 'BuildSucceeded', `Stack update of droplet ${from} by ${source} (STACK)`),
    ],
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}

function ignore(why: IgnoreWhy, reasons: readonly string[], intents: StackUpdateIntent[], event?: StackUpdateEvent) {
  return { outcome: { kind: 'ignore', why, reasons }, intents, ...(event === undefined ? {} : { event }) } as const;
}

/** Why a rebuild is not rolled out, in words: what the Event on the app says. */
export function describeIgnoredRebuild(reasons: readonly string[]): string {
  if (reasons.length === 0) return 'kpack recorded no reason for it';
  const joined = reasons.join(',');
  if (reasons.includes('STACK')) {
    return `its reasons are ${joined}: besides the stack, the rebuild ran with changed inputs (a mixed rebuild reruns the buildpacks), so it is not a stack-only update`;
  }
  if (reasons.includes('BUILDPACK')) return `its reason is ${joined}: buildpack updates are the operator's to roll out`;
  return `its reason is ${joined}, not STACK`;
}

/**
 * The stack-update decision for one kpack Image and its app. Same inputs, same answer: a resync
 * recomputes it and finds everything already done.
 */
export function decideStackUpdate(input: StackUpdateInput): StackUpdateDecision {
  const { image, app, builds, now } = input;
  const reasons = rebuildReasons(image, input.latestBuild);
  // Our CFBuilds that a crash left without status, whatever became of their rollout: a CFBuild
  // with no status is one Korifi would stage again, so each gets the status it announced.
  const repairs: StackUpdateIntent[] = [];
  for (const build of builds) {
    if (!isOurBuild(build) || build.droplet !== undefined) continue;
    const droplet = readDropletAnnotation(build);
    if (droplet !== undefined)
      repairs.push({ kind: 'writeBuildStatus', name: build.name, status: stagedStatus(build, droplet, now) });
  }
  if (!isImageSettled(image)) return ignore('not-ready', reasons, repairs);
  const latestImage = image.latestImage ?? '';
  const from = app.currentDropletRef;
  const current = from === undefined ? undefined : builds.find((b) => b.name === from);
  if (from === undefined || current?.droplet === undefined || current.state !== 'STAGED') {
    return ignore('no-droplet', reasons, repairs);
  }
  const name = stackUpdateBuildName(app.namespace, app.name, latestImage);
  const existing = builds.find((b) => b.name === name);
  // Switched to this image's droplet once, and set back since: left as the human chose, also
  // when Korifi's build cleanup has deleted that droplet meanwhile.
  if (app.lastSwitchedTo === name && from !== name) {
    return ignore('reverted', reasons, repairs, {
      type: 'Normal',
      reason: STACK_UPDATE_EVENT_REASONS.revertedByUser,
      message: `App ${app.name} runs droplet ${from} again after nudger switched it to ${name} (image ${latestImage}); the stack update is not applied again`,
      fact: ['stack-update-reverted', name, from],
    });
  }
  if (existing !== undefined && from !== name) {
    if (!isOurBuild(existing)) {
      return ignore('name-taken', reasons, repairs, {
        type: 'Warning',
        reason: STACK_UPDATE_EVENT_REASONS.nameTaken,
        message: `CFBuild ${name}, the name of the droplet for ${latestImage}, exists and was not made by nudger; the stack update of app ${app.name} waits`,
        fact: ['stack-update-name-taken', name],
      });
    }
    // Rolled out halfway before a crash: finish it, whatever the reasons now say (write-ahead).
    const droplet = readDropletAnnotation(existing);
    if (droplet === undefined) {
      return ignore('unreadable', reasons, repairs, {
        type: 'Warning',
        reason: STACK_UPDATE_EVENT_REASONS.unreadable,
        message: `CFBuild ${name}: annotation ${STACK_UPDATE_DROPLET_ANNOTATION} does not read as a droplet; the stack update of app ${app.name} waits`,
        fact: ['stack-update-unreadable', name, existing.annotations?.[STACK_UPDATE_DROPLET_ANNOTATION] ?? ''],
      });
    }
    return {
      outcome: { kind: 'propagate', droplet: name, from },
      intents: [...repairs, { kind: 'switchDroplet', app: app.name, from, to: name }],
    };
  }
  if (sameImage(current.droplet.registry.image, latestImage)) return ignore('same-image', reasons, repairs);
  if (!isStackOnly(reasons)) {
    const build = image.latestBuildRef ?? latestImage;
    return ignore('not-stack-only', reasons, repairs, {
      type: 'Normal',
      reason: STACK_UPDATE_EVENT_REASONS.ignored,
      message: `kpack Image ${image.name} rebuilt the droplet of app ${app.name} (Build ${build}, image ${latestImage}); not rolled out, ${describeIgnoredRebuild(reasons)}. Restage the app to use it.`,
      fact: ['stack-update-ignored', image.name, build, reasons.join(',')],
    });
  }
  const droplet: DropletStatus = {
    ...current.droplet,
    registry: { ...current.droplet.registry, image: latestImage },
    ...(image.latestStack !== undefined && image.latestStack !== '' ? { stack: image.latestStack } : {}),
  };
  const source = `${image.name}/${image.latestBuildRef ?? ''}`;
  const created: NewCFBuild = {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFBuild',
    metadata: {
      name,
      namespace: app.namespace,
      labels: {
        [KORIFI_APP_GUID_LABEL]: current.spec.appRef.name,
        [KORIFI_PACKAGE_GUID_LABEL]: current.spec.packageRef.name,
        [KORIFI_DROPLET_GUID_LABEL]: name,
        [KORIFI_SPACE_GUID_LABEL]: app.namespace,
        [STACK_UPDATE_LABEL]: 'true',
      },
      annotations: {
        [STACK_UPDATE_FROM_ANNOTATION]: from,
        [STACK_UPDATE_SOURCE_ANNOTATION]: source,
        [STACK_UPDATE_DROPLET_ANNOTATION]: JSON.stringify(droplet),
      },
      // The replaced droplet's owners (the CFApp, as Korifi's API sets them), so the new droplet
      // is collected with the app.
      ...(current.ownerReferences === undefined || current.ownerReferences.length === 0
        ? {}
        : { ownerReferences: current.ownerReferences }),
    },
    spec: current.spec,
  };
  const createdView: CFBuildView = { ...created.metadata, generation: 1, spec: created.spec };
  return {
    outcome: { kind: 'propagate', droplet: name, from },
    intents: [
      ...repairs,
      { kind: 'createBuild', build: created },
      { kind: 'writeBuildStatus', name, status: stagedStatus(createdView, droplet, now) },
      { kind: 'switchDroplet', app: app.name, from, to: name },
    ],
  };
}

/** The Event told once the app runs the new droplet (after the switch). */
export function propagatedEvent(app: AppView, droplet: string, from: string, image: string): StackUpdateEvent {
  return {
    type: 'Normal',
    reason: STACK_UPDATE_EVENT_REASONS.propagated,
    message: `Stack update of app ${app.name}: droplet ${from} replaced by ${droplet} (image ${image})`,
    fact: ['stack-update-propagated', droplet],
  };
}

/** What links a kpack Image to its CFApp: the Image's metadata. */
export interface ImageLinkView {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly { readonly kind?: string; readonly name?: string }[];
}

/**
 * The CFApp (by name, in the Image's namespace) whose droplets an Image builds, found as Korifi
 * links them (D13): the `korifi.cloudfoundry.org/app-guid` label (nudger's build reconciler sets
 * it); else the Image's own name, which Korifi's kpack-image-builder makes the app GUID; else its
 * BuildWorkload owners, each named after its CFBuild, whose `spec.appRef` names the app. Only an
 * app that exists counts; none means the Image is not a CF app's.
 */
export function appOfImage(
  image: ImageLinkView,
  appExists: (name: string) => boolean,
  appOfBuild: (cfBuild: string) => string | undefined,
): string | undefined {
  const labelled = image.labels?.[KORIFI_APP_GUID_LABEL];
  if (labelled !== undefined && appExists(labelled)) return labelled;
  if (appExists(image.name)) return image.name;
  for (const owner of image.ownerReferences ?? []) {
    if (owner.kind !== 'BuildWorkload' || owner.name === undefined) continue;
    const app = appOfBuild(owner.name);
    if (app !== undefined && appExists(app)) return app;
  }
  return undefined;
}
