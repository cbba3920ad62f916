// What the dashboard's views are rendered from (docs/decisions.md D14): the decoded objects the
// manager's informer caches hold, one namespace at a time, plus the namespace's nudge graph as the
// one graph function derived it (src/cluster/nudge-graph.ts; the dashboard server computes it, a
// view never walks `spec.nudges` itself). Views are pure functions of these and of `now`, so the
// same inputs always render the same HTML: the live updates send a view again only when it changed.
import type { ClusterChangeGroup } from '../../schema/changegroup.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { BuildWorkload, CFApp, CFBuild } from '../../schema/korifi.ts';
import type { KpackBuilder, KpackClusterBuilder, KpackImage } from '../../schema/kpack.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { NamespaceGraph } from '../graph.ts';

/** One namespace's Konflux state, as the caches hold it now. */
export interface NamespaceSnapshot {
  readonly namespace: string;
  readonly components: readonly ClusterComponent[];
  /** Its NudgeConfig (`nudge-config`), absent when it has none. */
  readonly nudgeConfig: ClusterNudgeConfig | undefined;
  /** Derived by namespaceNudgeGraph from the two above. */
  readonly graph: NamespaceGraph;
  readonly changeGroups: readonly ClusterChangeGroup[];
  /** Push build PipelineRuns (slimmed, with the dispatcher's marker annotation); empty when not watched. */
  readonly buildRuns: readonly PipelineRun[];
  /** Nudge PipelineRuns, held-nudge records among them; empty when not watched. */
  readonly nudgeRuns: readonly PipelineRun[];
}

/** One CF space's Korifi state (only when the korifi controllers run). */
export interface KorifiSnapshot {
  readonly namespace: string;
  readonly apps: readonly CFApp[];
  readonly builds: readonly CFBuild[];
  readonly buildWorkloads: readonly BuildWorkload[];
  readonly images: readonly KpackImage[];
  readonly builders: readonly KpackBuilder[];
  /** Cluster-scoped: the same list for every space. */
  readonly clusterBuilders: readonly KpackClusterBuilder[];
}

/** Rendering context every view gets. */
export interface ViewContext {
  /** Milliseconds since the epoch, for "time since start" and ages. */
  readonly now: number;
  /** Whether the korifi controllers run (the Korifi view and its link are shown only then). */
  readonly korifi: boolean;
}
