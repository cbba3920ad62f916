// Reading Tekton PipelineRuns the way Konflux writes them (build-service,
// integration-service and Pipelines-as-Code, all under github.com/konflux-ci and openshift-pipelines): nudge PipelineRuns made by build-service or
// integration-service, and the build PipelineRuns they name. Input is a PipelineRun decoded by its
// schema (src/schema/pipelinerun.ts): the informer's, or one decoded here from an admission request
// or a live read (the `read*` functions taking `unknown`); v1 and v1beta1 are both read.
import { decodePipelineRun } from './cluster-objects.ts';
import { isDns1123Label } from './labels.ts';
import { TEKTON_GROUP, type PipelineRun, type PipelineRunStatus } from '../schema/pipelinerun.ts';

export { TEKTON_GROUP };

/** The nudge marker. Its group is `redhat.com`, unlike the build labels' `openshift.io`. */
export const NUDGE_TYPE_LABEL = 'build.appstudio.redhat.com/type';
export const NUDGE_TYPE_VALUE = 'nudge';
/** Target components, space-separated: one nudge PipelineRun can nudge several components. */
export const NUDGED_COMPONENTS_ANNOTATION = 'build.appstudio.redhat.com/nudged-components';
export const NUDGING_COMPONENT_ANNOTATION = 'build.appstudio.redhat.com/nudging-component';
/** `<repo>:<tag>` of the build: the IMAGE_URL result, never a digest. */
export const NUDGING_IMAGE_ANNOTATION = 'build.appstudio.redhat.com/nudging-image';
/** Name of the build PipelineRun (same namespace) whose results carry the digest (D3). */
export const NUDGING_PIPELINE_ANNOTATION = 'build.appstudio.redhat.com/nudging-pipeline';
export const NUDGING_COMMIT_ANNOTATION = 'build.appstudio.redhat.com/nudging-commit';

/** Component label of build PipelineRuns: the old model (what nudging uses) and the new one. */
export const COMPONENT_LABEL = 'appstudio.openshift.io/component';
export const COMPONENT_LABEL_V2 = 'build.konflux-ci.dev/component';
export const APPLICATION_LABEL = 'appstudio.openshift.io/application';
export const PIPELINE_TYPE_LABEL = 'pipelines.appstudio.openshift.io/type';
/** Set by Pipelines-as-Code as both a label and an annotation. */
export const PAC_EVENT_TYPE_KEY = 'pipelinesascode.tekton.dev/event-type';
export const PAC_PULL_REQUEST_KEY = 'pipelinesascode.tekton.dev/pull-request';
export const TARGET_BRANCH_ANNOTATION = 'build.appstudio.redhat.com/target_branch';
/** The new component model's spelling of the same annotation. */
export const TARGET_BRANCH_ANNOTATION_V2 = 'build.konflux-ci.dev/target_branch';
/** Set by Pipelines-as-Code on every run; for a push, both name the pushed branch. */
export const PAC_BRANCH_KEY = 'pipelinesascode.tekton.dev/branch';
export const PAC_SOURCE_BRANCH_KEY = 'pipelinesascode.tekton.dev/source-branch';
/** GitHub merge-queue branches: pushes there are not builds of the branch (integration-service). */
export const MERGE_QUEUE_BRANCH_PREFIX = 'gh-readonly-queue/';
/** build-service's push test: these event types, compared case-insensitively. */
const PUSH_EVENT_TYPES = new Set(['push', 'incoming']);

export const IMAGE_DIGEST_RESULT = 'IMAGE_DIGEST';
export const IMAGE_URL_RESULT = 'IMAGE_URL';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** The parts of a PipelineRun (v1 or v1beta1) nudger reads, normalised. */
export interface PipelineRunView {
  readonly apiVersion: string;
  readonly name: string;
  readonly namespace: string;
  readonly uid?: string;
  readonly creationTimestamp?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** `spec.status`: empty when unset; `Cancelled`, `PipelineRunPending`, ... otherwise. */
  readonly specStatus: string;
  /** The `Succeeded` condition, absent before Tekton's first reconcile. */
  readonly succeeded?: { readonly status: ConditionStatus; readonly reason?: string };
  readonly startTime?: string;
  /** String-valued results: v1 `status.results`, v1beta1 `status.pipelineResults`. */
  readonly results: Readonly<Record<string, string>>;
}

const CONDITION_STATUSES: ReadonlySet<string> = new Set<ConditionStatus>(['True', 'False', 'Unknown']);

function isConditionStatus(value: string): value is ConditionStatus {
  return CONDITION_STATUSES.has(value);
}

