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
