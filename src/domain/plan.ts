// What a change to some components sets off: which components rebuild, in which order, and how
// many builds that costs with ADR 29's nudge-per-edge behaviour, with one ChangeGroup (ADR 59), and
// with the NudgeConfig's own modes, `validated` entries batched per passing Snapshot (ADR 67, D10).
import { findCycles } from './cycles.ts';
import { type NamespaceGraph } from './graph.ts';
import { compareStrings } from './compare.ts';

/** The ways of counting builds that `planImpact` computes (docs/cli.md `plan --policy`). */
export const PLAN_POLICIES = ['adr29', 'changegroup', 'validated'] as const;
export type PlanPolicy = (typeof PLAN_POLICIES)[number];

export interface ImpactPlan {
  readonly namespace: string;
  /** The changed components, distinct and sorted. */
  readonly changed: readonly string[];
  /** Topological layers of the affected components; a component comes after all its nudgers. */
  readonly waves: readonly (readonly string[])[];
  /** Builds per affected component, keyed in name order. */
  readonly builds: Readonly<Record<PlanPolicy, ReadonlyMap<string, bigint>>>;
  readonly totals: Readonly<Record<PlanPolicy, bigint>>;
  /**
   * Under `validated`: each gating group whose validated entries fire, with the waves after which
   * one of its Snapshots passes (ascending), keyed in name order.
   */
  readonly passes: ReadonlyMap<string, readonly number[]>;
  /**
   * Whether an edge from an affected component is declared `validated`. Without one, `validated`
   * counts equal `adr29` counts everywhere.
   */
  readonly hasValidatedEdges: boolean;
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

/** How the declarations of one `from -> to` pair fire. */
interface PairFiring {
  /** Some declaration is `immediate` (a NudgeConfig entry, or a `build-nudges-ref` item). */
  immediate: boolean;
  /** The gating groups of its `validated` declarations; one without a group never fires. */
  readonly groups: Set<string>;
}

/**
 * Every declaration fires as its own mode says (D9, D10), so a pair declared both `immediate` (say
 * a `build-nudges-ref` item, which `duplicate-edge` warns of) and `validated` counts both ways.
 */
function firingOfPairs(graph: NamespaceGraph, affected: ReadonlySet<string>): Map<string, Map<string, PairFiring>> {
  const firing = new Map<string, Map<string, PairFiring>>();
  for (const edge of graph.edges) {
    if (!affected.has(edge.from)) continue;
    let targets = firing.get(edge.from);
    if (targets === undefined) firing.set(edge.from, (targets = new Map<string, PairFiring>()));
    let pair = targets.get(edge.to);
    if (pair === undefined) targets.set(edge.to, (pair = { immediate: false, groups: new Set() }));
    if (edge.mode === 'immediate') pair.immediate = true;
    else if (edge.gatingGroup !== undefined && edge.gatingGroup !== '') pair.groups.add(edge.gatingGroup);
  }
  return firing;
}

/**
 * Plans the rebuilds that changing `changed` causes.
 *
 * `adr29`: every successful build nudges each target separately and every nudge is one more build,
 * so builds(x) = [x changed] + Σ builds(u) over the edges u -> x, which doubles along diamond
 * chains (hence bigint, N3). `changegroup`: one ChangeGroup builds each affected component exactly
 * once.
 *
 * `validated` (docs/decisions.md N31): the edges fire as the NudgeConfig declares them. An
 * `immediate` edge u -> x nudges x once per build of u, as under `adr29`. A `validated` entry
 * u -> x gated by G fires only when a Snapshot of G passes its tests, and all of G's validated
 * entries into x go out in one pull request, so one build of x per pass of G (D10). When does G
 * pass? integration-service makes a Snapshot of G for every member build, each carrying the whole
 * group's images, and the batch of a later pass replaces an earlier one on the same branch. So the
 * plan takes one passing Snapshot of G after each wave in which a source of G's validated entries
 * builds: it carries every build of that wave. A pass of G brings x a new digest only if one of
 * x's own G-sources built in that wave (D10 never nudges an unchanged digest again), so
 * builds(x) = [x changed] + Σ builds(u) over immediate edges u -> x
 *           + Σ over groups G of |{ wave(u) : u -> x validated by G, builds(u) > 0 }|.
 * A validated entry without a gating group never fires (`missing-gating-group`), and a target that
 * only such entries reach is affected but builds 0 times. This is the count D10's batching aims at;
 * when every Snapshot passes and its pull request merges before the next one, a validated edge
 * costs what it costs under `adr29`, which stays the upper bound.
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

  const firing = firingOfPairs(graph, affected);
  // Kahn's algorithm: a component is placed once every affected nudger of it has been, at which
  // point its wave and its build counts are final.
  const isChanged = new Set(changedSorted);
  const pending = new Map<string, number>();
  const wave = new Map<string, number>();
  // Filled in name order, which is the order the maps promise.
  const adr29 = new Map<string, bigint>();
  const validated = new Map<string, bigint>();
  /** target -> gating group -> the waves of its sources that built under `validated`. */
  const gatedWaves = new Map<string, Map<string, Set<number>>>();
  const passes = new Map<string, Set<number>>();
  const ready: string[] = [];
  for (const name of affectedSorted) {
    const nudgers = graph.predecessors(name).filter((p) => affected.has(p)).length;
    pending.set(name, nudgers);
    wave.set(name, 0);
    const own = isChanged.has(name) ? 1n : 0n;
    adr29.set(name, own);
    validated.set(name, own);
    if (nudgers === 0) ready.push(name);
  }
  for (const name of ready) {
    const ownWave = wave.get(name) ?? 0;
    const ownBuilds = adr29.get(name) ?? 0n;
    // Every nudger of `name` has been placed, so the passes that reach it are all known.
    let ownValidated = validated.get(name) ?? 0n;
    for (const waves of gatedWaves.get(name)?.values() ?? []) ownValidated += BigInt(waves.size);
    validated.set(name, ownValidated);
    gatedWaves.delete(name);
    for (const target of graph.successors(name)) {
      wave.set(target, Math.max(wave.get(target) ?? 0, ownWave + 1));
      adr29.set(target, (adr29.get(target) ?? 0n) + ownBuilds);
      const pair = firing.get(name)?.get(target);
      if (pair?.immediate === true) validated.set(target, (validated.get(target) ?? 0n) + ownValidated);
      if (pair !== undefined && ownValidated > 0n) {
        for (const group of pair.groups) {
          let byGroup = gatedWaves.get(target);
          if (byGroup === undefined) gatedWaves.set(target, (byGroup = new Map<string, Set<number>>()));
          let waves = byGroup.get(group);
          if (waves === undefined) byGroup.set(group, (waves = new Set()));
          waves.add(ownWave);
          let groupPasses = passes.get(group);
          if (groupPasses === undefined) passes.set(group, (groupPasses = new Set()));
          groupPasses.add(ownWave);
        }
      }
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
  let hasValidatedEdges = false;
  for (const edge of graph.edges) if (edge.mode === 'validated' && affected.has(edge.from)) hasValidatedEdges = true;
  return {
    namespace: graph.namespace,
    changed: changedSorted,
    waves,
    builds: { adr29, changegroup, validated },
    totals: { adr29: sum(adr29.values()), changegroup: BigInt(affected.size), validated: sum(validated.values()) },
    passes: new Map(
      [...passes]
        .sort(([a], [b]) => compareStrings(a, b))
        .map(([group, at]) => [group, [...at].sort((a, b) => a - b)] as const),
    ),
    hasValidatedEdges,
  };
}
