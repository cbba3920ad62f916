// The names a pre-merge nudge goes by (docs/decisions.md D11): the PR group of a pull-request build,
// and the nudge PR's branch, which puts the nudge PR into that same group.
import { fingerprint } from '../changegroup/fingerprint.ts';

/** Source branches that never start a pre-merge nudge: they are where PRs merge, not PR groups. */
export const UNGROUPED_BRANCHES: ReadonlySet<string> = new Set(['main', 'master']);

/**
 * The PR group of a pull-request build's source branch: the branch up to its first `@`, as
 * integration-service groups PRs; undefined for `main` and `master` (and an empty name).
 */
export function prGroupOf(sourceBranch: string): string | undefined {
  const group = sourceBranch.split('@', 1)[0]?.trim() ?? '';
  if (group === '' || UNGROUPED_BRANCHES.has(group)) return undefined;
  return group;
}

/** `<group>@<nudged>`: one nudge PR per (group, target), in the triggering PRs' group. */
export function preMergeBranch(group: string, nudged: string): string {
  return `${group}@${nudged}`;
}

/** One trigger's share of a pre-merge nudge's content. */
export interface PreMergeContentPart {
  readonly component: string;
  readonly number: number;
  readonly state: string;
  /** The digest pinned for it, if any (none once closed). */
  readonly digest?: string;
}

/** 16 hex characters naming a pre-merge nudge's content; stable across replicas and restarts. */
export function preMergeKey(
  namespace: string,
  group: string,
  target: string,
  parts: readonly PreMergeContentPart[],
  draft: boolean,
  closing: boolean,
): string {
  const sorted = [...parts]
    .sort((a, b) => (a.component === b.component ? a.number - b.number : a.component < b.component ? -1 : 1))
    .map((part) => `${part.component}#${String(part.number)}:${part.state}:${part.digest ?? '-'}`);
  return fingerprint(['pre-merge', namespace, group, target, draft, closing, ...sorted]);
}
