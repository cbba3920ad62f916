// Which cache events wake the dispatcher's controllers (docs/decisions.md N22): most updates of
// the kinds they watch change nothing they read (a Component's status moves on every build, a
// build's on every task), so each watch says what counts.
import { buildPipelineRunOf } from '../../domain/nudge-pipelinerun.ts';
import { generationChanged } from '../../runtime/controller.ts';
import type { ClusterChangeGroup } from '../../schema/changegroup.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import { EXECUTOR_ANNOTATION } from './inputs.ts';
import { PRE_MERGE_ANNOTATION } from './pre-merge-inputs.ts';

export { generationChanged } from '../../runtime/controller.ts';

/** The entries (generation), the executor and the pre-merge opt-in. */
export function nudgeConfigChanged(previous: ClusterNudgeConfig, current: ClusterNudgeConfig): boolean {
  const annotation = (config: ClusterNudgeConfig, key: string) => config.metadata?.annotations?.[key];
  return (
    generationChanged(previous, current) ||
    annotation(previous, EXECUTOR_ANNOTATION) !== annotation(current, EXECUTOR_ANNOTATION) ||
    annotation(previous, PRE_MERGE_ANNOTATION) !== annotation(current, PRE_MERGE_ANNOTATION)
  );
}

/** The D2 decision reads a ChangeGroup's spec and its phase (active or not). */
export function changeGroupChanged(previous: ClusterChangeGroup, current: ClusterChangeGroup): boolean {
  return generationChanged(previous, current) || previous.status?.phase !== current.status?.phase;
}

/** A build matters to validated and pre-merge nudges once it ends: then its digest can be verified. */
export function buildSucceededChanged(previous: PipelineRun, current: PipelineRun): boolean {
  return buildPipelineRunOf(previous).succeeded !== buildPipelineRunOf(current).succeeded;
}
