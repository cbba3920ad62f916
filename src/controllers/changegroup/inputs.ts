// What the ChangeGroup state machine needs from the caches, read without I/O: who nudges the target,
// what each nudging component's image was when the ChangeGroup started, and which nudge
// PipelineRuns this ChangeGroup holds.
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import {
  HELD_TARGETS_ANNOTATION,
  RELEASED_TARGETS_ANNOTATION,
  targetPairsOf as pairsOf,
} from '../../domain/changegroup/hold-decision.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import { nudgePipelineRunOf, type NudgePipelineRun } from '../../domain/nudge-pipelinerun.ts';
import type { Store } from '../../runtime/store.ts';
import { namespaceNudgeGraph } from '../../cluster/nudge-graph.ts';
import { compareStrings } from '../../domain/compare.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';

export { RELEASED_TARGETS_ANNOTATION } from '../../domain/changegroup/hold-decision.ts';

/** Every component with an edge to `nudged`: NudgeConfig entries and `build-nudges-ref`. */
export function nudgingComponentsOf(
  namespace: string,
  nudged: string,
  nudgeConfigs: Store<ClusterNudgeConfig>,
  components: Store<ClusterComponent>,
): string[] {
  const graph = namespaceNudgeGraph(namespace, {
    components: components.list(namespace),
    nudgeConfig: nudgeConfigs.get(namespace, NUDGE_CONFIG_NAME),
  });
  return graph.predecessors(nudged).filter((name) => name !== nudged);
}

const DIGEST_IN_REFERENCE = /@(sha256:[0-9a-f]{64})$/;

/** The digest of each named Component's `status.lastPromotedImage`, where it has one. */
export function promotedDigests(
  namespace: string,
  names: readonly string[],
  components: Store<ClusterComponent>,
): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const name of names) {
    const image = components.get(namespace, name)?.status?.lastPromotedImage;
    const digest = image === undefined ? undefined : DIGEST_IN_REFERENCE.exec(image)?.[1];
    if (digest !== undefined) digests[name] = digest;
  }
  return digests;
}

/**
 * The nudges this ChangeGroup holds for its target and has not released: the held-targets
 * annotation the webhook or sweeper wrote names `<target>=<changegroup>`.
 */
export function heldNudges(
  nudgeRuns: Store<PipelineRun>,
  changeGroup: { readonly name: string; readonly namespace: string; readonly nudgedComponent: string },
): NudgePipelineRun[] {
  const pair = `${changeGroup.nudgedComponent}=${changeGroup.name}`;
  const held: NudgePipelineRun[] = [];
  for (const run of nudgeRuns.list(changeGroup.namespace)) {
    const annotations = run.metadata?.annotations ?? {};
    if (!pairsOf(annotations[HELD_TARGETS_ANNOTATION]).has(pair)) continue;
    if (pairsOf(annotations[RELEASED_TARGETS_ANNOTATION]).has(pair)) continue;
    const reading = nudgePipelineRunOf(run);
    if (reading.ok) held.push(reading.nudge);
  }
  return held.sort((a, b) => compareStrings(a.pipelineRun.name, b.pipelineRun.name));
}

/** Which ChangeGroups a nudge PipelineRun's held-targets annotation names. */
export function changeGroupsHolding(run: KubeObject): string[] {
  const pairs = pairsOf(run.metadata?.annotations?.[HELD_TARGETS_ANNOTATION]);
  const names = [...pairs].flatMap((pair) => {
    const equals = pair.indexOf('=');
    return equals < 0 ? [] : [pair.slice(equals + 1)];
  });
  return [...new Set(names.filter((n) => n !== ''))];
}
