// The names a validated batch goes out under (docs/decisions.md D10): its branch and its key.
import { fingerprint } from '../changegroup/fingerprint.ts';
import { compareStrings } from '../compare.ts';
import { NUDGE_BRANCH_PREFIX } from './pull-request-text.ts';

/** `konflux/component-updates/<nudged>-validated-<gatingGroup>`: one branch per (target, group). */
export function validatedBranch(nudged: string, gatingGroup: string): string {
  return `${NUDGE_BRANCH_PREFIX}${nudged}-validated-${gatingGroup}`;
}

/** One (component, digest) of a batch. */
export interface BatchDigest {
  readonly component: string;
  readonly digest: string;
}

/**
 * 16 hex characters naming one batch's content: namespace, group, target and each (component,
 * digest), in component order. Stable across replicas and restarts.
 */
export function validatedBatchKey(
  namespace: string,
  gatingGroup: string,
  target: string,
  digests: readonly BatchDigest[],
): string {
  const parts = [...digests]
    .sort((a, b) => compareStrings(a.component, b.component))
    .map(({ component, digest }) => `${component}@${digest}`);
  return fingerprint(['validated', namespace, gatingGroup, target, ...parts]);
}

/**
 * The Renovate group a batch is (`groupName`): its pull request's title and commit subject read
 * "Update <group name>", as Renovate words a group update, whichever executor makes it.
 */
export function validatedGroupName(gatingGroup: string): string {
  return `validated images of ${gatingGroup}`;
}

/**
 * The Renovate `groupSlug` that puts the batch on validatedBranch: Renovate names a group's branch
 * `<branchPrefix><groupSlug>`, and build-service's branchPrefix is NUDGE_BRANCH_PREFIX.
 */
export function validatedGroupSlug(nudged: string, gatingGroup: string): string {
  return validatedBranch(nudged, gatingGroup).slice(NUDGE_BRANCH_PREFIX.length);
}
