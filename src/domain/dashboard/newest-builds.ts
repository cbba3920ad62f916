// What the dispatcher last did for each component (docs/decisions.md D14, N18): of a component's
// push builds, the newest one that carries the dispatcher's done-marker, read by the marker's own
// parser. The namespaces view counts its `pullRequest` targets; the marker says a nudge PR was
// opened or updated for that build, not whether it is still open, so the count is labelled as what
// it is. A newer build without a marker yet (still running, or not dispatched) does not hide the
// last one that was dispatched.
import { compareStrings } from '../compare.ts';
import { buildPipelineRunOf, type BuildPipelineRun } from '../nudge-pipelinerun.ts';
import { BUILD_ENTRY, DISPATCH_MARKER_ANNOTATION, parseMarker, type MarkerReading } from '../nudge/dispatch-marker.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';

/** A component's newest push build with a dispatcher marker, and that marker as read. */
export interface MarkedBuild {
  readonly component: string;
  readonly build: BuildPipelineRun;
  /** The marker's reading: a value the parser refuses is a problem, never "nothing done". */
  readonly reading: MarkerReading;
}

/** When a build was created (ms), for ordering; a build without a time sorts first. */
export function createdAt(build: BuildPipelineRun): number {
  const { creationTimestamp, startTime } = build.pipelineRun;
  const ms = Date.parse(creationTimestamp ?? startTime ?? '');
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

/** Whether `candidate` is a newer build than `current` (creation time, then name): one order for every view. */
export function isNewer(candidate: BuildPipelineRun, current: BuildPipelineRun): boolean {
  const order = createdAt(candidate) - createdAt(current);
  // Same second (or no time): the name decides, so the answer never depends on list order.
  if (order !== 0 && !Number.isNaN(order)) return order > 0;
  return compareStrings(candidate.pipelineRun.name, current.pipelineRun.name) > 0;
}

/** Per component (sorted by name), its newest push build that carries the marker. */
export function newestMarkedBuilds(buildRuns: readonly PipelineRun[]): ReadonlyMap<string, MarkedBuild> {
  const newest = new Map<string, BuildPipelineRun>();
  for (const run of buildRuns) {
    const build = buildPipelineRunOf(run);
    const { component } = build;
    if (component === undefined || build.eventType !== 'push') continue;
    if (build.pipelineRun.annotations[DISPATCH_MARKER_ANNOTATION] === undefined) continue;
    const current = newest.get(component);
    if (current === undefined || isNewer(build, current)) newest.set(component, build);
  }
  const result = new Map<string, MarkedBuild>();
  for (const [component, build] of [...newest].sort(([a], [b]) => compareStrings(a, b))) {
    const reading = parseMarker(build.pipelineRun.annotations[DISPATCH_MARKER_ANNOTATION] ?? '');
    result.set(component, { component, build, reading });
  }
  return result;
}

/** The targets (not the build entry) a readable marker records as `pullRequest`. */
export function pullRequestTargets(reading: MarkerReading): readonly string[] {
  if (!reading.ok) return [];
  return reading.marker.entries
    .filter((entry) => entry.name !== BUILD_ENTRY && entry.state.kind === 'pullRequest')
    .map((entry) => entry.name);
}
