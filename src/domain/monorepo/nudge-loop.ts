// Nudge loops in monorepos (issue 12, docs/decisions.md D11, N33): when the files a nudge pull
// request changes match the nudging component's own push `pathChanged()` globs, merging the nudge
// rebuilds the nudging image, which nudges again. Pure: given the changed paths and the reading of
// the nudging component's push PipelineRun.
import { matchingGlobs, type PathChangedReading } from './path-changed.ts';

export interface NudgeLoopMatch {
  readonly path: string;
  /** The globs of the expression the path matches (empty when the expression is not understood). */
  readonly globs: readonly string[];
}

export type NudgeLoopVerdict =
  /** No changed path starts the nudging component's push build. */
  | { readonly kind: 'none' }
  /** These paths match these globs: merging the nudge rebuilds the nudging component. */
  | { readonly kind: 'loop'; readonly matches: readonly NudgeLoopMatch[] }
  /** The expression was not understood, so every changed path may start the build. */
  | { readonly kind: 'may-loop'; readonly paths: readonly string[]; readonly reason: string };

/** Whether a nudge PR changing `changedPaths` would start the nudging component's push build. */
export function detectNudgeLoop(changedPaths: readonly string[], nudgingPush: PathChangedReading): NudgeLoopVerdict {
  const paths = [...new Set(changedPaths)].sort();
  if (paths.length === 0) return { kind: 'none' };
  if (!nudgingPush.understood) {
    return { kind: 'may-loop', paths, reason: nudgingPush.reason ?? 'the expression was not understood' };
  }
  const matches = paths
    .map((path) => ({ path, globs: matchingGlobs(nudgingPush, path) }))
    .filter((match) => match.globs.length > 0);
  return matches.length === 0 ? { kind: 'none' } : { kind: 'loop', matches };
}

/** One line naming the files and the globs, for an Event, a PR comment or a finding. */
export function describeNudgeLoop(verdict: NudgeLoopVerdict, pipelineRun: string): string {
  switch (verdict.kind) {
    case 'none':
      return `no file of the nudge starts ${pipelineRun}`;
    case 'loop':
      return `${verdict.matches
        .map((m) => `${m.path} matches ${m.globs.map((g) => `"${g}".pathChanged()`).join(', ')}`)
        .join('; ')} of ${pipelineRun}, so merging the nudge rebuilds the nudging component, which nudges again`;
    case 'may-loop':
      return `${verdict.paths.join(', ')} may start ${pipelineRun} (${verdict.reason}; read as matching every file), so merging the nudge may rebuild the nudging component, which would nudge again`;
  }
}
