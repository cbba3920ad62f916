// What the dispatcher did (docs/decisions.md D9, N18), for dashboards and alerts: final outcomes per
// (build, target) by executor, how long fires take, and every failed attempt by reason. Counted
// when the marker write that records them succeeded, so a write lost to a conflict or a crash is
// counted by the decision that writes it again, once. And the renovate executor's nudge runs that
// failed after their fire succeeded (docs/decisions.md N24), counted with the Event that tells them.
import type { Counter, Histogram } from 'prom-client';
import { counter, histogram, type Registry } from '../../runtime/metrics.ts';

/** Final outcomes: the marker's final states (docs/decisions.md N18). */
export type NudgeOutcome = 'pullRequest' | 'held' | 'failed' | 'skipped';

export interface DispatchMetrics {
  readonly nudges: Counter<'executor' | 'outcome'>;
  readonly fireDuration: Histogram<'executor'>;
  readonly failedAttempts: Counter<'executor' | 'reason'>;
  /**
   * The renovate executor's nudge PipelineRuns that ended Succeeded=False, by Tekton's reason
   * (docs/decisions.md N24). Not failedAttempts: that counts fires the dispatcher retries, and this
   * run's fire already counted as a pullRequest outcome; a run failure is after both, and nothing
   * retries it. Counted with the Event that tells it, once per run.
   */
  readonly nudgeRunsFailed: Counter<'reason'>;
}

/** A Renovate run is created in well under a second; the direct executor clones and pushes. */
const FIRE_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export function dispatchMetrics(registry: Registry): DispatchMetrics {
  return {
    nudges: counter(registry, {
      name: 'nudger_nudges_total',
      help: 'Nudges of one target from one build that reached a final outcome (pullRequest, held, failed, skipped), by executor; a build nudged from not at all counts once, as skipped',
      labelNames: ['executor', 'outcome'],
    }),
    fireDuration: histogram(registry, {
      name: 'nudger_nudge_fire_duration_seconds',
      help: 'How long one executor call (one attempt to nudge one target) took',
      labelNames: ['executor'],
      buckets: FIRE_BUCKETS_SECONDS,
    }),
    failedAttempts: counter(registry, {
      name: 'nudger_nudge_failed_attempts_total',
      help: 'Attempts to nudge a target that failed (each retry counts), by executor and reason',
      labelNames: ['executor', 'reason'],
    }),
    nudgeRunsFailed: counter(registry, {
      name: 'nudger_nudge_runs_failed_total',
      help: "The renovate executor's nudge PipelineRuns that ended Succeeded=False, by Tekton's reason; each told once as ComponentNudgeFailed",
      labelNames: ['reason'],
    }),
  };
}
