// Inputs for the ChangeGroup state machine tests: a three-component ChangeGroup and builds at
// minutes after T0.
import {
  toKubernetesTime,
  type ChangeGroupReconcileInput,
  type CollectedBuild,
  type PullRequestObservation,
} from '../../../src/domain/changegroup/state.ts';
import type { ChangeGroupSpec, ChangeGroupStatus } from '../../../src/schema/changegroup.ts';
import { DIGEST } from './fixtures.ts';

export const T0 = new Date('2025-01-15T10:00:00Z');
export const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
export const iso = (minutes: number) => toKubernetesTime(at(minutes));

export function build(component: string, digestChar: string, minutes: number, run?: string): CollectedBuild {
  return {
    component,
    digest: DIGEST(digestChar),
    pullSpec: `quay.io/org/${component}@${DIGEST(digestChar)}`,
    pipelineRun: run ?? `${component}-on-push-${digestChar}`,
    createdAt: iso(minutes),
  };
}

export const OPEN: Extract<PullRequestObservation, { state: 'open' }> = {
  state: 'open',
  draft: true,
  manualChanges: false,
  rebaseRequested: false,
  buildNowRequested: false,
};

export function input(
  overrides: Partial<Omit<ChangeGroupReconcileInput, 'changeGroup'>> & {
    spec?: Partial<ChangeGroupSpec>;
    status?: ChangeGroupStatus;
  } = {},
): ChangeGroupReconcileInput {
  const { spec, status, ...rest } = overrides;
  return {
    changeGroup: {
      metadata: { name: 'bundle-x-update', namespace: 'my-tenant', generation: 1 },
      spec: {
        nudgedComponent: 'bundle-x',
        nudgingComponents: [{ name: 'operand-a' }, { name: 'operand-b' }, { name: 'operator' }],
        ...spec,
      },
      ...(status === undefined ? {} : { status }),
    },
    now: T0,
    graphNudgingComponents: ['operand-a', 'operand-b', 'operator'],
    originalBuilds: { 'operand-a': DIGEST('0'), 'operand-b': DIGEST('0') },
    builds: [],
    pullRequest: { state: 'none' },
    ...rest,
  };
}
