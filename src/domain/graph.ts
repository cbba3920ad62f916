// The nudge graph of each namespace, merged from every place an edge can be declared: NudgeConfig
// entries (ours and upstream's v1beta2, which the migration imports) and the legacy
// `spec.build-nudges-ref` of Components (ADR 29). Edges keep their origin so that every finding
// and every plan can point back at the line that declared them.
import {
  NUDGE_MODES,
  formatRef,
  type ComponentObject,
  type EdgeOrigin,
  type ManifestSet,
  type NudgeEdge,
  type NudgeMode,
} from './model.ts';
import { compareStrings } from './compare.ts';

export interface NamespaceGraph {
  readonly namespace: string;
  /** Every declared edge, duplicates included, NudgeConfig entries first, then build-nudges-ref items. */
  readonly edges: readonly NudgeEdge[];
  /** Undefined when the input held no Component of this namespace (existence cannot be judged). */
  readonly components?: ReadonlyMap<string, ComponentObject>;
  /** Every name that appears (components and edge ends), sorted. */
  readonly nodes: readonly string[];
  /** Distinct targets of `name`, sorted; empty for an unknown name. */
  successors(name: string): readonly string[];
  /** Distinct sources nudging `name`, sorted; empty for an unknown name. */
  predecessors(name: string): readonly string[];
}

/** A key identifying an edge by its ends, whatever declared it. Unambiguous for any string. */
export function edgeKey(e: Pick<NudgeEdge, 'namespace' | 'from' | 'to'>): string {
  return JSON.stringify([e.namespace, e.from, e.to]);
}

/** The JSON path of the field that declared an edge, e.g. `spec.nudges[4]`. */
export function originFieldPath(origin: EdgeOrigin): string {
  return origin.via === 'NudgeConfig' ? `spec.nudges[${origin.index}]` : `spec.build-nudges-ref[${origin.index}]`;
}

/** `NudgeConfig ns/nudge-config spec.nudges[4]`: where a human finds the edge. */
export function formatOrigin(origin: EdgeOrigin): string {
  return `${formatRef(origin.object)} ${originFieldPath(origin)}`;
}

function isNudgeMode(mode: string): mode is NudgeMode {
  return (NUDGE_MODES as readonly string[]).includes(mode);
}

/** The mode an entry fires with. An invalid mode is reported by validation; the edge still exists. */
function effectiveMode(mode: string | undefined): NudgeMode {
  return mode !== undefined && isNudgeMode(mode) ? mode : 'immediate';
}

interface NamespaceInput {
  readonly edges: NudgeEdge[];
  components?: Map<string, ComponentObject>;
}

/**
 * Which declarations make edges. `nudger` (ADR 67's migration rule): NudgeConfig entries and every
 * Component's `build-nudges-ref`, so no edge is lost while a namespace migrates. `build-service`:
 * upstream's rule, where a namespace that has a NudgeConfig ignores `build-nudges-ref` altogether;
 * the sandbox plays build-service with it.
 */
export type EdgeRules = 'nudger' | 'build-service';

export interface GraphOptions {
  readonly rules?: EdgeRules;
}

function collectByNamespace(
  set: Pick<ManifestSet, 'components' | 'nudgeConfigs'>,
  rules: EdgeRules,
): Map<string, NamespaceInput> {
  const byNamespace = new Map<string, NamespaceInput>();
  const inputFor = (namespace: string): NamespaceInput => {
    let input = byNamespace.get(namespace);
    if (input === undefined) {
      input = { edges: [] };
      byNamespace.set(namespace, input);
    }
    return input;
  };

  for (const config of set.nudgeConfigs) {
    const { namespace } = config.ref;
    const input = inputFor(namespace);
    for (const { from, to, mode, gatingGroup, index, location } of config.entries) {
      const origin: EdgeOrigin = { via: 'NudgeConfig', object: config.ref, index, location };
      const effective = effectiveMode(mode);
      // Two literals rather than a conditional spread: this runs for every entry.
      input.edges.push(
        gatingGroup === undefined
          ? { namespace, from, to, mode: effective, origin }
          : { namespace, from, to, mode: effective, gatingGroup, origin },
      );
    }
  }

  const configured = new Set(set.nudgeConfigs.map((config) => config.ref.namespace));
  for (const component of set.components) {
    const { namespace, name } = component.ref;
    const input = inputFor(namespace);
    input.components ??= new Map();
    // A second document with the same name is a parse-level concern; the first one wins here.
    if (!input.components.has(name)) input.components.set(name, component);
    if (rules === 'build-service' && configured.has(namespace)) continue;
    component.buildNudgesRef.forEach((target, index) => {
      input.edges.push({
        namespace,
        from: name,
        to: target.name,
        // ADR 29 nudges fire as soon as the build succeeds; ADR 67 migrates them as `immediate`.
        mode: 'immediate',
        origin: { via: 'build-nudges-ref', object: component.ref, index, location: target.location },
      });
    });
  }
  return byNamespace;
}

