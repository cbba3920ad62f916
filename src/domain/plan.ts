// What a change to some components sets off: which components rebuild, in which order, and how
// many builds that costs with ADR 29's nudge-per-edge behaviour versus one ChangeGroup (ADR 59).
import { findCycles } from './cycles.ts';
import { type NamespaceGraph } from './graph.ts';
import { compareStrings } from './compare.ts';

export interface ImpactPlan {
  readonly namespace: string;
  /** The changed components, distinct and sorted. */
  readonly changed: readonly string[];
  /** Topological layers of the affected components; a component comes after all its nudgers. */
  readonly waves: readonly (readonly string[])[];
  /** Builds per affected component, keyed in name order. */
  readonly builds: { readonly adr29: ReadonlyMap<string, bigint>; readonly changegroup: ReadonlyMap<string, bigint> };
  readonly totals: { readonly adr29: bigint; readonly changegroup: bigint };
}

export type PlanErrorReason = 'unknown-component' | 'cycle';

/** Why no plan can be made; `names` holds the unknown components, or the cycle path. */
export class PlanError extends Error {
  override readonly name = 'PlanError';
  readonly reason: PlanErrorReason;
  readonly namespace: string;
  readonly names: readonly string[];

  constructor(reason: PlanErrorReason, namespace: string, names: readonly string[]) {
    const where = namespace === '' ? 'the unset namespace' : `namespace ${namespace}`;
    super(
      reason === 'unknown-component'
        ? `cannot plan the impact in ${where}: unknown component(s) ${names.map((n) => JSON.stringify(n)).join(', ')}`
        : `cannot plan the impact in ${where}: the affected components form a cycle: ${names.join(' -> ')}`,
    );
    this.reason = reason;
    this.namespace = namespace;
    this.names = names;
  }
}

function reachableFrom(graph: NamespaceGraph, start: readonly string[]): Set<string> {
  const reached = new Set(start);
  const queue = [...start];
  // The queue grows while it is walked; an array iterator sees the pushed items.
  for (const name of queue) {
    for (const next of graph.successors(name)) {
      if (!reached.has(next)) {
        reached.add(next);
        queue.push(next);
      }
    }
  }
  return reached;
}

function sum(values: Iterable<bigint>): bigint {
  let total = 0n;
  for (const value of values) total += value;
  return total;
}

/**
 * Plans the rebuilds that changing `changed` causes. Under ADR 29 every successful build nudges
 * each target separately and every nudge is one more build, so
 * builds(x) = [x changed] + sum of builds(u) over the edges u -> x, which doubles along diamond
 * chains (hence bigint). A ChangeGroup builds each affected component exactly once.
 */
export function planImpact(graph: NamespaceGraph, changed: readonly string[]): ImpactPlan {
  const changedSorted = [...new Set(changed)].sort(compareStrings);
  const known = new Set(graph.nodes);
  const unknown = changedSorted.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new PlanError('unknown-component', graph.namespace, unknown);

  // Everything reachable from an affected component is affected, so its successors need no filter.
  const affected = reachableFrom(graph, changedSorted);
  const affectedSorted = [...affected].sort(compareStrings);
  const [cycle] = findCycles(affectedSorted, (name) => graph.successors(name));
  if (cycle !== undefined) throw new PlanError('cycle', graph.namespace, cycle);

  // Kahn's algorithm: a component is placed once every affected nudger of it has been, at which
  // point its wave and its ADR 29 build count are final.
  const isChanged = new Set(changedSorted);
  const pending = new Map<string, number>();
  const wave = new Map<string, number>();
  // Filled in name order, which is the order the maps promise.
  const adr29 = new Map<string, bigint>();
  const ready: string[] = [];
  for (const name of affectedSorted) {
    const nudgers = graph.predecessors(name).filter((p) => affected.has(p)).length;
    pending.set(name, nudgers);
    wave.set(name, 0);
    adr29.set(name, isChanged.has(name) ? 1n : 0n);
    if (nudgers === 0) ready.push(name);
  }
  for (const name of ready) {
    const ownWave = wave.get(name) ?? 0;
    const ownBuilds = adr29.get(name) ?? 0n;
    for (const target of graph.successors(name)) {
      wave.set(target, Math.max(wave.get(target) ?? 0, ownWave + 1));
      adr29.set(target, (adr29.get(target) ?? 0n) + ownBuilds);
      const left = (pending.get(target) ?? 0) - 1;
      pending.set(target, left);
      if (left === 0) ready.push(target);
    }
  }

  const waves: string[][] = [];
  for (const name of affectedSorted) {
    const index = wave.get(name) ?? 0;
    (waves[index] ??= []).push(name);
  }
  const changegroup = new Map(affectedSorted.map((name) => [name, 1n]));
  return {
    namespace: graph.namespace,
    changed: changedSorted,
    waves,
    builds: { adr29, changegroup },
    totals: { adr29: sum(adr29.values()), changegroup: BigInt(affected.size) },
  };
}
