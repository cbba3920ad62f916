// The dispatcher's decision, rule by rule (docs/decisions.md D9, N18), on build PipelineRuns in the
// shape Pipelines-as-Code and build-service give them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  HELD_TARGETS_ANNOTATION,
  PIPELINERUN_CANCELLED,
  decideNudgeHold,
} from '../../../src/domain/changegroup/hold-decision.ts';
import { decideSweep } from '../../../src/domain/changegroup/sweep.ts';
import { verifyNudgeBuild } from '../../../src/domain/changegroup/verify-build.ts';
import { decodePipelineRun } from '../../../src/domain/cluster-objects.ts';
import { nudgePipelineRunOf } from '../../../src/domain/nudge-pipelinerun.ts';
import {
  DISPATCHED_FROM_ANNOTATION,
  dispatchKey,
  heldRecordName,
} from '../../../src/domain/nudge/dispatch-held-record.ts';
import { isEffect } from '../../../src/domain/nudge/dispatch-intents.ts';
import { DISPATCH_FINALIZER, parseMarker, serializeMarker } from '../../../src/domain/nudge/dispatch-marker.ts';
import {
  DispatchInputError,
  INTEGRATION_SERVICE_PROCESSED_ANNOTATION,
  MARKER_MAX_LENGTH,
  decideDispatch,
  plannedMarkerLength,
  releasesFinalizer,
  settleFire,
  type DispatchInput,
} from '../../../src/domain/nudge/dispatch.ts';
import { DEFAULT_DISPATCH_POLICY } from '../../../src/domain/nudge/dispatch-policy.ts';
import { verifyDispatchBuild } from '../../../src/domain/nudge/dispatch-verify.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';
import {
  BUILD,
  DIGEST,
  MINUTE,
  NAMESPACE,
  OPERAND_A,
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

const FINALIZED = { finalizers: [DISPATCH_FINALIZER] };
const T0_TEXT = '20250115T103000Z';

function decide(run: PipelineRun, overrides: Partial<DispatchInput> = {}) {
  return decideDispatch(input(run, overrides));
}

function markerText(run: PipelineRun): string | undefined {
  return run.metadata?.annotations?.['nudger.konflux-ci.dev/nudges'];
}

describe('decideDispatch: who is left alone', () => {
  it('a namespace without a NudgeConfig: nothing at all, not even a finalizer, whatever the build', () => {
    for (const run of [build(), build({ running: true }), build({ succeeded: 'False' })]) {
      assert.deepEqual(decide(run, { hasNudgeConfig: false }), { intents: [] });
    }
  });

  it('a pull-request build: nothing, and a finalizer of ours somehow on it is released', () => {
    assert.deepEqual(decide(build({ eventType: 'pull_request' })), { intents: [] });
    assert.deepEqual(kinds(decide(build({ eventType: 'pull_request', ...FINALIZED })).intents), ['removeFinalizer']);
  });

  it('a running build of a component with no immediate target: nothing', () => {
    assert.deepEqual(decide(build({ running: true }), { graph: graph([]) }), { intents: [] });
    const validatedOnly = graph([{ from: SOURCE, to: 'bundle-x', mode: 'validated', gatingGroup: 'g' }]);
    assert.deepEqual(decide(build({ running: true }), { graph: validatedOnly }), { intents: [] });
  });

  it('validated entries are not fired here (issue 11), and a build with no target is done at once', () => {
    const validatedOnly = graph([{ from: SOURCE, to: 'bundle-x', mode: 'validated', gatingGroup: 'g' }]);
    const decision = decide(build(), { graph: validatedOnly });
    assert.deepEqual(decision.intents, [{ kind: 'recordOutcomes', entries: [] }]);
    assert.equal(markerText(applyAll(build(), decision.intents)), 'v1');
  });
});

describe('decideDispatch: builds that finished before the NudgeConfig (docs/decisions.md N25)', () => {
  /** operand-a's build, finished at `at` (Tekton's completionTime, or only its condition's time). */
  function finishedAt(at: string, how: 'completionTime' | 'condition' = 'completionTime', extra = {}): PipelineRun {
    const run = structuredClone(build(extra));
    const status = run.status ?? {};
    if (how === 'completionTime') status.completionTime = at;
    else for (const c of status.conditions ?? []) c.lastTransitionTime = at;
    run.status = status;
    return run;
  }
  const CREATED = '2025-01-15T10:25:00Z';

  it("never touched: left alone, no finalizer, no marker (it was build-service's to nudge)", () => {
    for (const how of ['completionTime', 'condition'] as const) {
      const run = finishedAt('2025-01-15T10:24:59Z', how);
      assert.deepEqual(decide(run, { nudgeConfigCreatedAt: CREATED }), { intents: [] });
    }
  });

  it('finished in the same second or later, or at an unknown time: nudged as usual', () => {
    for (const run of [finishedAt(CREATED), finishedAt('2025-01-15T10:26:00Z'), finishedAt('not a time'), build()]) {
      const intents = kinds(decide(run, { nudgeConfigCreatedAt: CREATED }).intents);
      assert.ok(intents.includes('fire') || intents.includes('addFinalizer'), intents.join(','));
    }
  });

  it('already begun (finalizer or marker of ours): finished, whatever the times say', () => {
    const run = finishedAt('2025-01-15T10:24:00Z', 'completionTime', FINALIZED);
    assert.ok(kinds(decide(run, { nudgeConfigCreatedAt: CREATED }).intents).includes('recordOutcomes'));
  });
});

describe('decideDispatch: the finalizer', () => {
  it('goes on while a push build with targets runs, before anything else happens', () => {
    assert.deepEqual(decide(build({ running: true })).intents, [
      { kind: 'addFinalizer', finalizer: DISPATCH_FINALIZER },
    ]);
    assert.deepEqual(decide(build({ running: true, ...FINALIZED })).intents, []);
  });

  it('a failed build: outcome skipped, finalizer released', () => {
    const decision = decide(build({ succeeded: 'False', ...FINALIZED }));
    assert.deepEqual(decision.intents, [
      { kind: 'recordOutcomes', entries: [{ name: '*', state: { kind: 'skipped', reason: 'not-succeeded' } }] },
      { kind: 'removeFinalizer', finalizer: DISPATCH_FINALIZER },
    ]);
    const after = applyAll(build({ succeeded: 'False', ...FINALIZED }), decision.intents);
    assert.equal(markerText(after), 'v1 *=skipped:not-succeeded');
    assert.deepEqual(after.metadata?.finalizers, []);
    assert.deepEqual(decide(after).intents, []);
  });

  it('a failed build of a component that nudges nothing, never touched: left alone', () => {
    assert.deepEqual(decide(build({ succeeded: 'False' }), { graph: graph([]) }).intents, []);
  });

  it('a running build being deleted: released with a reason, or left alone if never touched', () => {
    assert.deepEqual(decide(build({ running: true, deleting: true })).intents, []);
    const decision = decide(build({ running: true, deleting: true, ...FINALIZED }));
    assert.deepEqual(decision.intents, [
      { kind: 'recordOutcomes', entries: [{ name: '*', state: { kind: 'skipped', reason: 'deleted-unfinished' } }] },
      { kind: 'removeFinalizer', finalizer: DISPATCH_FINALIZER },
    ]);
  });
});

describe('decideDispatch: firing', () => {
  it('plans every target in one write, then fires each (the exact intents)', () => {
    const run = build(FINALIZED);
    const verified = verifyDispatchBuild(run, OPERAND_A);
    assert.ok(verified.ok);
    const key = (target: string) =>
      dispatchKey({ namespace: NAMESPACE, name: BUILD, uid: run.metadata?.uid ?? '' }, target);
    assert.deepEqual(decide(run).intents, [
      {
        kind: 'recordOutcomes',
        entries: [
          { name: 'bundle-x', state: { kind: 'firing', attempt: 1, startedAt: T0 } },
          { name: 'operator', state: { kind: 'firing', attempt: 1, startedAt: T0 } },
        ],
      },
      { kind: 'fire', target: 'bundle-x', executor: 'direct', attempt: 1, key: key('bundle-x'), build: verified },
      { kind: 'fire', target: 'operator', executor: 'direct', attempt: 1, key: key('operator'), build: verified },
    ]);
    assert.equal(verified.digest, DIGEST('3'));
  });

  it('adds the finalizer first when the build was never seen running', () => {
    assert.deepEqual(kinds(decide(build()).intents), ['addFinalizer', 'recordOutcomes', 'fire', 'fire']);
  });

  it('after the fires are settled: the marker names each outcome, the finalizer goes, then nothing more', () => {
    const start = build(FINALIZED);
    const first = decide(start).intents;
    const settled = runPass(start, first);
    assert.equal(markerText(settled), 'v1 bundle-x=pullRequest operator=pullRequest');
    const second = decide(settled).intents;
    assert.deepEqual(second, [{ kind: 'removeFinalizer', finalizer: DISPATCH_FINALIZER }]);
    const done = applyAll(settled, second);
    assert.deepEqual(decide(done).intents, []);
  });

  it('settleFire gives build-service Events on the nudging Component', () => {
    const [fire] = firesOf(decide(build(FINALIZED), { executor: 'renovate' }).intents);
    assert.ok(fire);
    assert.equal(fire.executor, 'renovate');
    assert.deepEqual(settleFire(fire, { ok: true, detail: 'nudge PipelineRun my-tenant/x' }, T0)[1], {
      kind: 'event',
      regarding: { kind: 'Component', name: SOURCE },
      type: 'Normal',
      reason: 'ComponentNudged',
      message: `nudged bundle-x to quay.io/org/operand-a@${DIGEST('3')} from build ${BUILD} (renovate executor): nudge PipelineRun my-tenant/x`,
    });
  });

  it('skips, with a reason and an Event each, a target that is no Component and a self-nudge', () => {
    const g = graph([
      [SOURCE, 'bundle-x'],
      [SOURCE, 'ghost'],
      [SOURCE, SOURCE],
    ]);
    const decision = decide(build(FINALIZED), { graph: g });
    assert.deepEqual(decision.intents[0], {
      kind: 'recordOutcomes',
      entries: [
        { name: 'bundle-x', state: { kind: 'firing', attempt: 1, startedAt: T0 } },
        { name: 'ghost', state: { kind: 'skipped', reason: 'target-not-found' } },
        { name: SOURCE, state: { kind: 'skipped', reason: 'self-nudge' } },
      ],
    });
    const events = decision.intents.flatMap((i) => (i.kind === 'event' ? [i.message] : []));
    assert.deepEqual(events, [
      `the nudge of ghost from build ${BUILD} is skipped: Component ghost does not exist`,
      `the nudge of ${SOURCE} from build ${BUILD} is skipped: a component never nudges itself`,
    ]);
    assert.deepEqual(
      firesOf(decision.intents).map((f) => f.target),
      ['bundle-x'],
    );
  });

  it('reports once, with the first write, an edge build-nudges-ref declares too', () => {
    const g = graph(undefined, ['bundle-x']);
    const first = decide(build(FINALIZED), { graph: g }).intents;
    assert.deepEqual(
      first.filter((i) => i.kind === 'report'),
      [
        {
          kind: 'report',
          finding: 'duplicate-build-nudges-ref',
          from: SOURCE,
          to: 'bundle-x',
          declaredAt: `Component ${NAMESPACE}/${SOURCE} spec.build-nudges-ref[0]`,
        },
      ],
    );
    const later = decide(runPass(build(FINALIZED), first), { graph: g }).intents;
    assert.equal(later.filter((i) => i.kind === 'report').length, 0);
  });
});

describe('decideDispatch: D3', () => {
  it('a succeeded build that fails verification fires nothing: skipped with the rejection, an Event on the build', () => {
    const run = build({ ...FINALIZED, url: 'quay.io/evil/operand-a:abc123' });
    const decision = decide(run);
    assert.deepEqual(decision.intents, [
      { kind: 'recordOutcomes', entries: [{ name: '*', state: { kind: 'skipped', reason: 'foreign-image' } }] },
      {
        kind: 'event',
        regarding: { kind: 'PipelineRun', name: BUILD },
        type: 'Warning',
        reason: 'NudgeBuildRejected',
        message: `build PipelineRun ${NAMESPACE}/${BUILD}: IMAGE_URL is not in the repository of Component ${NAMESPACE}/${SOURCE} (spec.containerImage quay.io/org/operand-a)`,
      },
      { kind: 'removeFinalizer', finalizer: DISPATCH_FINALIZER },
    ]);
  });

  it('a verification is required for a succeeded build, and must be of this build', () => {
    assert.throws(() => decideDispatch({ ...input(build()), verification: undefined }), DispatchInputError);
    const other = verifyDispatchBuild(build({ name: 'operand-a-on-push-other' }), OPERAND_A);
    assert.throws(() => decide(build(), { verification: other }), /is of another build/);
  });

  it('a policy it cannot use is refused, naming the field', () => {
    assert.throws(
      () => decide(build(), { policy: { ...DEFAULT_DISPATCH_POLICY, maxAttempts: 0 } }),
      /policy maxAttempts must be/,
    );
  });
});

describe('decideDispatch: D2 holds', () => {
  it('a held target never gets its own fire: write-ahead holding, the held-nudge record, then held', () => {
    const run = build(FINALIZED);
    const decision = decide(run, { changeGroups: [changeGroup()] });
    assert.deepEqual(kinds(decision.intents), ['recordOutcomes', 'hold', 'recordOutcomes', 'event', 'fire']);
    assert.deepEqual(decision.intents[0], {
      kind: 'recordOutcomes',
      entries: [
        { name: 'bundle-x', state: { kind: 'holding', changeGroup: 'bundle-x-update' } },
        { name: 'operator', state: { kind: 'firing', attempt: 1, startedAt: T0 } },
      ],
    });
    assert.deepEqual(
      firesOf(decision.intents).map((f) => f.target),
      ['operator'],
    );
    const after = runPass(run, decision.intents);
    assert.equal(markerText(after), 'v1 bundle-x=held:bundle-x-update operator=pullRequest');
  });

  it('the record is what the webhook path writes: the ChangeGroup reads it, verifies the build, the sweeper leaves it', () => {
    const run = build(FINALIZED);
    const hold = decide(run, { changeGroups: [changeGroup()] }).intents.find((i) => i.kind === 'hold');
    assert.ok(hold?.kind === 'hold');
    const { record } = hold;
    assert.equal(
      record.name,
      heldRecordName({ namespace: NAMESPACE, name: BUILD, uid: run.metadata?.uid ?? '' }, 'bundle-x'),
    );
    assert.match(record.name, /^operand-a-on-push-x7k2p-held-[0-9a-f]{16}$/);
    assert.ok(record.name.length <= 63);
    const webhook = decideNudgeHold(
      { namespace: NAMESPACE, nudgingComponent: SOURCE, nudgedComponents: ['bundle-x'] },
      [changeGroup()],
    );
    assert.ok(webhook.action === 'cancel');
    assert.equal(record.annotations[HELD_TARGETS_ANNOTATION], 'bundle-x=bundle-x-update');
    assert.deepEqual(record.annotations, {
      'build.appstudio.redhat.com/nudging-component': SOURCE,
      'build.appstudio.redhat.com/nudged-components': 'bundle-x',
      'build.appstudio.redhat.com/nudging-pipeline': BUILD,
      'build.appstudio.redhat.com/nudging-image': 'quay.io/org/operand-a:abc123',
      ...webhook.annotations,
      [DISPATCHED_FROM_ANNOTATION]: BUILD,
    });

    const created = decodePipelineRun({
      apiVersion: 'tekton.dev/v1',
      kind: 'PipelineRun',
      metadata: {
        name: record.name,
        namespace: record.namespace,
        labels: record.labels,
        annotations: record.annotations,
      },
      spec: { status: PIPELINERUN_CANCELLED, pipelineSpec: { tasks: [] } },
    });
    assert.ok(created.ok);
    const reading = nudgePipelineRunOf(created.object);
    assert.ok(reading.ok);
    const verified = verifyNudgeBuild(reading.nudge, run, OPERAND_A);
    assert.ok(verified.ok, verified.ok ? '' : verified.message);
    assert.equal(verified.digest, DIGEST('3'));
    assert.deepEqual(decideSweep(created.object, [changeGroup()]), { action: 'skip', reason: 'already-stopped' });
  });

  it('a ChangeGroup that stopped collecting holds nothing: the target is fired', () => {
    const decision = decide(build(FINALIZED), { changeGroups: [changeGroup({ phase: 'Ready' })] });
    assert.deepEqual(
      firesOf(decision.intents).map((f) => f.target),
      ['bundle-x', 'operator'],
    );
  });

  it('a hold found under way completes for its ChangeGroup, whatever the decision says now', () => {
    const run = build({ ...FINALIZED, marker: 'v1 bundle-x=holding:bundle-x-update operator=pullRequest' });
    const decision = decide(run, { changeGroups: [] });
    assert.deepEqual(kinds(decision.intents), ['hold', 'recordOutcomes', 'event', 'removeFinalizer']);
    assert.equal(markerText(applyAll(run, decision.intents)), 'v1 bundle-x=held:bundle-x-update operator=pullRequest');
  });

  it('the hold is decided once per target: a retry is fired even if a ChangeGroup appeared meanwhile', () => {
    // The failed attempt may have reached the forge: held after it, the target would get both.
    const retry = `v1 bundle-x=retry:1:${T0_TEXT}:forge-unavailable operator=pullRequest`;
    const decision = decide(build({ ...FINALIZED, marker: retry }), { changeGroups: [changeGroup()] });
    assert.deepEqual(kinds(decision.intents), ['recordOutcomes', 'fire']);
    assert.deepEqual(
      firesOf(decision.intents).map((f) => [f.target, f.attempt]),
      [['bundle-x', 2]],
    );
  });
});

describe('decideDispatch: failures and retries', () => {
  const policy = DEFAULT_DISPATCH_POLICY;

  it('a failed attempt is retried after the wait, with the same key, and ends in failed + Event after the last', () => {
    let run = build(FINALIZED);
    let now = T0;
    const keys = new Set<string>();
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt += 1) {
      const intents = decide(run, { now, graph: graph([[SOURCE, 'bundle-x']]) }).intents;
      const [fire] = firesOf(intents);
      assert.ok(fire, `attempt ${String(attempt)} fires`);
      assert.equal(fire.attempt, attempt);
      keys.add(fire.key);
      run = applyAll(run, intents);
      const settled = settleFire(
        fire,
        { ok: false, reason: 'Forge unavailable', message: 'HTTP 503 from github.com' },
        now,
      );
      run = applyAll(run, settled);
      const event = settled[1];
      assert.ok(event?.kind === 'event');
      assert.equal(event.reason, 'ComponentNudgeFailed');
      assert.equal(event.type, 'Warning');
      if (attempt < policy.maxAttempts) {
        assert.match(
          event.message,
          new RegExp(
            `^attempt ${String(attempt)}/5 to nudge bundle-x from build ${BUILD} failed \\(forge-unavailable\\): HTTP 503 from github.com; next attempt not before `,
          ),
        );
        const waiting = decide(run, { now, graph: graph([[SOURCE, 'bundle-x']]) }).intents;
        const wait = [1, 2, 4, 8][attempt - 1] ?? 0;
        assert.deepEqual(waiting, [{ kind: 'scheduleRetry', afterMs: wait * MINUTE }]);
        now += wait * MINUTE;
      } else {
        assert.match(event.message, /failed \(forge-unavailable\): HTTP 503 from github.com; giving up$/);
      }
    }
    assert.equal(keys.size, 1);
    assert.equal(markerText(run), 'v1 bundle-x=failed:forge-unavailable');
    assert.deepEqual(decide(run, { now }).intents, [{ kind: 'removeFinalizer', finalizer: DISPATCH_FINALIZER }]);
  });

  it('a permanent failure ends at once', () => {
    const [fire] = firesOf(decide(build(FINALIZED)).intents);
    assert.ok(fire);
    const settled = settleFire(
      fire,
      { ok: false, reason: 'credentials-missing', message: 'no SCM Secret', permanent: true },
      T0,
    );
    assert.deepEqual(settled[0], {
      kind: 'recordOutcomes',
      entries: [{ name: 'bundle-x', state: { kind: 'failed', reason: 'credentials-missing' } }],
    });
  });

  it('an attempt found started but not recorded was interrupted: it counts, with an Event', () => {
    const run = build({ ...FINALIZED, marker: `v1 bundle-x=firing:2:${T0_TEXT} operator=pullRequest` });
    const decision = decide(run, { now: T0 + 10_000 });
    assert.deepEqual(decision.intents, [
      {
        kind: 'recordOutcomes',
        entries: [
          {
            name: 'bundle-x',
            state: { kind: 'retry', failures: 2, notBefore: T0 + 10_000 + 2 * MINUTE, reason: 'interrupted' },
          },
        ],
      },
      {
        kind: 'event',
        regarding: { kind: 'Component', name: SOURCE },
        type: 'Warning',
        reason: 'ComponentNudgeFailed',
        message:
          `attempt 2/5 to nudge bundle-x from build ${BUILD} failed (interrupted): nudger stopped or lost its lease ` +
          'before recording the result; the nudge may have been made; next attempt not before 2025-01-15T10:32:10Z',
      },
      { kind: 'scheduleRetry', afterMs: 2 * MINUTE },
    ]);
    const last = build({ ...FINALIZED, marker: `v1 bundle-x=firing:5:${T0_TEXT} operator=pullRequest` });
    assert.equal(
      markerText(applyAll(last, decide(last).intents)),
      'v1 bundle-x=failed:interrupted operator=pullRequest',
    );
  });

  it('an entry removed, or a target deleted, while a retry waits: skipped with the reason', () => {
    const marker = `v1 bundle-x=retry:1:${T0_TEXT}:x operator=retry:1:${T0_TEXT}:x`;
    const run = build({ ...FINALIZED, marker });
    const decision = decide(run, { graph: graph([[SOURCE, 'operator']]), components: new Set([SOURCE, 'bundle-x']) });
    assert.deepEqual(decision.intents[0], {
      kind: 'recordOutcomes',
      entries: [
        { name: 'bundle-x', state: { kind: 'skipped', reason: 'entry-removed' } },
        { name: 'operator', state: { kind: 'skipped', reason: 'target-not-found' } },
      ],
    });
    assert.equal(decision.intents.at(-1)?.kind, 'removeFinalizer');
  });

  it('the NudgeConfig deleted while a retry waits: skipped, and the build is released', () => {
    const run = build({ ...FINALIZED, marker: `v1 bundle-x=retry:1:${T0_TEXT}:x operator=pullRequest` });
    const after = applyAll(run, decide(run, { hasNudgeConfig: false }).intents);
    assert.equal(markerText(after), 'v1 bundle-x=skipped:nudgeconfig-removed operator=pullRequest');
    assert.deepEqual(after.metadata?.finalizers, []);
  });
});