const NO_NAMES: readonly string[] = Object.freeze([]);

/** Sorts in place (code-unit order, as `compareStrings`) and drops repeats. */
function distinctSorted(values: string[]): readonly string[] {
  values.sort();
  let kept = 0;
  for (const value of values) {
    if (kept === 0 || values[kept - 1] !== value) {
      values[kept] = value;
      kept += 1;
    }
  }
  values.length = kept;
  return values;
}

function push(lists: Map<string, string[]>, key: string, value: string): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [value]);
  else list.push(value);
}

function invert(successors: ReadonlyMap<string, readonly string[]>): Map<string, readonly string[]> {
  const sources = new Map<string, string[]>();
  for (const [from, targets] of successors) for (const to of targets) push(sources, to, from);
  const predecessors = new Map<string, readonly string[]>();
  for (const [to, froms] of sources) predecessors.set(to, distinctSorted(froms));
  return predecessors;
}

function makeGraph(namespace: string, input: NamespaceInput): NamespaceGraph {
  const targets = new Map<string, string[]>();
  for (const edge of input.edges) push(targets, edge.from, edge.to);
  const successors = new Map<string, readonly string[]>();
  for (const [from, list] of targets) successors.set(from, distinctSorted(list));
  // Validation needs neither sorted nodes nor predecessors; sorting thousands of names is a good
  // part of its time budget, so both are computed on first use.
  let nodes: readonly string[] | undefined;
  let predecessors: Map<string, readonly string[]> | undefined;
  return {
    namespace,
    edges: Object.freeze(input.edges),
    ...(input.components === undefined ? {} : { components: input.components }),
    get nodes() {
      nodes ??= distinctSorted([
        ...(input.components?.keys() ?? []),
        ...input.edges.flatMap((edge) => [edge.from, edge.to]),
      ]);
      return nodes;
    },
    successors: (name) => successors.get(name) ?? NO_NAMES,
    predecessors: (name) => (predecessors ??= invert(successors)).get(name) ?? NO_NAMES,
  };
}

/**
 * One graph per namespace that holds a Component or a NudgeConfig (UNSET_NAMESPACE included).
 * Every NudgeConfig counts, whatever its flavour or name: a misnamed or duplicate NudgeConfig is
 * a finding of its own, and its edges must still take part in cycle detection.
 */
export function buildNudgeGraphs(
  set: Pick<ManifestSet, 'components' | 'nudgeConfigs'>,
  options: GraphOptions = {},
): ReadonlyMap<string, NamespaceGraph> {
  const graphs = new Map<string, NamespaceGraph>();
  const inputs = [...collectByNamespace(set, options.rules ?? 'nudger')].sort(([a], [b]) => compareStrings(a, b));
  for (const [namespace, input] of inputs) graphs.set(namespace, makeGraph(namespace, input));
  return graphs;
}

/** The graph of one namespace; empty (no nodes, no edges) when nothing of it was given. */
export function buildNamespaceGraph(
  namespace: string,
  set: Pick<ManifestSet, 'components' | 'nudgeConfigs'>,
  options: GraphOptions = {},
): NamespaceGraph {
  return buildNudgeGraphs(set, options).get(namespace) ?? makeGraph(namespace, { edges: [] });
}