function succeededOf(status: PipelineRunStatus | undefined): PipelineRunView['succeeded'] {
  const condition = status?.conditions?.find((c) => c.type === 'Succeeded');
  if (condition === undefined || !isConditionStatus(condition.status)) return undefined;
  return condition.reason === undefined
    ? { status: condition.status }
    : { status: condition.status, reason: condition.reason };
}

function resultsOf(status: PipelineRunStatus | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of [...(status?.results ?? []), ...(status?.pipelineResults ?? [])]) {
    // Array- and object-valued results exist; the ones nudger reads are strings.
    if (typeof value === 'string') out[name] ??= value;
  }
  return out;
}

/** The normalised view of a decoded PipelineRun: v1 and v1beta1 results alike, Succeeded read. */
export function pipelineRunView(run: PipelineRun): PipelineRunView {
  const metadata = run.metadata ?? {};
  const { uid, creationTimestamp } = metadata;
  const succeeded = succeededOf(run.status);
  const startTime = run.status?.startTime;
  return {
    apiVersion: run.apiVersion ?? '',
    // Admission requests may carry generateName only; the name is then assigned after the webhook.
    name: metadata.name ?? metadata.generateName ?? '',
    namespace: metadata.namespace ?? '',
    ...(uid === undefined ? {} : { uid }),
    ...(creationTimestamp === undefined || creationTimestamp === null ? {} : { creationTimestamp }),
    labels: metadata.labels ?? {},
    annotations: metadata.annotations ?? {},
    specStatus: run.spec?.status ?? '',
    ...(succeeded === undefined ? {} : { succeeded }),
    ...(startTime === undefined ? {} : { startTime }),
    results: resultsOf(run.status),
  };
}

/** A PipelineRun view, or undefined when `object` is not a tekton.dev PipelineRun. */
export function readPipelineRun(object: unknown): PipelineRunView | undefined {
  const decoded = decodePipelineRun(object);
  return decoded.ok ? pipelineRunView(decoded.object) : undefined;
}

/** What a nudge PipelineRun says: who nudges whom, and which build produced the image. */
export interface NudgePipelineRun {
  readonly pipelineRun: PipelineRunView;
  readonly namespace: string;
  readonly nudgingComponent: string;
  /** Deduplicated, in annotation order. */
  readonly nudgedComponents: readonly string[];
  /** Name of the build PipelineRun; absent on a malformed nudge, which then fails D3 verification. */
  readonly nudgingPipeline?: string;
  readonly nudgingImage?: string;
}

export const NUDGE_REJECTIONS = [
  'not-a-pipelinerun',
  'not-a-nudge',
  'missing-nudging-component',
  'missing-nudged-components',
  'invalid-component-name',
] as const;
export type NudgeRejection = (typeof NUDGE_REJECTIONS)[number];

export type NudgeReading =
  | { readonly ok: true; readonly nudge: NudgePipelineRun }
  | { readonly ok: false; readonly reason: NudgeRejection; readonly message: string };

/** `true` when the object carries the nudge label, whatever else is wrong with it. */
export function isNudgePipelineRun(view: PipelineRunView): boolean {
  return view.labels[NUDGE_TYPE_LABEL] === NUDGE_TYPE_VALUE;
}

const NOT_A_PIPELINERUN: NudgeReading = {
  ok: false,
  reason: 'not-a-pipelinerun',
  message: 'not a tekton.dev PipelineRun',
};

/** Reads a nudge PipelineRun from a raw object (decoded here), or says why it is not a usable one. */
export function readNudgePipelineRun(object: unknown): NudgeReading {
  const decoded = decodePipelineRun(object);
  return decoded.ok ? nudgePipelineRunOf(decoded.object) : NOT_A_PIPELINERUN;
}