describe('decideDispatch: deletion', () => {
  it('a build being deleted with pending targets still fires them, then releases the finalizer', () => {
    const run = build({ ...FINALIZED, deleting: true });
    const first = decide(run).intents;
    assert.deepEqual(kinds(first), ['recordOutcomes', 'fire', 'fire']);
    const settled = runPass(run, first);
    assert.deepEqual(decide(settled).intents, [{ kind: 'removeFinalizer', finalizer: DISPATCH_FINALIZER }]);
  });

  it('being deleted, a waiting retry keeps the finalizer until it is done', () => {
    const run = build({
      ...FINALIZED,
      deleting: true,
      marker: 'v1 bundle-x=retry:1:20250115T103100Z:x operator=pullRequest',
    });
    assert.deepEqual(decide(run).intents, [{ kind: 'scheduleRetry', afterMs: MINUTE }]);
  });

  it('deleted before nudger saw it (no finalizer of ours): fired all the same, nothing to release', () => {
    const intents = decide(build({ deleting: true })).intents;
    assert.deepEqual(kinds(intents), ['recordOutcomes', 'fire', 'fire']);
  });
});

describe('decideDispatch: an unreadable marker', () => {
  it('fires nothing and writes nothing: the value may record nudges already made', () => {
    const decision = decide(build({ ...FINALIZED, marker: 'v1 bundle-x=pullrequest' }));
    assert.deepEqual(decision.intents, []);
    assert.match(decision.problem?.message ?? '', /entry 1 "bundle-x=pullrequest": unknown state "pullrequest"/);
  });

  it('never blocks a deletion', () => {
    const decision = decide(build({ ...FINALIZED, deleting: true, marker: 'v2 whatever' }));
    assert.deepEqual(decision.intents, [{ kind: 'removeFinalizer', finalizer: DISPATCH_FINALIZER }]);
    assert.ok(decision.problem);
  });
});

