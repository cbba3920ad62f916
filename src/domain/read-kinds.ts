// Whether a file may hold something nudger reads, judged from its raw text before (or without)
// parsing it. A file that cannot be parsed and holds nothing nudger reads (a Helm template, a CI
// file in a YAML dialect) is skipped with a warning; any other must stop the run, because skipping
// it could lose nudge edges in silence. Used by validate/graph/plan and by migrate alike.
import { isKustomizationPath } from './migrate-classify.ts';

/**
 * A `kind` line naming Component, NudgeConfig (or their lists) or Kustomization: it errs on the side
 * of "may", and a false match only keeps the strict behaviour for that file.
 */
const READ_KIND = /\bkind\b[^\n]*(?:Component|NudgeConfig|Kustomization)/;

/** True when the file may hold a Component, a NudgeConfig or a kustomization (which sets others' namespaces). */
export function mayHoldReadKind(path: string, text: string): boolean {
  return isKustomizationPath(path) || READ_KIND.test(text);
}
