// ADR 67 "Stale Reference Handling": a NudgeConfig whose entries name Components that no longer
// exist is reported through its `Valid` condition; entries are never deleted, so a Component that
// is removed and re-created keeps its edges.
import type { NudgeEntry } from './model.ts';

export const VALID_CONDITION = 'Valid';
export const REASON_ALL_COMPONENTS_EXIST = 'AllComponentsExist';
export const REASON_STALE_REFERENCES = 'StaleReferences';

export interface ValidCondition {
  readonly type: typeof VALID_CONDITION;
  readonly status: 'True' | 'False';
  readonly reason: typeof REASON_ALL_COMPONENTS_EXIST | typeof REASON_STALE_REFERENCES;
  readonly message: string;
}

export interface StaleReferenceReport {
  /** Referenced names with no Component, sorted. */
  readonly missing: readonly string[];
  readonly condition: ValidCondition;
}

/**
 * Names quoted in the message at most. A condition message may hold 32,768 characters and a
 * Component name 63, so a NudgeConfig of 5,000 entries could name ten thousand missing Components:
 * listing them all would have the API server refuse the status write, and the condition would
 * never be written. The first ones, in name order, and the count of the rest say as much.
 */
export const MAX_NAMED_MISSING = 200;

function missingList(names: readonly string[]): string {
  if (names.length <= MAX_NAMED_MISSING) return names.join(', ');
  const rest = names.length - MAX_NAMED_MISSING;
  return `${names.slice(0, MAX_NAMED_MISSING).join(', ')}, and ${String(rest)} more`;
}

export function staleReferences(
  entries: readonly Pick<NudgeEntry, 'from' | 'to'>[],
  existingComponents: ReadonlySet<string>,
): StaleReferenceReport {
  const missing = new Set<string>();
  for (const { from, to } of entries) {
    if (!existingComponents.has(from)) missing.add(from);
    if (!existingComponents.has(to)) missing.add(to);
  }
  const names = [...missing].sort();
  if (names.length === 0) {
    return {
      missing: names,
      condition: {
        type: VALID_CONDITION,
        status: 'True',
        reason: REASON_ALL_COMPONENTS_EXIST,
        message: 'All referenced components exist in namespace',
      },
    };
  }
  return {
    missing: names,
    condition: {
      type: VALID_CONDITION,
      status: 'False',
      reason: REASON_STALE_REFERENCES,
      message: `Components [${missingList(names)}] referenced in nudges no longer exist`,
    },
  };
}
