// When nudger deletes the Secret and ConfigMap integration-service created for a nudge run it holds
// (docs/decisions.md N21): only for integration-service's runs, only once nothing can run the
// run's spec any more (a pending or running copy, a ChangeGroup that may still release it).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  HELD_TARGETS_ANNOTATION,
  REDISPATCHED_FROM_ANNOTATION,
  REDISPATCHED_TARGETS_ANNOTATION,
  REDISPATCH_ANNOTATION,
  RELEASED_TARGETS_ANNOTATION,
} from '../../../src/domain/changegroup/hold-decision.ts';
import {
  LEFTOVERS_DELETED_ANNOTATION,
  decideLeftovers,
  isIntegrationServiceNudge,
  type LeftoversContext,
} from '../../../src/domain/changegroup/integration-service-leftovers.ts';
import type { ClusterChangeGroup } from '../../../src/schema/changegroup.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';
import { DIGEST, nudgeRun } from './fixtures.ts';

const NS = 'my-tenant';
const IS_RUN = 'renovate-pipeline-0123456789ab';
const BUILD = 'operand-a-on-push-x7k2p';
const CG = 'bundle-x-update';

/** A nudge run as the cache holds it, cancelled by nudger for bundle-x unless told otherwise. */
function run(
  name = IS_RUN,
  annotations: Record<string, string> = {},
  extra: { spec?: Record<string, unknown>; status?: Record<string, unknown>; owned?: boolean } = {},
): PipelineRun {
  const raw = nudgeRun({
    name,
    namespace: NS,
    targets: 'bundle-x',
    pipeline: BUILD,
    extraAnnotations: { [HELD_TARGETS_ANNOTATION]: `bundle-x=${CG}`, ...annotations },
    spec: extra.spec ?? { status: 'Cancelled', pipelineSpec: { tasks: [{ name: 'renovate' }] } },
  }) as PipelineRun & { metadata: Record<string, unknown> };
  if (extra.owned === true) {
    raw.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u' }];
  }
  return extra.status === undefined ? raw : { ...raw, status: extra.status };
}

function changeGroup(status?: ClusterChangeGroup['status']): ClusterChangeGroup {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ChangeGroup',
    metadata: { name: CG, namespace: NS },
    spec: { nudgedComponent: 'bundle-x' },
    ...(status === undefined ? {} : { status }),
  };
}

/** A ChangeGroup that ended with `build` of operand-a as its entry, pushed to its PR or not. */
function ended(build: string, pushed: boolean): ClusterChangeGroup {
  return changeGroup({
    phase: 'Completed',
    components: [{ name: 'operand-a', state: 'Ready', newBuild: DIGEST('3'), buildPipelineRun: build }],
    pullRequest: {
      number: 7,
      url: 'https://forge.example/acme/bundle-x/pull/7',
      headBranch: 'konflux/change-groups/bundle-x-update',
      baseBranch: 'main',
      baseCommit: 'a'.repeat(40),
      lastPushedCommit: 'b'.repeat(40),
      draft: false,
      final: true,
      pushedBuilds: pushed ? [{ name: 'operand-a', digest: DIGEST('3') }] : [],
    },
  });
}

const NOTHING_ELSE: LeftoversContext = { nudgeRuns: [], changeGroups: [] };
const DELETE = { action: 'delete', namespace: NS, secret: IS_RUN, configMap: IS_RUN } as const;

function copy(status?: Record<string, unknown>, spec?: Record<string, unknown>): PipelineRun {
  return run(
    `${IS_RUN}-rd-0011223344556677`,
    { [REDISPATCHED_FROM_ANNOTATION]: IS_RUN },
    {
      spec: spec ?? { pipelineSpec: { tasks: [{ name: 'renovate' }] } },
      ...(status === undefined ? {} : { status }),
    },
  );
}

describe('isIntegrationServiceNudge', () => {
  it('is integration-service’s name rule (12 hex of the build uid’s sha256), the nudge label and no owner', () => {
    assert.equal(isIntegrationServiceNudge(run()), true);
    for (const name of [
      'renovate-pipeline-1736935680-ab12c', // build-service
      'renovate-pipeline-0123456789abc', // 13 digits
      'renovate-pipeline-0123456789AB',
      `${IS_RUN}-rd-0011223344556677`, // nudger's copy
      'operand-a-on-push-x7k2p-held-0011223344556677', // the dispatcher's held-nudge record
    ]) {
      assert.equal(isIntegrationServiceNudge(run(name)), false, name);
    }
    assert.equal(isIntegrationServiceNudge(run(IS_RUN, {}, { owned: true })), false, 'owned by something');
    const unlabelled = run();
    assert.equal(
      isIntegrationServiceNudge({ ...unlabelled, metadata: { ...unlabelled.metadata, labels: {} } }),
      false,
      'not a nudge',
    );
  });
});

