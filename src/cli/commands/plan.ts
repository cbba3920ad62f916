import { buildNudgeGraphs, type NamespaceGraph } from '../../domain/graph.ts';
import { PLAN_POLICIES, type PlanPolicy, planImpact } from '../../domain/plan.ts';
import { validateManifestSet } from '../../domain/validate.ts';
import { EXIT_FINDINGS, EXIT_OK, UsageError } from '../errors.ts';
import { findingToText } from '../format/findings.ts';
import { defaultPolicies, planToJson, planToText } from '../format/plan.ts';
import { type CliIo, type OutputFormat, writeJson, writeLine } from '../io.ts';
import { type LoadOptions, loadManifests } from '../load.ts';

export interface PlanOptions extends LoadOptions {
  readonly changed: readonly string[];
  readonly output: OutputFormat;
  readonly namespace?: string;
  /** `--policy` as given: the policies whose counts are shown; absent: defaultPolicies. */
  readonly policies?: readonly string[];
}

function isPlanPolicy(value: string): value is PlanPolicy {
  return (PLAN_POLICIES as readonly string[]).includes(value);
}

/** `--policy adr29,validated`: each value must be a policy; at least one is. */
export function parsePolicies(values: readonly string[]): PlanPolicy[] {
  const unknown = values.filter((value) => !isPlanPolicy(value));
  if (unknown.length > 0) {
    throw new UsageError(
      `--policy: ${unknown.map((value) => JSON.stringify(value)).join(', ')} is not a policy; use ${PLAN_POLICIES.join(', ')} (comma-separated or repeated)`,
    );
  }
  if (values.length === 0) throw new UsageError(`--policy: name at least one of ${PLAN_POLICIES.join(', ')}`);
  return values.filter(isPlanPolicy);
}

export async function planCommand(paths: readonly string[], options: PlanOptions, io: CliIo): Promise<number> {
  // A bad --policy is a usage problem, said before any file is read.
  const asked = options.policies === undefined ? undefined : parsePolicies(options.policies);
  const set = await loadManifests(paths, io, options);
  const graph = pickNamespace(buildNudgeGraphs(set), options);
  const changed = expandChanged(graph, options.changed);
  const findings = validateManifestSet(set).findings.filter(
    (f) => f.namespace === undefined || f.namespace === graph.namespace,
  );
  // Warnings too, on stderr (stdout stays the plan): a skipped file, an object of a version nudger
  // does not read or edges set by a kustomize patch are edges the plan may be missing.
  for (const finding of findings) writeLine(io.stderr, findingToText(finding));
  // Planning an invalid graph would print numbers for a graph that cannot exist in a cluster.
  const errors = findings.filter((f) => f.severity === 'error').length;
  if (errors > 0) {
    writeLine(io.stderr, `cannot plan: the nudge graph has ${String(errors)} error(s); run nudger validate`);
    return EXIT_FINDINGS;
  }
  const plan = planImpact(graph, changed);
  const policies = asked ?? defaultPolicies(plan);
  if (options.output === 'json') writeJson(io.stdout, planToJson(plan, policies));
  else io.stdout.write(planToText(plan, policies));
  return EXIT_OK;
}

/** The namespace to plan in: the one asked for, else the only one, else the only one holding every changed name. */
function pickNamespace(graphs: ReadonlyMap<string, NamespaceGraph>, options: PlanOptions): NamespaceGraph {
  const label = (ns: string): string => (ns === '' ? '(unset)' : ns);
  if (options.namespace !== undefined) {
    const graph = graphs.get(options.namespace);
    if (graph === undefined)
      throw new UsageError(
        `namespace "${options.namespace}" is not in the input (found: ${[...graphs.keys()].map(label).join(', ') || 'none'})`,
      );
    return graph;
  }
  const only = graphs.size === 1 ? [...graphs.values()][0] : undefined;
  if (only !== undefined) return only;
  // A namespace qualifies only where the patterns select something: each name is a component
  // there, each glob matches one, and the `!` exclusions leave something (issue 8, item 4).
  const candidates = [...graphs.values()].filter((g) => selectsSomething(g, options.changed));
  if (candidates.length === 1 && candidates[0] !== undefined) return candidates[0];
  if (graphs.size === 0) throw new UsageError('the input holds no Components or NudgeConfigs');
  throw new UsageError(
    candidates.length === 0
      ? `--changed ${options.changed.join(',')} selects components in no single namespace of the input (found: ${[...graphs.keys()].map(label).join(', ')})`
      : `--changed ${options.changed.join(',')} selects components in several namespaces (${candidates.map((g) => label(g.namespace)).join(', ')}): pass --namespace`,
  );
}

function selectsSomething(graph: NamespaceGraph, patterns: readonly string[]): boolean {
  try {
    expandChanged(graph, patterns);
    return true;
  } catch (error) {
    if (error instanceof UsageError) return false;
    throw error;
  }
}

/**
 * `--changed 'stellar-*,!stellar-operator-bundle'`: names, or globs with `*`, matched against the
 * graph's nodes; a leading `!` removes what it matches from the selection.
 */
export function expandChanged(graph: NamespaceGraph, patterns: readonly string[]): string[] {
  const out = new Set<string>();
  for (const pattern of patterns.filter((p) => !p.startsWith('!'))) {
    if (!pattern.includes('*')) {
      if (!graph.nodes.includes(pattern)) {
        throw new UsageError(
          `--changed: "${pattern}" is not a component of ${graph.namespace === '' ? 'the input' : `namespace ${graph.namespace}`}`,
        );
      }
      out.add(pattern);
      continue;
    }
    const matches = graph.nodes.filter((node) => globMatches(pattern, node));
    if (matches.length === 0) throw new UsageError(`--changed pattern "${pattern}" matches no component`);
    for (const match of matches) out.add(match);
  }
  for (const exclusion of patterns.filter((p) => p.startsWith('!'))) {
    for (const name of [...out]) if (globMatches(exclusion.slice(1), name)) out.delete(name);
  }
  if (out.size === 0) throw new UsageError(`--changed ${patterns.join(',')} selects no component`);
  return [...out].sort();
}

function globMatches(pattern: string, name: string): boolean {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(name);
}
