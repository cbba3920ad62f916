// Builders for ManifestSet values, so domain tests do not depend on the manifest parser. Locations
// are synthetic but realistic: one file per object, an entry every two lines.
import fc from 'fast-check';
import type {
  ComponentObject,
  ManifestIssue,
  ManifestSet,
  NudgeConfigFlavour,
  NudgeConfigObject,
  NudgeEntry,
} from '../../src/domain/model.ts';

export interface EntrySpec {
  readonly from: string;
  readonly to: string;
  readonly mode?: string;
  readonly gatingGroup?: string;
}

export interface ObjectOptions {
  readonly name?: string;
  readonly flavour?: NudgeConfigFlavour;
  readonly file?: string;
  /** Line of the object's first line; entries/items follow from `line + 5`, two lines apart. */
  readonly line?: number;
}

function folder(namespace: string): string {
  return namespace === '' ? 'unset' : namespace;
}

/** The line of entry/item `index` of an object starting at `line`. */
export function itemLine(index: number, line = 1): number {
  return line + 5 + 2 * index;
}

export function nudgeConfig(
  namespace: string,
  entries: readonly (readonly [string, string] | EntrySpec)[],
  options: ObjectOptions = {},
): NudgeConfigObject {
  const name = options.name ?? 'nudge-config';
  const file = options.file ?? `${folder(namespace)}/${name}.yaml`;
  const line = options.line ?? 1;
  return {
    ref: { kind: 'NudgeConfig', namespace, name },
    flavour: options.flavour ?? 'nudger',
    location: { file, line, column: 1 },
    entries: entries.map((spec, index): NudgeEntry => {
      const entry: EntrySpec = 'from' in spec ? spec : { from: spec[0], to: spec[1] };
      return { index, ...entry, location: { file, line: itemLine(index, line), column: 5 } };
    }),
  };
}

export function component(
  namespace: string,
  name: string,
  nudges: readonly string[] = [],
  options: ObjectOptions = {},
): ComponentObject {
  const file = options.file ?? `${folder(namespace)}/${name}.yaml`;
  const line = options.line ?? 1;
  return {
    ref: { kind: 'Component', namespace, name },
    location: { file, line, column: 1 },
    buildNudgesRef: nudges.map((target, index) => ({
      name: target,
      location: { file, line: itemLine(index, line), column: 7 },
    })),
  };
}

export function manifestSet(parts: {
  components?: readonly ComponentObject[];
  nudgeConfigs?: readonly NudgeConfigObject[];
  issues?: readonly ManifestIssue[];
}): ManifestSet {
  return { components: parts.components ?? [], nudgeConfigs: parts.nudgeConfigs ?? [], issues: parts.issues ?? [] };
}

/** Components `names` (no nudges of their own) in one namespace: makes existence checkable. */
export function components(namespace: string, names: readonly string[]): ComponentObject[] {
  return names.map((name) => component(namespace, name));
}

/** A directed graph over `c0..c{n-1}` given as index pairs, for property tests. */
export interface RandomGraph {
  readonly names: readonly string[];
  readonly edges: readonly (readonly [string, string])[];
}

/**
 * A random DAG: edges only go forward in a random order of the nodes, so it cannot have a cycle,
 * while names are not sorted topologically (that would hide ordering bugs).
 */
export function arbitraryDag(maxNodes = 12): fc.Arbitrary<RandomGraph> {
  return fc
    .integer({ min: 1, max: maxNodes })
    .chain((n) => {
      const names = Array.from({ length: n }, (_, i) => `c${String(i)}`);
      return fc.tuple(
        fc.shuffledSubarray(names, { minLength: n, maxLength: n }),
        fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 3 }),
      );
    })
    .map(([order, pairs]) => ({
      names: [...order].sort(),
      edges: pairs
        .filter(([a, b]) => a !== b)
        .map(([a, b]): readonly [string, string] => {
          const [lo, hi] = a < b ? [a, b] : [b, a];
          return [order[lo] ?? '', order[hi] ?? ''];
        }),
    }));
}

/** Successor lookup for a RandomGraph, distinct and sorted like NamespaceGraph's. */
export function successorsOf(graph: RandomGraph): (n: string) => readonly string[] {
  const out = new Map<string, Set<string>>();
  for (const [from, to] of graph.edges) out.set(from, (out.get(from) ?? new Set()).add(to));
  return (n) => [...(out.get(n) ?? [])].sort();
}