describe('decideLeftovers', () => {
  it('deletes the pair of the run’s own name once the holding ChangeGroup is gone and no copy exists', () => {
    assert.deepEqual(decideLeftovers(run(), NOTHING_ELSE), DELETE);
  });

  it('leaves runs that are not integration-service’s, not held by nudger, or already cleaned up', () => {
    const cases: [string, PipelineRun][] = [
      ['build-service', run('renovate-pipeline-1736935680-ab12c')],
      ['not cancelled', run(IS_RUN, {}, { spec: { pipelineSpec: {} } })],
      ['cancelled by someone else', run(IS_RUN, { [HELD_TARGETS_ANNOTATION]: '' })],
      ['done before', run(IS_RUN, { [LEFTOVERS_DELETED_ANNOTATION]: `Secret ${IS_RUN}, ConfigMap ${IS_RUN}` })],
    ];
    for (const [what, subject] of cases) {
      assert.deepEqual(decideLeftovers(subject, NOTHING_ELSE), { action: 'none' }, what);
    }
  });

  it('without executors, waits while a ChangeGroup that holds it may still release it (the whole copy would read the pair)', () => {
    const withCopies = (changeGroups: ClusterChangeGroup[]) => ({ nudgeRuns: [], changeGroups, releasesCopy: true });
    const waiting = decideLeftovers(run(), withCopies([changeGroup({ phase: 'Waiting' })]));
    assert.deepEqual(waiting, { action: 'wait', reason: `ChangeGroup ${CG} may still release it` });
    // Ended, but with another build of operand-a in its PR: deleting it still releases this one.
    for (const other of [ended('operand-a-on-push-newer', true), ended(BUILD, false)]) {
      assert.equal(decideLeftovers(run(), withCopies([other])).action, 'wait');
    }
    // A ChangeGroup of the same name in another namespace holds nothing here.
    const elsewhere = { ...changeGroup(), metadata: { name: CG, namespace: 'other' } };
    assert.deepEqual(decideLeftovers(run(), withCopies([elsewhere])), DELETE);
  });

  it('with executors, a release fires the target from the build and never reads the pair: deleted at once', () => {
    const context = { nudgeRuns: [], changeGroups: [changeGroup({ phase: 'Waiting' })] };
    assert.deepEqual(decideLeftovers(run(), context), DELETE);
    assert.deepEqual(decideLeftovers(run(), { ...context, releasesCopy: false }), DELETE);
  });

  it('deletes once the ChangeGroup ended with this run’s build in its pull request: it never releases it', () => {
    assert.deepEqual(decideLeftovers(run(), { nudgeRuns: [], changeGroups: [ended(BUILD, true)] }), DELETE);
  });

  it('the targets no ChangeGroup holds are fired from the build (no copy); a copy made earlier is waited for', () => {
    // Before the executors fired them, a copy ran the same spec; now nothing does.
    const partial = run(IS_RUN, { [REDISPATCH_ANNOTATION]: 'operator' });
    assert.deepEqual(decideLeftovers(partial, NOTHING_ELSE), DELETE);
    const copied = run(IS_RUN, { [REDISPATCH_ANNOTATION]: 'operator', [REDISPATCHED_TARGETS_ANNOTATION]: 'operator' });
    assert.deepEqual(decideLeftovers(copied, { nudgeRuns: [copy()], changeGroups: [] }), {
      action: 'wait',
      reason: `its copy ${IS_RUN}-rd-0011223344556677 has not finished`,
    });
    const running = copy({ conditions: [{ type: 'Succeeded', status: 'Unknown', reason: 'Running' }] });
    assert.equal(decideLeftovers(copied, { nudgeRuns: [running], changeGroups: [] }).action, 'wait');
    for (const done of [
      copy({ conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }] }),
      copy({ conditions: [{ type: 'Succeeded', status: 'False', reason: 'Failed' }] }),
      copy(undefined, { status: 'Cancelled' }),
    ]) {
      assert.deepEqual(decideLeftovers(copied, { nudgeRuns: [done], changeGroups: [] }), DELETE);
    }
  });

  it('a release is a copy too: released to an existing ChangeGroup, it waits for that copy only', () => {
    const released = run(IS_RUN, { [RELEASED_TARGETS_ANNOTATION]: `bundle-x=${CG}` });
    const context = { changeGroups: [changeGroup({ phase: 'Waiting' })] };
    assert.equal(decideLeftovers(released, { ...context, nudgeRuns: [copy()] }).action, 'wait');
    assert.deepEqual(decideLeftovers(released, { ...context, nudgeRuns: [] }), DELETE);
  });
});
