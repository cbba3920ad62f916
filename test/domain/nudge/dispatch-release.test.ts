// A ChangeGroup releasing a held-nudge record the dispatcher made (docs/decisions.md N19): the
// record is found for its build only, and the build's `held:<changegroup>` entry is fired once,
// without asking D2 again, or skipped when it may no longer be fired.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  HELD_TARGETS_ANNOTATION,
  PIPELINERUN_CANCELLED,
  RELEASED_TARGETS_ANNOTATION,
} from '../../../src/domain/changegroup/hold-decision.ts';
import { heldRecordName, type BuildIdentity } from '../../../src/domain/nudge/dispatch-held-record.ts';
import { DISPATCH_FINALIZER } from '../../../src/domain/nudge/dispatch-marker.ts';
import {
  hasReleasedHold,
  isDispatcherHeldRecord,
  recordBuildKey,
  releasedHolds,
} from '../../../src/domain/nudge/dispatch-release.ts';
import { SKIP_REASONS, decideDispatch, type DispatchInput } from '../../../src/domain/nudge/dispatch.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';
import {
  BUILD,
  MINUTE,
  NAMESPACE,
  SOURCE,
  T0,
  applyAll,
  build,
  changeGroup,
  firesOf,
  graph,
  input,
  kinds,
  markerOf,
  runPass,
} from './dispatch-fixtures.ts';

const CG = 'bundle-x-update';
const HELD = `v1 bundle-x=held:${CG} operator=pullRequest`;

function identity(run: PipelineRun): BuildIdentity {
  return { namespace: NAMESPACE, name: BUILD, uid: run.metadata?.uid ?? '' };
}

/** The held-nudge record as it sits in the cache: what the dispatcher created, plus the release. */
function record(run: PipelineRun, target: string, annotations: Record<string, string> = {}): PipelineRun {
  return {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name: heldRecordName(identity(run), target),
      namespace: NAMESPACE,
      labels: { 'build.appstudio.redhat.com/type': 'nudge' },
      annotations: {
        'build.appstudio.redhat.com/nudging-component': SOURCE,
        'build.appstudio.redhat.com/nudged-components': target,
        'build.appstudio.redhat.com/nudging-pipeline': BUILD,
        [HELD_TARGETS_ANNOTATION]: `${target}=${CG}`,
        'nudger.konflux-ci.dev/dispatched-from': BUILD,
        ...annotations,
      },
    },
    spec: { status: PIPELINERUN_CANCELLED },
  };
}

const released = (run: PipelineRun, target = 'bundle-x'): PipelineRun =>
  record(run, target, { [RELEASED_TARGETS_ANNOTATION]: `${target}=${CG}` });

function decide(run: PipelineRun, records: readonly PipelineRun[], overrides: Partial<DispatchInput> = {}) {
  return decideDispatch(input(run, { releasedHolds: releasedHolds(identity(run), records), ...overrides }));
}

describe('releasedHolds', () => {
  it('reads the pair a ChangeGroup released on this build’s record, and tells records from other runs', () => {
    const run = build({ marker: HELD });
    assert.deepEqual([...releasedHolds(identity(run), [released(run)])], [['bundle-x', CG]]);
    assert.equal(isDispatcherHeldRecord(released(run)), true);
    assert.deepEqual(recordBuildKey(released(run)), { namespace: NAMESPACE, name: BUILD });
    const serviceRun: PipelineRun = { metadata: { name: 'renovate-pipeline-1', namespace: NAMESPACE } };
    assert.equal(isDispatcherHeldRecord(serviceRun), false);
    assert.equal(recordBuildKey(serviceRun), undefined);
  });

  it('ignores a record not released, released for another pair, of another build or namespace, or renamed', () => {
    const run = build({ marker: HELD });
    const older = build({ marker: HELD });
    (older.metadata as { uid?: string }).uid = 'b6f0d6a8-0000-4000-8000-000000000002';
    const moved = released(run);
    const ignored = [
      record(run, 'bundle-x'),
      record(run, 'bundle-x', { [RELEASED_TARGETS_ANNOTATION]: 'bundle-x=another-cg' }),
      record(run, 'bundle-x', { [RELEASED_TARGETS_ANNOTATION]: `operator=${CG}` }),
      // A rebuilt PipelineRun of the same name is another build: its record's name differs.
      released(older),
      { ...moved, metadata: { ...moved.metadata, namespace: 'other-tenant' } },
      { ...moved, metadata: { ...moved.metadata, name: 'some-other-name' } },
      // Released, but the record never held that pair.
      record(run, 'bundle-x', { [HELD_TARGETS_ANNOTATION]: '', [RELEASED_TARGETS_ANNOTATION]: `bundle-x=${CG}` }),
    ];
    assert.deepEqual([...releasedHolds(identity(run), ignored)], []);
  });
});

