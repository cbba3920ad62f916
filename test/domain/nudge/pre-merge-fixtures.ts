// Inputs for the pre-merge domain (docs/decisions.md D11): ADR 29's `feature-1234` PR group, whose
// PRs in operand-a and operand-b nudge `bundle`, and the decision's input for that pair.
import { DEFAULT_DISPATCH_POLICY } from '../../../src/domain/nudge/dispatch-policy.ts';
import type {
  ForgeReading,
  ObservedPullRequestBuild,
  PreMergeInput,
} from '../../../src/domain/nudge/pre-merge-decision.ts';
import { emptyPreMergeRecord, type PinnedBuild } from '../../../src/domain/nudge/pre-merge-record.ts';
import { LEASE, MINUTE, NAMESPACE, T0, digest } from './validated-fixtures.ts';

export { LEASE, MINUTE, NAMESPACE, T0, digest };
export const GROUP = 'feature-1234';
export const TARGET = 'bundle';
export const POLL = 2 * MINUTE;

/** The repository of a component's PRs. */
export const repoUrlOf = (component: string): string => `https://github.com/org/${component}`;

/** A build of seed `seed`: its digest is made from the seed, later `createdAt` is newer. */
export function pinned(name: string, seed: string | number, createdAt: number): PinnedBuild {
  return { name, digest: digest(seed), createdAt };
}

/** A succeeded pull-request build of PR `number` of `component`. */
export function prBuild(
  component: string,
  number: number,
  seed: string | number,
  createdAt: number,
): ObservedPullRequestBuild {
  return {
    component,
    number,
    repoUrl: repoUrlOf(component),
    build: pinned(`${component}-on-pull-request-${String(seed)}`, seed, createdAt),
  };
}

export function reading(component: string, number: number, state: ForgeReading['state'], mergeSha?: string) {
  const url = `${repoUrlOf(component)}/pull/${String(number)}`;
  return { state, url, ...(mergeSha === undefined ? {} : { mergeSha }) } satisfies ForgeReading;
}

export function input(overrides: Partial<PreMergeInput> = {}): PreMergeInput {
  return {
    namespace: NAMESPACE,
    group: GROUP,
    target: TARGET,
    record: emptyPreMergeRecord(GROUP, TARGET),
    builds: [],
    forge: new Map(),
    pushBuild: () => undefined,
    now: T0,
    fireLeaseMs: LEASE,
    pollMs: POLL,
    policy: DEFAULT_DISPATCH_POLICY,
    ...overrides,
  };
}
