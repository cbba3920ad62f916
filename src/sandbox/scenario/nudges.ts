// What nudger's dispatcher did with each build of a scenario, for `--output json` (`nudges`): read
// from the done-marker on the build PipelineRun (docs/decisions.md N18), the dispatcher's one
// record of every target and its outcome, and nothing else. Pure: the caller reads the markers
// and finds each edge's pull request on the forge.
import {
  BUILD_ENTRY,
  isFinal,
  isSettled,
  parseMarker,
  type DispatchMarker,
  type MarkerEntry,
} from '../../domain/nudge/dispatch-marker.ts';
import type { DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import type { NudgeResult } from './result.ts';

/** One build the sandbox recorded, and what its PipelineRun carries now. */
export interface ObservedBuild {
  /** The build PipelineRun's name. */
  readonly build: string;
  /** The nudging component. */
  readonly component: string;
  /** The pushed digest; null when the build failed and pushed nothing. */
  readonly digest: string | null;
  /** The scenario's targets of the component: what a `*` entry (the whole build skipped) covers. */
  readonly targets: readonly string[];
  /** The `nudger.konflux-ci.dev/nudges` annotation; undefined when the dispatcher wrote none. */
  readonly marker: string | undefined;
}

export class MarkerReadError extends Error {
  override readonly name = 'MarkerReadError';
  readonly build: string;
  constructor(build: string, message: string) {
    super(`build PipelineRun ${build}: ${message}`);
    this.build = build;
  }
}

/** The marker of `build`, read; a marker the dispatcher itself cannot read is an error, not "nothing". */
export function readBuildMarker(build: string, text: string | undefined): DispatchMarker | undefined {
  if (text === undefined) return undefined;
  const reading = parseMarker(text);
  if (!reading.ok) throw new MarkerReadError(build, reading.problem.message);
  return reading.marker;
}

/**
 * Every target the dispatcher reached a final outcome for, in marker order (targets sorted). A
 * `*` entry stands for every target of the build. Entries still in flight (holding, firing,
 * retry) are left out: the sandbox reads results only once every marker has settled.
 */
export function nudgesOfBuild(
  observed: ObservedBuild,
  executor: DispatchExecutor,
  pullRequestUrl: (from: string, to: string) => string | null,
): NudgeResult[] {
  const marker = readBuildMarker(observed.build, observed.marker);
  if (marker === undefined) return [];
  const result = (entry: MarkerEntry, to: string): NudgeResult[] => {
    const { state } = entry;
    if (!isFinal(state)) return [];
    const base = {
      build: observed.build,
      from: observed.component,
      to,
      digest: observed.digest,
      executor,
      mode: 'immediate' as const,
      event: 'push' as const,
      snapshot: null,
    };
    switch (state.kind) {
      case 'pullRequest':
        return [{ ...base, outcome: 'pullRequest', pullRequest: pullRequestUrl(observed.component, to), heldBy: null }];
      case 'held':
        return [{ ...base, outcome: 'held', pullRequest: null, heldBy: state.changeGroup }];
      case 'failed':
      case 'skipped':
        return [{ ...base, outcome: state.kind, reason: state.reason, pullRequest: null, heldBy: null }];
      /* node:coverage ignore next 2 */
      default:
        return [];
    }
  };
  return marker.entries.flatMap((entry) =>
    entry.name === BUILD_ENTRY
      ? [...observed.targets].sort().flatMap((to) => result(entry, to))
      : result(entry, entry.name),
  );
}

/**
 * Whether the dispatcher is done with a build: a readable marker, every entry final, and every
 * target of the build named (or the build skipped as a whole). Throws MarkerReadError for a marker
 * it cannot read, since the dispatcher never rewrites one (it waits for a human).
 */
export function dispatchSettled(build: string, targets: readonly string[], text: string | undefined): boolean {
  const marker = readBuildMarker(build, text);
  if (marker === undefined) return false;
  if (!isSettled(marker)) return false;
  const named = new Set(marker.entries.map((entry) => entry.name));
  return named.has(BUILD_ENTRY) || targets.every((target) => named.has(target));
}