describe('decideDispatch: a released hold', () => {
  it('is fired once, without asking D2 again (the ChangeGroup may still look active), finalizer back on', () => {
    const run = build({ marker: HELD });
    const decision = decide(run, [released(run)], { changeGroups: [changeGroup()] });
    assert.deepEqual(kinds(decision.intents), ['addFinalizer', 'recordOutcomes', 'fire']);
    assert.deepEqual(decision.intents[1], {
      kind: 'recordOutcomes',
      entries: [{ name: 'bundle-x', state: { kind: 'firing', attempt: 1, startedAt: T0 } }],
    });
    assert.deepEqual(
      firesOf(decision.intents).map((f) => [f.target, f.attempt]),
      [['bundle-x', 1]],
    );

    const after = runPass(run, decision.intents);
    assert.deepEqual(markerOf(after)?.entries, [
      { name: 'bundle-x', state: { kind: 'pullRequest' } },
      { name: 'operator', state: { kind: 'pullRequest' } },
    ]);
    // The record stays released; the entry is final and is not fired again.
    const next = decide(after, [released(run)], { changeGroups: [changeGroup()] });
    assert.deepEqual(kinds(next.intents), ['removeFinalizer']);
    const done = runPass(after, next.intents);
    assert.deepEqual(decide(done, [released(run)], { changeGroups: [changeGroup()] }).intents, []);
  });

  it('a crash after the firing write counts the attempt and retries it, never holds it again', () => {
    const run = build({ marker: HELD, finalizers: [DISPATCH_FINALIZER] });
    const firing = applyAll(run, decide(run, [released(run)]).intents.slice(0, 1));
    assert.equal(markerOf(firing)?.entries[0]?.state.kind, 'firing');
    const counted = decide(firing, [released(run)], { changeGroups: [changeGroup()], now: T0 + 10 * MINUTE });
    const waiting = runPass(firing, counted.intents);
    assert.equal(markerOf(waiting)?.entries[0]?.state.kind, 'retry');
    const retry = decide(waiting, [released(run)], { changeGroups: [changeGroup()], now: T0 + 12 * MINUTE });
    assert.deepEqual(kinds(retry.intents), ['recordOutcomes', 'fire']);
    assert.deepEqual(
      firesOf(retry.intents).map((f) => [f.target, f.attempt]),
      [['bundle-x', 2]],
    );
  });

  it('is skipped, with a reason, when its entry was removed, the target deleted or a newer build came', () => {
    const run = build({ marker: HELD, finalizers: [DISPATCH_FINALIZER] });
    const cases: [Partial<DispatchInput>, string][] = [
      [{ graph: graph([[SOURCE, 'operator']]) }, SKIP_REASONS.entryRemoved],
      [{ components: new Set([SOURCE, 'operator']) }, SKIP_REASONS.targetNotFound],
      [{ supersededBy: 'operand-a-on-push-newer' }, SKIP_REASONS.superseded],
      [{ hasNudgeConfig: false }, SKIP_REASONS.nudgeConfigRemoved],
    ];
    for (const [overrides, reason] of cases) {
      const decision = decide(run, [released(run)], overrides);
      assert.deepEqual(firesOf(decision.intents), [], reason);
      const after = runPass(run, decision.intents);
      assert.deepEqual(markerOf(after)?.entries[0], { name: 'bundle-x', state: { kind: 'skipped', reason } }, reason);
      assert.ok(
        decision.intents.some((i) => i.kind === 'removeFinalizer'),
        reason,
      );
    }
  });

  it('a hold not released, or released by another ChangeGroup than the entry names, stays final', () => {
    const run = build({ marker: HELD });
    assert.deepEqual(decide(run, [record(run, 'bundle-x')]).intents, []);
    const elsewhere = new Map([['bundle-x', 'another-cg']]);
    assert.deepEqual(decideDispatch(input(run, { releasedHolds: elsewhere })).intents, []);
    assert.equal(hasReleasedHold(markerOf(run) ?? { entries: [] }, elsewhere), false);
  });

  it('a record released while its hold was still being written: the hold completes, then the target fires', () => {
    const run = build({ marker: `v1 bundle-x=holding:${CG} operator=pullRequest`, finalizers: [DISPATCH_FINALIZER] });
    const first = decide(run, [released(run)], { changeGroups: [] });
    assert.deepEqual(kinds(first.intents), ['hold', 'recordOutcomes', 'event']);
    const held = runPass(run, first.intents);
    const second = decide(held, [released(run)], { changeGroups: [] });
    assert.deepEqual(kinds(second.intents), ['recordOutcomes', 'fire']);
  });
});
