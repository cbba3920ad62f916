import { buildNudgeGraphs } from '../../domain/graph.ts';
import { validateManifestSet } from '../../domain/validate.ts';
import { EXIT_FINDINGS, EXIT_OK, UsageError } from '../errors.ts';
import { findingToText } from '../format/findings.ts';
import { type GraphFormat, cycleEdgeKey, renderDot, renderJson, renderMermaid } from '../format/graph.ts';
import { type CliIo, writeJson, writeLine } from '../io.ts';
import { type LoadOptions, loadManifests } from '../load.ts';
import { compareStrings } from '../../domain/compare.ts';

export interface GraphOptions extends LoadOptions {
  readonly format: GraphFormat;
  readonly namespace?: string;
}

/**
 * Renders the graph even when it is invalid (cycles are drawn red). Every finding of the namespaces
 * shown goes to stderr, warnings too (docs/cli.md): a file skipped as unreadable, an object of a
 * version nudger does not read or edges a kustomize patch sets are input the graph leaves out, and
 * must not be left out in silence. stdout stays the graph alone; errors set exit 1.
 */
export async function graphCommand(paths: readonly string[], options: GraphOptions, io: CliIo): Promise<number> {
  const set = await loadManifests(paths, io, options);
  const all = buildNudgeGraphs(set);
  if (options.namespace !== undefined && !all.has(options.namespace)) {
    throw new UsageError(
      `namespace "${options.namespace}" has no Components or NudgeConfigs in the input (found: ${[...all.keys()].map((n) => n || '(unset)').join(', ') || 'none'})`,
    );
  }
  const graphs = [...all.values()]
    .filter((g) => options.namespace === undefined || g.namespace === options.namespace)
    .sort((a, b) => compareStrings(a.namespace, b.namespace));
  const { findings } = validateManifestSet(set);
  const relevant = findings.filter(
    (f) => options.namespace === undefined || f.namespace === undefined || f.namespace === options.namespace,
  );
  const cycleEdges = new Set<string>();
  for (const finding of relevant) {
    const cycle = finding.cycle ?? [];
    for (let i = 0; i + 1 < cycle.length; i += 1)
      cycleEdges.add(cycleEdgeKey(finding.namespace ?? '', cycle[i] ?? '', cycle[i + 1] ?? ''));
  }
  const input = { graphs, cycleEdges };
  if (options.format === 'json') writeJson(io.stdout, renderJson(input));
  else io.stdout.write(options.format === 'dot' ? renderDot(input) : renderMermaid(input));
  for (const finding of relevant) writeLine(io.stderr, findingToText(finding));
  return relevant.some((f) => f.severity === 'error') ? EXIT_FINDINGS : EXIT_OK;
}
