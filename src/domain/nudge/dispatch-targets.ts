// Which components a build nudges, from the one graph derivation (src/domain/graph.ts): the
// `immediate` entries of the namespace's NudgeConfig (`nudge-config`) from the built component
// (docs/decisions.md D9). `validated` entries wait for issue 11's batched path, and
// `build-nudges-ref` edges stay build-service's: an edge declared in both places is reported,
// because build-service nudges it too.
import { formatOrigin, type NamespaceGraph } from '../graph.ts';
import { NUDGE_CONFIG_NAME, type NudgeEdge } from '../model.ts';

function isImmediateEntry(edge: NudgeEdge): boolean {
  return (
    edge.origin.via === 'NudgeConfig' && edge.origin.object.name === NUDGE_CONFIG_NAME && edge.mode === 'immediate'
  );
}

/** Distinct targets of `from`'s immediate NudgeConfig entries, sorted (code-unit order). */
export function immediateTargets(graph: NamespaceGraph, from: string): string[] {
  const targets = new Set<string>();
  for (const edge of graph.edges) if (edge.from === from && isImmediateEntry(edge)) targets.add(edge.to);
  return [...targets].sort();
}

/** True while the NudgeConfig still holds an immediate entry `from -> to`. */
export function hasImmediateEntry(graph: NamespaceGraph, from: string, to: string): boolean {
  return graph.edges.some((edge) => edge.from === from && edge.to === to && isImmediateEntry(edge));
}

export interface DuplicateEdge {
  readonly from: string;
  readonly to: string;
  /** Where the `build-nudges-ref` item is, e.g. `Component ns/a spec.build-nudges-ref[0]`. */
  readonly declaredAt: string;
}

/** The `build-nudges-ref` items of `from` that name one of `targets`: each is nudged by build-service too. */
export function duplicateLegacyEdges(graph: NamespaceGraph, from: string, targets: readonly string[]): DuplicateEdge[] {
  const wanted = new Set(targets);
  return graph.edges
    .filter((edge) => edge.from === from && edge.origin.via === 'build-nudges-ref' && wanted.has(edge.to))
    .map((edge) => ({ from, to: edge.to, declaredAt: formatOrigin(edge.origin) }));
}
