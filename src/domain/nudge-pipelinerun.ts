// Reading Tekton PipelineRuns the way Konflux writes them (build-service,
// integration-service and Pipelines-as-Code, all under github.com/konflux-ci and openshift-pipelines): nudge PipelineRuns made by build-service or
// integration-service, and the build PipelineRuns they name. Input is plain JSON from the API server
// or an AdmissionReview, so nothing is assumed about its shape; v1 and v1beta1 are both read.
import { isDns1123Label } from './labels.ts';

export const TEKTON_GROUP = 'tekton.dev';

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

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringMap(value: unknown): Readonly<Record<string, string>> {
  if (!isRecord(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v;
  return out;
}

function stringAt(object: Json | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' ? value : undefined;
}

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

function readSucceeded(status: Json | undefined): PipelineRunView['succeeded'] {
  const conditions = status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  for (const condition of conditions as unknown[]) {
    if (!isRecord(condition) || condition.type !== 'Succeeded') continue;
    const value = condition.status;
    if (value !== 'True' && value !== 'False' && value !== 'Unknown') return undefined;
    const reason = stringAt(condition, 'reason');
    return reason === undefined ? { status: value } : { status: value, reason };
  }
  return undefined;
}

function readResults(status: Json | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of ['results', 'pipelineResults']) {
    const list = status?.[field];
    if (!Array.isArray(list)) continue;
    for (const item of list as unknown[]) {
      // Array- and object-valued results exist; the ones nudger reads are strings.
      if (isRecord(item) && typeof item.name === 'string' && typeof item.value === 'string') {
        out[item.name] ??= item.value;
      }
    }
  }
  return out;
}

/** A PipelineRun view, or undefined when `object` is not a named tekton.dev PipelineRun. */
export function readPipelineRun(object: unknown): PipelineRunView | undefined {
  if (!isRecord(object) || object.kind !== 'PipelineRun') return undefined;
  const apiVersion = stringAt(object, 'apiVersion') ?? '';
  if (!apiVersion.startsWith(`${TEKTON_GROUP}/`)) return undefined;
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  // Admission requests may carry generateName only; the name is then assigned after the webhook.
  const name = stringAt(metadata, 'name') ?? stringAt(metadata, 'generateName') ?? '';
  const spec = isRecord(object.spec) ? object.spec : undefined;
  const status = isRecord(object.status) ? object.status : undefined;
  const uid = stringAt(metadata, 'uid');
  const creationTimestamp = stringAt(metadata, 'creationTimestamp');
  const succeeded = readSucceeded(status);
  const startTime = stringAt(status, 'startTime');
  return {
    apiVersion,
    name,
    namespace: stringAt(metadata, 'namespace') ?? '',
    ...(uid === undefined ? {} : { uid }),
    ...(creationTimestamp === undefined ? {} : { creationTimestamp }),
    labels: stringMap(metadata.labels),
    annotations: stringMap(metadata.annotations),
    specStatus: stringAt(spec, 'status') ?? '',
    ...(succeeded === undefined ? {} : { succeeded }),
    ...(startTime === undefined ? {} : { startTime }),
    results: readResults(status),
  };
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

/** Reads a nudge PipelineRun, or says why `object` is not a usable one. */
export function readNudgePipelineRun(object: unknown): NudgeReading {
  const view = readPipelineRun(object);
  if (view === undefined) return { ok: false, reason: 'not-a-pipelinerun', message: 'not a tekton.dev PipelineRun' };
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

/** Reads a build PipelineRun, or undefined when `object` is not a PipelineRun at all. */
export function readBuildPipelineRun(object: unknown): BuildPipelineRun | undefined {
  const view = readPipelineRun(object);
  if (view === undefined) return undefined;
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
