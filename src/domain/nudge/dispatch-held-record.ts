// A held target's build reaches its ChangeGroup through the one record of held nudges the webhook
// path already writes (docs/decisions.md D2, D9): a cancelled nudge PipelineRun in build-service's
// shape whose hold annotations name `<target>=<changegroup>`. The ChangeGroup controller lists
// those (src/controllers/changegroup/inputs.ts heldNudges) and verifies the build each names (D3),
// so a build the dispatcher holds is collected exactly like one the webhook held. One record per
// (build, target), named from both, so creating it again after a crash finds it already there.
import { fingerprint } from '../changegroup/fingerprint.ts';
import { holdAnnotations } from '../changegroup/hold-decision.ts';
import {
  NUDGED_COMPONENTS_ANNOTATION,
  NUDGE_TYPE_LABEL,
  NUDGE_TYPE_VALUE,
  NUDGING_COMPONENT_ANNOTATION,
  NUDGING_IMAGE_ANNOTATION,
  NUDGING_PIPELINE_ANNOTATION,
} from '../nudge-pipelinerun.ts';

/**
 * On a held-nudge record the dispatcher created: the build PipelineRun it stands for. Tells it
 * apart from a cancelled build-service or integration-service run, which has a Renovate task to
 * re-run; a record has none, so whoever releases it must hand the target back to the dispatcher.
 */
export const DISPATCHED_FROM_ANNOTATION = 'nudger.konflux-ci.dev/dispatched-from';

/** The build as the dispatcher names it. */
export interface BuildIdentity {
  readonly namespace: string;
  readonly name: string;
  /** metadata.uid: a rebuilt PipelineRun of the same name is another build. */
  readonly uid?: string;
}

/**
 * A stable key of one (build, target) pair, 16 hex characters: the same on every replica and
 * after every restart, so an executor that names what it creates by it (the renovate executor's
 * PipelineRun, for instance) creates it once.
 */
export function dispatchKey(build: BuildIdentity, target: string): string {
  return fingerprint([build.namespace, build.uid ?? build.name, target]);
}

/** PipelineRun names become the `tekton.dev/pipelineRun` label of their TaskRuns: 63 at most. */
const NAME_LIMIT = 63;

/**
 * `<build name, shortened>-held-<key>`, a DNS-1123 label: a build name is a DNS-1123 subdomain,
 * whose dots a label does not allow, so they become hyphens (the key keeps names distinct).
 */
export function heldRecordName(build: BuildIdentity, target: string): string {
  const suffix = `-held-${dispatchKey(build, target)}`;
  const prefix = build.name
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, NAME_LIMIT - suffix.length)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return prefix === '' ? `nudge${suffix}` : `${prefix}${suffix}`;
}

/** What the controller creates: a PipelineRun with these and `spec.status: Cancelled`. */
export interface HeldNudgeRecord {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export function heldNudgeRecord(
  build: BuildIdentity,
  nudgingComponent: string,
  target: string,
  changeGroup: string,
  /** The build's IMAGE_URL (`<repository>:<tag>`), when verified: the ChangeGroup checks it again. */
  imageUrl: string | undefined,
): HeldNudgeRecord {
  const nudge = { namespace: build.namespace, nudgingComponent, nudgedComponents: [target] };
  return {
    namespace: build.namespace,
    name: heldRecordName(build, target),
    labels: { [NUDGE_TYPE_LABEL]: NUDGE_TYPE_VALUE },
    annotations: {
      [NUDGING_COMPONENT_ANNOTATION]: nudgingComponent,
      [NUDGED_COMPONENTS_ANNOTATION]: target,
      [NUDGING_PIPELINE_ANNOTATION]: build.name,
      ...(imageUrl === undefined ? {} : { [NUDGING_IMAGE_ANNOTATION]: imageUrl }),
      ...holdAnnotations(nudge, [{ changeGroup, target }], []),
      [DISPATCHED_FROM_ANNOTATION]: build.name,
    },
  };
}
