// Which Snapshots validate a digest (docs/decisions.md D10), pure. integration-service makes one
// Snapshot per ComponentGroup for every push build of a member, holding the group's Global
// Candidate List with the new image swapped in, and marks it `AppStudioTestSucceeded` when its
// required scenarios have run. nudger reads a Snapshot only through this module: what makes it a
// passing push Snapshot of a group, the time that orders it, and the images it carries.
import type { ClusterSnapshot } from '../../schema/snapshot.ts';

/** `component` on the Snapshots a build makes; `override` and `group` are someone else's. */
export const SNAPSHOT_TYPE_LABEL = 'test.appstudio.openshift.io/type';
export const SNAPSHOT_TYPE_COMPONENT = 'component';
export const SNAPSHOT_GROUP_LABEL = 'appstudio.openshift.io/component-group';
export const SNAPSHOT_COMPONENT_LABEL = 'appstudio.openshift.io/component';
export const SNAPSHOT_BUILD_LABEL = 'appstudio.openshift.io/build-pipelinerun';
/** The triggering build's start, in Unix time: what orders the Snapshots of one group. */
export const SNAPSHOT_START_TIME_ANNOTATION = 'test.appstudio.openshift.io/pipelinerunstarttime';
export const SNAPSHOT_WORKFLOW_ANNOTATION = 'test.appstudio.openshift.io/integration-workflow';
/** PaC's keys re-prefixed by integration-service; set on pull-request Snapshots. */
export const SNAPSHOT_PULL_REQUEST_LABEL = 'pac.test.appstudio.openshift.io/pull-request';
export const SNAPSHOT_EVENT_TYPE_LABEL = 'pac.test.appstudio.openshift.io/event-type';
export const TEST_SUCCEEDED_CONDITION = 'AppStudioTestSucceeded';
/** Read when the current name is absent, as integration-service does. */
export const LEGACY_TEST_SUCCEEDED_CONDITION = 'HACBSStudioTestSucceeded';
export const INTEGRATION_STATUS_CONDITION = 'AppStudioIntegrationStatus';
/** AppStudioIntegrationStatus reasons that void a Snapshot whatever its test condition says. */
const VOIDING_REASONS: ReadonlySet<string> = new Set(['Canceled', 'Invalid']);

const PINNED_IMAGE = /^[^@\s]+@sha256:[0-9a-f]{64}$/;

/** A push Snapshot of a group that passed: what a validated nudge may take its digests from. */
export interface PassingSnapshot {
  readonly name: string;
  readonly group: string;
  /** `pipelinerunstarttime`, as written (Unix seconds upstream): only compared, never converted. */
  readonly startTime: number;
  /** Member -> `repo@sha256:…`, for members whose image is pinned by digest. */
  readonly images: ReadonlyMap<string, string>;
  /** The member whose build made it (label), if named. */
  readonly component?: string;
  /** That build PipelineRun (label), if named. */
  readonly buildPipelineRun?: string;
}

export const SNAPSHOT_IGNORED = [
  'not-a-component-snapshot',
  'pull-request',
  'no-group',
  'not-finished',
  'failed',
  'voided',
  'no-start-time',
] as const;
export type SnapshotIgnored = (typeof SNAPSHOT_IGNORED)[number];

export type SnapshotReading =
  | { readonly kind: 'passing'; readonly snapshot: PassingSnapshot }
  | { readonly kind: 'ignored'; readonly reason: SnapshotIgnored };

type Conditions = NonNullable<NonNullable<ClusterSnapshot['status']>['conditions']>;

function conditionOf(conditions: Conditions, type: string) {
  return conditions.find((condition) => condition.type === type);
}

function isPushSnapshot(snapshot: ClusterSnapshot): boolean {
  const workflow = snapshot.metadata?.annotations?.[SNAPSHOT_WORKFLOW_ANNOTATION];
  if (workflow !== undefined) return workflow === 'push';
  const labels = snapshot.metadata?.labels ?? {};
  const eventType = labels[SNAPSHOT_EVENT_TYPE_LABEL];
  return (
    labels[SNAPSHOT_PULL_REQUEST_LABEL] === undefined && eventType !== 'pull_request' && eventType !== 'Merge_Request'
  );
}

/** The gating group a Snapshot belongs to: its spec, else its label (older integration-service). */
export function snapshotGroup(snapshot: ClusterSnapshot): string | undefined {
  const group = snapshot.spec?.componentGroup ?? snapshot.metadata?.labels?.[SNAPSHOT_GROUP_LABEL];
  return group === undefined || group === '' ? undefined : group;
}

/** Only integers count: a value that is not one orders nothing. */
function startTimeOf(snapshot: ClusterSnapshot): number | undefined {
  const text = snapshot.metadata?.annotations?.[SNAPSHOT_START_TIME_ANNOTATION];
  if (text === undefined || !/^[0-9]{1,16}$/.test(text)) return undefined;
  return Number(text);
}

/**
 * D10's predicate: a `component` push Snapshot of a group whose tests passed and that was neither
 * cancelled nor found invalid. Anything else fires nothing, with the reason why.
 */
export function readSnapshot(snapshot: ClusterSnapshot): SnapshotReading {
  const labels = snapshot.metadata?.labels ?? {};
  if (labels[SNAPSHOT_TYPE_LABEL] !== SNAPSHOT_TYPE_COMPONENT) return ignored('not-a-component-snapshot');
  if (!isPushSnapshot(snapshot)) return ignored('pull-request');
  const group = snapshotGroup(snapshot);
  if (group === undefined) return ignored('no-group');
  const conditions = snapshot.status?.conditions ?? [];
  const integration = conditionOf(conditions, INTEGRATION_STATUS_CONDITION);
  if (integration?.reason !== undefined && VOIDING_REASONS.has(integration.reason)) return ignored('voided');
  const tests =
    conditionOf(conditions, TEST_SUCCEEDED_CONDITION) ?? conditionOf(conditions, LEGACY_TEST_SUCCEEDED_CONDITION);
  if (tests === undefined || tests.status === 'Unknown') return ignored('not-finished');
  if (tests.status !== 'True') return ignored('failed');
  const startTime = startTimeOf(snapshot);
  if (startTime === undefined) return ignored('no-start-time');
  const images = new Map<string, string>();
  for (const { name, containerImage } of snapshot.spec?.components ?? []) {
    if (PINNED_IMAGE.test(containerImage) && !images.has(name)) images.set(name, containerImage);
  }
  const component = labels[SNAPSHOT_COMPONENT_LABEL];
  const buildPipelineRun = labels[SNAPSHOT_BUILD_LABEL];
  return {
    kind: 'passing',
    snapshot: {
      name: snapshot.metadata?.name ?? '',
      group,
      startTime,
      images,
      ...(component === undefined || component === '' ? {} : { component }),
      ...(buildPipelineRun === undefined || buildPipelineRun === '' ? {} : { buildPipelineRun }),
    },
  };
}

function ignored(reason: SnapshotIgnored): SnapshotReading {
  return { kind: 'ignored', reason };
}

/** Newer first: the start time, then the name, so that equal times still order one way everywhere. */
export function isNewerSnapshot(
  a: Pick<PassingSnapshot, 'name' | 'startTime'>,
  b: Pick<PassingSnapshot, 'name' | 'startTime'>,
): boolean {
  return a.startTime !== b.startTime ? a.startTime > b.startTime : a.name > b.name;
}