describe('decideDispatch: builds nudged from by someone else', () => {
  it('a newer verified build of the component: the older one nudges nothing more', () => {
    const decision = decide(build(FINALIZED), { supersededBy: 'operand-a-on-push-newer' });
    assert.deepEqual(decision.intents.slice(0, 2), [
      { kind: 'recordOutcomes', entries: [{ name: '*', state: { kind: 'skipped', reason: 'superseded' } }] },
      {
        kind: 'event',
        regarding: { kind: 'Component', name: SOURCE },
        type: 'Normal',
        reason: 'NudgeSkipped',
        message: `build ${BUILD} nudges nothing: the newer build operand-a-on-push-newer of ${SOURCE} nudges instead`,
      },
    ]);
    const pending = build({ ...FINALIZED, marker: `v1 bundle-x=retry:1:${T0_TEXT}:x operator=pullRequest` });
    const later = applyAll(pending, decide(pending, { supersededBy: 'operand-a-on-push-newer' }).intents);
    assert.equal(markerText(later), 'v1 bundle-x=skipped:superseded operator=pullRequest');
  });

  it('integration-service already nudged it: skipped, recorded on the build and not told (N49)', () => {
    const run = build({
      ...FINALIZED,
      annotations: { [INTEGRATION_SERVICE_PROCESSED_ANNOTATION]: 'bundle-x,operator' },
    });
    const decision = decide(run);
    assert.ok(decision.intents.every((intent) => intent.kind !== 'event'));
    const after = applyAll(run, decision.intents);
    assert.equal(markerText(after), 'v1 *=skipped:integration-service');
  });

  it('more targets than the marker can hold: nothing fired, a Warning on the build', () => {
    const many = Array.from({ length: 600 }, (_, i) => `target-${String(i).padStart(50, '0')}`);
    assert.ok(plannedMarkerLength(many) > MARKER_MAX_LENGTH);
    const decision = decide(build(FINALIZED), {
      graph: graph(many.map((to) => [SOURCE, to] as const)),
      components: new Set(many),
    });
    assert.deepEqual(kinds(decision.intents), ['recordOutcomes', 'event', 'removeFinalizer']);
    const event = decision.intents[1];
    assert.ok(event?.kind === 'event' && event.reason === 'TooManyNudgeTargets');
    // And 360 targets of the longest names always fit.
    const upstreamLimit = Array.from({ length: 360 }, (_, i) => `t${String(i).padStart(62, '0')}`);
    assert.ok(plannedMarkerLength(upstreamLimit) <= MARKER_MAX_LENGTH);
  });
});