/** Reads a decoded nudge PipelineRun, or says why it is not a usable one. */
export function nudgePipelineRunOf(run: PipelineRun): NudgeReading {
  const view = pipelineRunView(run);
  const where = `PipelineRun ${view.namespace}/${view.name}`;
  if (!isNudgePipelineRun(view)) {
    return {
      ok: false,
      reason: 'not-a-nudge',
      message: `${where} has no label ${NUDGE_TYPE_LABEL}=${NUDGE_TYPE_VALUE}`,
    };
  }
  const nudgingComponent = (view.annotations[NUDGING_COMPONENT_ANNOTATION] ?? '').trim();
  if (nudgingComponent === '') {
    return {
      ok: false,
      reason: 'missing-nudging-component',
      message: `${where}: annotation ${NUDGING_COMPONENT_ANNOTATION} is missing or empty`,
    };
  }
  const nudgedComponents = [
    ...new Set((view.annotations[NUDGED_COMPONENTS_ANNOTATION] ?? '').split(/\s+/).filter((n) => n !== '')),
  ];
  if (nudgedComponents.length === 0) {
    return {
      ok: false,
      reason: 'missing-nudged-components',
      message: `${where}: annotation ${NUDGED_COMPONENTS_ANNOTATION} is missing or empty`,
    };
  }
  const invalid = [nudgingComponent, ...nudgedComponents].find((n) => !isDns1123Label(n));
  if (invalid !== undefined) {
    return {
      ok: false,
      reason: 'invalid-component-name',
      message: `${where}: ${JSON.stringify(invalid.slice(0, 64))} is not a component name (DNS-1123 label)`,
    };
  }
  const nudgingPipeline = view.annotations[NUDGING_PIPELINE_ANNOTATION]?.trim();
  const nudgingImage = view.annotations[NUDGING_IMAGE_ANNOTATION]?.trim();
  return {
    ok: true,
    nudge: {
      pipelineRun: view,
      namespace: view.namespace,
      nudgingComponent,
      nudgedComponents,
      ...(nudgingPipeline === undefined || nudgingPipeline === '' ? {} : { nudgingPipeline }),
      ...(nudgingImage === undefined || nudgingImage === '' ? {} : { nudgingImage }),
    },
  };
}

export type BuildEventType = 'push' | 'pull-request' | 'unknown';

/** What a build PipelineRun says about the image it produced. */
export interface BuildPipelineRun {
  readonly pipelineRun: PipelineRunView;
  /** The component label (old model first, then the new model's). */
  readonly component?: string;
  readonly eventType: BuildEventType;
  readonly targetBranch?: string;
  readonly succeeded: ConditionStatus | 'absent';
  readonly imageDigest?: string;
  readonly imageUrl?: string;
}

/**
 * Push or pull request, from Pipelines-as-Code's event type (label, then annotation): `push` and
 * `incoming` are pushes, as build-service reads them; any other value is a pull-request-like event.
 * Without an event type, the `pull-request` key means a pull request.
 */
export function buildEventType(view: PipelineRunView): BuildEventType {
  const eventType = view.labels[PAC_EVENT_TYPE_KEY] ?? view.annotations[PAC_EVENT_TYPE_KEY];
  if (eventType !== undefined && eventType !== '') {
    return PUSH_EVENT_TYPES.has(eventType.toLowerCase()) ? 'push' : 'pull-request';
  }
  if (PAC_PULL_REQUEST_KEY in view.labels || PAC_PULL_REQUEST_KEY in view.annotations) return 'pull-request';
  return 'unknown';
}

const BRANCH_REF_PREFIX = 'refs/heads/';

/**
 * The branch a build ran for: Konflux's own annotation (old model, then new), else what
 * Pipelines-as-Code recorded (annotation, then label). PaC may give a full `refs/heads/` ref.
 */
function branchOf(view: PipelineRunView): string | undefined {
  const keys = [TARGET_BRANCH_ANNOTATION, TARGET_BRANCH_ANNOTATION_V2, PAC_BRANCH_KEY, PAC_SOURCE_BRANCH_KEY];
  for (const key of keys) {
    const value = (view.annotations[key] ?? view.labels[key])?.trim();
    if (value === undefined || value === '') continue;
    return value.startsWith(BRANCH_REF_PREFIX) ? value.slice(BRANCH_REF_PREFIX.length) : value;
  }
  return undefined;
}

/** Reads a build PipelineRun from a raw object, or undefined when it is not a PipelineRun at all. */
export function readBuildPipelineRun(object: unknown): BuildPipelineRun | undefined {
  const decoded = decodePipelineRun(object);
  return decoded.ok ? buildPipelineRunOf(decoded.object) : undefined;
}

/** What a decoded build PipelineRun says about the image it produced. */
export function buildPipelineRunOf(run: PipelineRun): BuildPipelineRun {
  const view = pipelineRunView(run);
  const component = view.labels[COMPONENT_LABEL] ?? view.labels[COMPONENT_LABEL_V2];
  const targetBranch = branchOf(view);
  const imageDigest = view.results[IMAGE_DIGEST_RESULT];
  const imageUrl = view.results[IMAGE_URL_RESULT];
  return {
    pipelineRun: view,
    ...(component === undefined ? {} : { component }),
    eventType: buildEventType(view),
    ...(targetBranch === undefined ? {} : { targetBranch }),
    succeeded: view.succeeded?.status ?? 'absent',
    ...(imageDigest === undefined ? {} : { imageDigest: imageDigest.trim() }),
    ...(imageUrl === undefined ? {} : { imageUrl: imageUrl.trim() }),
  };
}
