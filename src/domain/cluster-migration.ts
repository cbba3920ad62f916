// ADR 67 "Migration from build-nudges-ref", the cluster half: the `build-nudges-ref` of a
// namespace's Components become `immediate` entries of its `nudge-config`, merged into an existing
// one without duplicates. Existing entries are kept as they are (a user may already have switched
// one to `validated`), new ones are appended in a stable order, so a second run adds nothing.
// Components themselves are left alone: build-service owns them, and ADR 67 removes the field
// only "after migration is confirmed".
import { compareStrings } from './compare.ts';

export interface MigrationEntry {
  readonly from: string;
  readonly to: string;
  readonly mode?: string;
  readonly gatingGroup?: string;
}

export interface ComponentNudges {
  readonly name: string;
  readonly buildNudgesRef: readonly string[];
}

export interface NamespaceMigrationPlan {
  /** Every entry the NudgeConfig should hold afterwards: existing ones first, untouched. */
  readonly entries: readonly MigrationEntry[];
  /** The entries this migration adds, in the order they are appended. */
  readonly added: readonly MigrationEntry[];
  /** `build-nudges-ref` items that name the component itself: kept out, they could never be admitted. */
  readonly skippedSelfNudges: readonly string[];
}

export function planNamespaceMigration(
  components: readonly ComponentNudges[],
  existingEntries: readonly MigrationEntry[] = [],
): NamespaceMigrationPlan {
  const present = new Set(existingEntries.map((e) => key(e.from, e.to)));
  const added: MigrationEntry[] = [];
  const skippedSelfNudges: string[] = [];
  const sorted = [...components].sort((a, b) => compareStrings(a.name, b.name));
  for (const component of sorted) {
    for (const target of [...new Set(component.buildNudgesRef)].sort(compareStrings)) {
      if (target === component.name) {
        skippedSelfNudges.push(component.name);
        continue;
      }
      if (present.has(key(component.name, target))) continue;
      present.add(key(component.name, target));
      added.push({ from: component.name, to: target, mode: 'immediate' });
    }
  }
  return { entries: [...existingEntries, ...added], added, skippedSelfNudges };
}

function key(from: string, to: string): string {
  return `${from}\u0000${to}`;
}
