// What the ChangeGroup controller did, for dashboards and alerts: pushes (and which were final,
// i.e. started the one build), phase changes, nudges handed back to ordinary nudging, and why
// reconciles failed. Counted when confirmed, so a retried intent counts once it succeeds.
import { counter, type Registry } from '../../runtime/metrics.ts';
import type { Counter } from 'prom-client';

export interface ChangeGroupMetrics {
  readonly pushes: Counter<'final'>;
  readonly phaseTransitions: Counter<'phase'>;
  readonly nudgesReleased: Counter;
  readonly errors: Counter<'reason'>;
}

export function changeGroupMetrics(registry: Registry): ChangeGroupMetrics {
  return {
    pushes: counter(registry, {
      name: 'nudger_changegroup_pushes_total',
      help: 'Pushes of ChangeGroup pull request branches; final="true" is the push that starts the one build',
      labelNames: ['final'],
    }),
    phaseTransitions: counter(registry, {
      name: 'nudger_changegroup_phase_transitions_total',
      help: 'ChangeGroup status.phase changes written, by the phase entered',
      labelNames: ['phase'],
    }),
    nudgesReleased: counter(registry, {
      name: 'nudger_changegroup_nudges_released_total',
      help: 'Held nudges handed back to ordinary nudging (component removed, ChangeGroup ended or deleted)',
    }),
    errors: counter(registry, {
      name: 'nudger_changegroup_reconcile_errors_total',
      help: 'ChangeGroup reconciles that failed, by reason (ForgeError, GitError, NoForge, BranchMoved, ...)',
      labelNames: ['reason'],
    }),
  };
}
