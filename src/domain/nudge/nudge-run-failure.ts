// A renovate nudge that fails inside its run is told, once (docs/decisions.md N24, D9 "never in
// silence"). The dispatcher's marker says `pullRequest` as soon as the renovate executor created
// the nudge PipelineRun; whether Renovate then succeeds is Tekton's to report, and a run that ends
// `Succeeded=False` (a token the forge refuses, a forge that is down, a private image Renovate may
// not look up) would otherwise leave no trace but the run itself. This decides, from the run
// alone, whether it is such a failure and what to tell: a Warning `ComponentNudgeFailed` on the
// nudging Component, as build-service names a failed nudge, and a metric label. Nothing is fired
// again: Renovate's own retry is the nudging component's next build.
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import {
  NUDGED_COMPONENTS_ANNOTATION,
  NUDGE_TYPE_LABEL,
  NUDGE_TYPE_VALUE,
  NUDGING_COMPONENT_ANNOTATION,
  NUDGING_PIPELINE_ANNOTATION,
  pipelineRunView,
} from '../nudge-pipelinerun.ts';
import { redactSecretShapes } from '../secret-shapes.ts';
import { DISPATCHED_FROM_ANNOTATION } from './dispatch-held-record.ts';
import { RENOVATE_PIPELINERUN_PREFIX, batchRunOf, type BatchRunReading } from './renovate-pipelinerun.ts';

/**
 * Written on the run once its failure was told: the Event that tells it expires (the API server's
 * --event-ttl), the run stays until it is pruned, and a failure must not be told again every time
 * the run is met after that (a restart, a resync).
 */
export const FAILURE_REPORTED_ANNOTATION = 'nudger.konflux-ci.dev/failure-reported';

/**
 * The renovate executor's runs: `renovate-pipeline-<dispatch key>`, 16 hex digits
 * (renovatePipelineRunName of dispatchKey). build-service names its runs
 * `renovate-pipeline-<unix time>-<5 random>` and integration-service `renovate-pipeline-<12 hex>`
 * (src/domain/changegroup/integration-service-leftovers.ts): theirs are their own to report.
 */
const EXECUTOR_RUN_NAME = new RegExp(`^${RENOVATE_PIPELINERUN_PREFIX}[0-9a-f]{16}$`);

/** Tekton's reasons for a run someone stopped (the webhook holding it, a human): not a failure. */
const STOPPED_REASONS: ReadonlySet<string> = new Set([
  'Cancelled',
  'PipelineRunCancelled',
  'CancelledRunningFinally',
  'StoppedRunningFinally',
]);

/** Tekton's reasons are CamelCase words; anything else is not let into a metric label. */
const METRIC_REASON = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
/** The condition message quoted in the Event; the Event's own limit (1 KiB) cuts the rest. */
const MAX_DETAIL_CHARS = 600;

export interface NudgeRunFailure {
  readonly namespace: string;
  /**
   * The Component the Event is on: the nudging one, as build-service tells a failed nudge; for a
   * validated batch (docs/decisions.md N29) its target, the one Component the whole batch is about,
   * so that a batch is told once and not once per component.
   */
  readonly component: string;
  /** Told once per run (src/controllers/dispatch/once-events.ts). */
  readonly fact: readonly string[];
  /** Tekton's reason as a metric label: CamelCase, `Unknown` when there is none, else `Other`. */
  readonly metricReason: string;
  /** The Event's message: the target, the build, the run, Tekton's reason and redacted message. */
  readonly message: string;
}

/** A nudge PipelineRun the renovate executor created (label, name, and no held-nudge record). */
export function isRenovateExecutorRun(run: PipelineRun): boolean {
  const metadata = run.metadata ?? {};
  return (
    metadata.labels?.[NUDGE_TYPE_LABEL] === NUDGE_TYPE_VALUE &&
    EXECUTOR_RUN_NAME.test(metadata.name ?? '') &&
    metadata.annotations?.[DISPATCHED_FROM_ANNOTATION] === undefined
  );
}

function conditionMessage(run: PipelineRun): string {
  const condition = run.status?.conditions?.find((c) => c.type === 'Succeeded');
  const message: unknown = (condition as Record<string, unknown> | undefined)?.message;
  if (typeof message !== 'string' || message.trim() === '') return 'no message';
  const flat = message.replace(/\s+/g, ' ').trim();
  // Redacted before it is cut, so that a cut never leaves half a secret unrecognised.
  const redacted = redactSecretShapes(flat);
  return redacted.length > MAX_DETAIL_CHARS ? `${redacted.slice(0, MAX_DETAIL_CHARS - 1)}…` : redacted;
}

/**
 * What to tell about `run`, or undefined when there is nothing to tell: not the renovate executor's
 * run, not finished with `Succeeded=False`, stopped on purpose, or already told.
 */
export function nudgeRunFailure(run: PipelineRun): NudgeRunFailure | undefined {
  if (!isRenovateExecutorRun(run)) return undefined;
  const view = pipelineRunView(run);
  if (view.annotations[FAILURE_REPORTED_ANNOTATION] !== undefined) return undefined;
  if (view.succeeded?.status !== 'False') return undefined;
  // spec.status Cancelled, CancelledRunFinally or StoppedRunFinally: stopped, not failed.
  if (view.specStatus !== '' && view.specStatus !== 'PipelineRunPending') return undefined;
  const reason = view.succeeded.reason ?? '';
  if (STOPPED_REASONS.has(reason)) return undefined;
  const shownReason = reason === '' ? 'Unknown' : reason;
  const ended = `PipelineRun ${view.name} ended ${redactSecretShapes(shownReason)}: ${conditionMessage(run)}`;
  const told = {
    namespace: view.namespace,
    fact: ['nudge-run-failed', view.namespace, view.uid ?? view.name],
    metricReason: reason === '' ? 'Unknown' : METRIC_REASON.test(reason) ? reason : 'Other',
  };
  const batch = batchRunOf(view.annotations);
  if (batch !== undefined) {
    const target = view.annotations[NUDGED_COMPONENTS_ANNOTATION]?.trim() ?? '';
    if (target === '') return undefined;
    return { ...told, component: target, message: batchFailureMessage(target, batch, ended) };
  }
  const nudging = view.annotations[NUDGING_COMPONENT_ANNOTATION] ?? '';
  if (nudging === '') return undefined;
  const targets = view.annotations[NUDGED_COMPONENTS_ANNOTATION] ?? 'its target';
  const build = view.annotations[NUDGING_PIPELINE_ANNOTATION] ?? 'unknown';
  return {
    ...told,
    component: nudging,
    message:
      `nudge of ${targets} from build ${build} failed in its Renovate run: ${ended}. nudger does not run it ` +
      `again; the next build of ${nudging} nudges ${targets} anew`,
  };
}

/**
 * A validated batch names every component with its build and Snapshot. The run is not run again
 * and the validated record says these digests were nudged: each component's next validated digest
 * nudges the target anew.
 */
function batchFailureMessage(target: string, batch: BatchRunReading, ended: string): string {
  const components = batch.components
    .map(
      (c) =>
        `${c.component} (build ${c.build === '' ? 'unknown' : c.build}, Snapshot ${c.snapshot === '' ? 'unknown' : c.snapshot})`,
    )
    .join(', ');
  return (
    `validated nudge of ${target} from ${components === '' ? 'its components' : components}, gated by ` +
    `${batch.gatingGroup}, failed in its Renovate run: ${ended}. nudger does not run it again; the next ` +
    `validated digest of each of these components nudges ${target} anew`
  );
}
