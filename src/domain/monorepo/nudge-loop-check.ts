// `nudger validate`'s `nudge-loop` rule (issue 12, docs/decisions.md N33), offline: for every nudge
// u → v whose two Components both have PipelineRuns in one repository checkout given to the CLI,
// the files a nudge PR would change are approximated by the checkout's files that the D6 fileMatch
// would rewrite and that reference u's image by digest today; when one of them matches u's own push
// `pathChanged()` globs (or u's expression is not understood), merging the nudge rebuilds u.
import { compareStrings } from '../compare.ts';
import { compileFileMatch, pathMatches, resolveFileMatch } from '../digest-rewrite/file-match.ts';
import { referenceRegex } from '../digest-rewrite/reference.ts';
import { buildNudgeGraphs } from '../graph.ts';
import type { Finding, ManifestSet, NudgeEdge } from '../model.ts';
import { describeNudgeLoop, detectNudgeLoop } from './nudge-loop.ts';
import { componentPipelineRuns, readTektonDirectory, type TektonDirectory } from './tekton-pipelineruns.ts';

export interface RepositoryCheckout {
  /** How the user named it (a directory), for messages. */
  readonly name: string;
  /** Every file read from it, `.tekton/` included: repository-relative `/`-separated path → text. */
  readonly files: ReadonlyMap<string, string>;
}

const TEKTON_DIRECTORY = '.tekton/';

interface ReadCheckout {
  readonly checkout: RepositoryCheckout;
  readonly tekton: TektonDirectory;
}

function readCheckout(checkout: RepositoryCheckout): ReadCheckout {
  const tekton = new Map([...checkout.files].filter(([path]) => path.startsWith(TEKTON_DIRECTORY)));
  return { checkout, tekton: readTektonDirectory(tekton) };
}

/** Whether `component` has any PipelineRun (push or pull-request) in the checkout. */
function builtFrom(read: ReadCheckout, component: string): boolean {
  return (
    componentPipelineRuns(read.tekton, component, 'push').pipelineRuns.length > 0 ||
    componentPipelineRuns(read.tekton, component, 'pull_request').pipelineRuns.length > 0
  );
}

/** The `nudge-loop` warnings of every edge between two Components of one checkout. */
export function nudgeLoopFindings(
  set: Pick<ManifestSet, 'components' | 'nudgeConfigs'>,
  checkouts: readonly RepositoryCheckout[],
): Finding[] {
  if (checkouts.length === 0) return [];
  const reads = checkouts.map(readCheckout);
  const findings: Finding[] = [];
  for (const graph of buildNudgeGraphs(set).values()) {
    const seen = new Set<string>();
    for (const edge of graph.edges) {
      const key = JSON.stringify([edge.from, edge.to]);
      if (edge.from === edge.to || seen.has(key)) continue;
      seen.add(key);
      const image = graph.components?.get(edge.from)?.containerImage;
      for (const read of reads) {
        if (!builtFrom(read, edge.to)) continue;
        findings.push(...edgeFindings(edge, image, read));
      }
    }
  }
  return findings;
}

function edgeFindings(edge: NudgeEdge, image: string | undefined, read: ReadCheckout): Finding[] {
  const findings: Finding[] = [];
  const references = image === undefined ? undefined : referenceRegex([image]);
  for (const push of componentPipelineRuns(read.tekton, edge.from, 'push').pipelineRuns) {
    let fileMatch: RegExp[];
    try {
      fileMatch = compileFileMatch(resolveFileMatch({ buildNudgeFilesAnnotation: push.buildNudgeFiles }));
    } catch {
      continue; // a broken fileMatch fails the nudge itself, which the dispatcher reports
    }
    const changed = [...read.checkout.files]
      .filter(
        ([path, text]) => pathMatches(path, fileMatch) && (references === undefined || text.search(references) !== -1),
      )
      .map(([path]) => path)
      .sort(compareStrings);
    const verdict = detectNudgeLoop(changed, push.pathChanged);
    if (verdict.kind === 'none') continue;
    const run = `${push.file} (${push.name === '' ? 'push PipelineRun' : push.name})`;
    findings.push({
      rule: 'nudge-loop',
      severity: 'warning',
      message:
        `${edge.from} nudges ${edge.to} in the same repository (${read.checkout.name}): ` +
        describeNudgeLoop(verdict, `${edge.from}'s push PipelineRun ${run}`),
      namespace: edge.namespace,
      object: edge.origin.object,
      location: edge.origin.location,
    });
  }
  return findings;
}
