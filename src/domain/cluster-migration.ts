// ADR 67 "Migration from build-nudges-ref", the cluster half: the `build-nudges-ref` edges of a
// namespace's graph (derived by src/domain/graph.ts; nothing here reads the field) become
// `immediate` entries of its `nudge-config`, merged into an existing one without duplicates. Existing entries are kept as they are (a user may already have switched
// one to `validated`), new ones are appended in a stable order, so a second run adds nothing.
// Components themselves are left alone: build-service owns them, and ADR 67 removes the field
// only "after migration is confirmed".
import { compareStrings } from './compare.ts';
import type { NamespaceGraph } from './graph.ts';

export interface MigrationEntry {
  readonly from: string;
  readonly to: string;
  readonly mode?: string;
  readonly gatingGroup?: string;
}

export interface NamespaceMigrationPlan {
  /** Every entry the NudgeConfig should hold afterwards: existing ones first, untouched. */
  readonly entries: readonly MigrationEntry[];
  /** The entries this migration adds, in the order they are appended. */
  readonly added: readonly MigrationEntry[];
  /** `build-nudges-ref` items that name the component itself: kept out, they could never be admitted. */
  readonly skippedSelfNudges: readonly string[];
}

/**
 * The namespace's `build-nudges-ref` edges, as the one graph derivation found them, appended to
 * the existing entries as `immediate` ones where no entry holds the pair yet.
 */
export function planNamespaceMigration(
  graph: Pick<NamespaceGraph, 'edges'>,
  existingEntries: readonly MigrationEntry[] = [],
): NamespaceMigrationPlan {
  const present = new Set(existingEntries.map((e) => pairKey(e.from, e.to)));
  const added: MigrationEntry[] = [];
  const skippedSelfNudges = new Set<string>();
  const legacy = graph.edges
    .filter((edge) => edge.origin.via === 'build-nudges-ref')
    .sort((a, b) => compareStrings(a.from, b.from) || compareStrings(a.to, b.to));
  for (const { from, to } of legacy) {
    if (from === to) {
      skippedSelfNudges.add(from);
      continue;
    }
    if (present.has(pairKey(from, to))) continue;
    present.add(pairKey(from, to));
    added.push({ from, to, mode: 'immediate' });
  }
  return { entries: [...existingEntries, ...added], added, skippedSelfNudges: [...skippedSelfNudges] };
}

function pairKey(from: string, to: string): string {
  return `${from}\u0000${to}`;
}
