// docs/decisions.md D3 for the dispatcher: a build it fires from is checked exactly as a build a held
// nudge names, by the same function, as if a nudge of its own component named it. Nothing is taken
// from a label that the D3 checks do not confirm against the Component.
import { verifyNudgeBuild, type BuildVerification, type NudgingComponentFacts } from '../changegroup/verify-build.ts';
import { COMPONENT_LABEL, COMPONENT_LABEL_V2, pipelineRunView, type NudgePipelineRun } from '../nudge-pipelinerun.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';

/**
 * D3 verification of a build PipelineRun the dispatcher was woken by; `component` is what its
 * Component (named by the build's component label) says, or undefined when it does not exist.
 */
export function verifyDispatchBuild(
  build: PipelineRun,
  component: NudgingComponentFacts | undefined,
  event: 'push' | 'pull-request' = 'push',
): BuildVerification {
  const view = pipelineRunView(build);
  const asNamedByNudge: NudgePipelineRun = {
    pipelineRun: view,
    namespace: view.namespace,
    nudgingComponent: view.labels[COMPONENT_LABEL] ?? view.labels[COMPONENT_LABEL_V2] ?? '',
    nudgedComponents: [],
    nudgingPipeline: view.name,
  };
  return verifyNudgeBuild(asNamedByNudge, build, component, event);
}