describe('decideDispatch: idempotence', () => {
  it('deciding again on the state its intents produced asks for no further effect', () => {
    const scenarios: [PipelineRun, Partial<DispatchInput>][] = [
      [build(), {}],
      [build({ running: true }), {}],
      [build({ succeeded: 'False', ...FINALIZED }), {}],
      [build(FINALIZED), { changeGroups: [changeGroup()] }],
      [build({ ...FINALIZED, url: 'quay.io/evil/x:1' }), {}],
      [build({ ...FINALIZED, marker: `v1 bundle-x=firing:1:${T0_TEXT}` }), {}],
    ];
    for (const [run, overrides] of scenarios) {
      let current = run;
      for (let pass = 0; pass < 3; pass += 1) current = runPass(current, decide(current, overrides).intents);
      const effects = decide(current, overrides).intents.filter(isEffect);
      assert.deepEqual(effects, [], JSON.stringify(markerOf(current)));
    }
  });

  it('every marker it asks for serialises', () => {
    const run = build(FINALIZED);
    const after = runPass(run, decide(run, { changeGroups: [changeGroup()] }).intents);
    const marker = markerOf(after);
    assert.ok(marker);
    assert.equal(serializeMarker(marker), markerText(after));
  });
});

describe('decideDispatch: pre-merge nudges (docs/decisions.md D11, N35)', () => {
  it('a push build a pre-merge nudge PR pins is not nudged again into that target: skipped pre-merge', () => {
    const decision = decide(build(FINALIZED), { preMerge: { absorbed: new Set(['bundle-x']) } });
    assert.deepEqual(
      firesOf(decision.intents).map((fire) => fire.target),
      ['operator'],
    );
    const record = decision.intents.find((intent) => intent.kind === 'recordOutcomes');
    assert.ok(record?.kind === 'recordOutcomes');
    assert.deepEqual(record.entries.find((entry) => entry.name === 'bundle-x')?.state, {
      kind: 'skipped',
      reason: 'pre-merge',
    });
  });

  it('while a trigger of the component is open on record, the first decision waits, finalizer on', () => {
    const waiting = decide(build(FINALIZED), { preMerge: { absorbed: new Set(), waitUntil: T0 + 30_000 } });
    assert.deepEqual(waiting.intents, [{ kind: 'scheduleRetry', afterMs: 30_000 }]);
    const unguarded = decide(build(), { preMerge: { absorbed: new Set(), waitUntil: T0 + 30_000 } });
    assert.deepEqual(kinds(unguarded.intents), ['addFinalizer', 'scheduleRetry']);
    // Past the wait, the build is nudged as any push build.
    const after = decide(build(FINALIZED), { preMerge: { absorbed: new Set(), waitUntil: T0 - 1 } });
    assert.equal(firesOf(after.intents).length, 2);
  });
});

describe('releasesFinalizer: a marker write that may take the finalizer off too (docs/decisions.md N49)', () => {
  const marker = (text: string) => {
    const reading = parseMarker(text);
    assert.ok(reading.ok, text);
    return reading.marker;
  };

  it('releases once every entry is final and none is held', () => {
    assert.equal(releasesFinalizer(marker('v1 a=pullRequest b=skipped:self-nudge c=failed:forge-unavailable')), true);
    assert.equal(releasesFinalizer(marker('v1')), true);
  });

  it('keeps the finalizer while an entry is pending', () => {
    assert.equal(releasesFinalizer(marker('v1 a=pullRequest b=firing:1:20250115T100000Z')), false);
    assert.equal(releasesFinalizer(marker('v1 a=retry:1:20250115T100000Z:forge-unavailable')), false);
    assert.equal(releasesFinalizer(marker('v1 a=holding:group')), false);
  });

  it('leaves a held entry to the next decision: its ChangeGroup may release it into a fire (N19)', () => {
    assert.equal(releasesFinalizer(marker('v1 a=pullRequest b=held:group')), false);
  });
});
