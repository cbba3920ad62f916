// A ChangeGroup releasing what it held (docs/decisions.md N19): a nudge PipelineRun of build-service
// without executors is copied whole, a held-nudge record of nudger's dispatcher is only marked released, so that
// the dispatcher fires its target; its stand-in spec is never run as a copy.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { rmSync } from 'node:fs';
import { PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import { HELD_TARGETS_ANNOTATION, RELEASED_TARGETS_ANNOTATION } from '../../src/domain/changegroup/hold-decision.ts';
import { DISPATCHED_FROM_ANNOTATION } from '../../src/domain/nudge/dispatch-held-record.ts';
import {
  NotCopyableError,
  RedispatchFailedError,
  redispatchName,
  wholeRunCopy,
  type RedispatchOutcome,
} from '../../src/controllers/redispatch.ts';
import type { PipelineRun } from '../../src/schema/pipelinerun.ts';
import { CG, NS, setup } from './changegroup-env.ts';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The held nudge `name` made into what the dispatcher creates: same hold annotations, a marker of its own. */
function asDispatcherRecord(run: PipelineRun): PipelineRun {
  const metadata = run.metadata ?? {};
  const build = metadata.annotations?.['build.appstudio.redhat.com/nudging-pipeline'] ?? '';
  return {
    ...run,
    metadata: { ...metadata, annotations: { ...metadata.annotations, [DISPATCHED_FROM_ANNOTATION]: build } },
    spec: { status: 'Cancelled' },
  };
}

/** The ChangeGroup being deleted: it releases every held nudge it did not push. */
function markDeleted(env: Awaited<ReturnType<typeof setup>>): void {
  const cg = env.changeGroups.get(NS, CG);
  assert.ok(cg !== undefined);
  env.changeGroups.upsert({ ...cg, metadata: { ...cg.metadata, deletionTimestamp: '2025-01-15T10:05:00Z' } });
}

describe('ChangeGroup release of a held-nudge record the dispatcher made', () => {
  it('a deleted ChangeGroup marks the record released and copies only the build-service run', async () => {
    const env = await setup('release-record');
    dirs.push(env.dir);
    env.nudge('operand-a', '1', 1);
    env.nudge('operand-b', '2', 2);
    const record = asDispatcherRecord(env.nudgeRuns.get(NS, 'nudge-operand-a-1') ?? {});
    env.nudgeRuns.upsert(record);
    markDeleted(env);

    await env.reconcile(5);

    const writes = env.client.writes().filter((c) => c.ref === PIPELINE_RUNS);
    assert.deepEqual(
      writes.map((c) => [c.verb, c.name]),
      [
        ['patch', 'nudge-operand-a-1'],
        ['create', redispatchName('nudge-operand-b-2', ['bundle-x'])],
        ['patch', 'nudge-operand-b-2'],
      ],
    );
    assert.deepEqual(writes[0]?.body, {
      metadata: { annotations: { [RELEASED_TARGETS_ANNOTATION]: `bundle-x=${CG}` } },
    });
    assert.deepEqual(
      env.events.filter((e) => e.reason === 'NudgeReleased').map((e) => e.message),
      [
        `the nudge of bundle-x from operand-a (nudge-operand-a-1) is no longer collected; handed back to nudger's dispatcher`,
        `the nudge of bundle-x from operand-b (nudge-operand-b-2) is no longer collected; re-dispatched whole as ${writes[1]?.name ?? ''}`,
      ],
    );
  });

  it('a record is never copied: its spec is a stand-in with no Renovate task', async () => {
    const env = await setup('release-record-copy');
    dirs.push(env.dir);
    env.nudge('operand-a', '1', 1);
    const record = asDispatcherRecord(env.nudgeRuns.get(NS, 'nudge-operand-a-1') ?? {});
    assert.throws(() => wholeRunCopy(record), NotCopyableError);
  });
});

describe('ChangeGroup release of a build-service run through the executors (docs/decisions.md D2)', () => {
  /** Records the targets fired; answers with `answer`. */
  function recording(answer: () => RedispatchOutcome = () => ({ kind: 'fired', executor: 'direct' })) {
    const fired: { run: string; target: string }[] = [];
    return {
      fired,
      answer,
      fire(run: PipelineRun, target: string): Promise<RedispatchOutcome> {
        fired.push({ run: run.metadata?.name ?? '', target });
        return Promise.resolve(this.answer());
      },
    };
  }

  it('fires the released target from the build, then marks the run released; no copy', async () => {
    const redispatcher = recording();
    const env = await setup('release-executor', { redispatcher });
    dirs.push(env.dir);
    env.nudge('operand-b', '2', 2);
    markDeleted(env);

    await env.reconcile(5);

    assert.deepEqual(redispatcher.fired, [{ run: 'nudge-operand-b-2', target: 'bundle-x' }]);
    const writes = env.client.writes().filter((c) => c.ref === PIPELINE_RUNS);
    assert.deepEqual(
      writes.map((c) => [c.verb, c.name]),
      [['patch', 'nudge-operand-b-2']],
    );
    assert.deepEqual(writes[0]?.body, {
      metadata: { annotations: { [RELEASED_TARGETS_ANNOTATION]: `bundle-x=${CG}` } },
    });
  });

  it('a fire to retry marks nothing and fails the reconcile, so it is retried with backoff', async () => {
    const redispatcher = recording(() => ({
      kind: 'failed',
      reason: 'forge-unavailable',
      message: '503',
      permanent: false,
    }));
    const env = await setup('release-executor-retry', { redispatcher });
    dirs.push(env.dir);
    env.nudge('operand-b', '2', 2);
    markDeleted(env);

    await assert.rejects(env.reconcile(5), RedispatchFailedError);
    assert.deepEqual(
      env.client.writes().filter((c) => c.ref === PIPELINE_RUNS),
      [],
    );
  });

  it('without executors, a run another ChangeGroup still holds is only marked, never copied (N26)', async () => {
    const env = await setup('release-wait');
    dirs.push(env.dir);
    env.nudge('operand-b', '2', 2);
    const run = env.nudgeRuns.get(NS, 'nudge-operand-b-2');
    assert.ok(run !== undefined);
    const annotations = { ...run.metadata?.annotations, [HELD_TARGETS_ANNOTATION]: `bundle-x=${CG} docs=docs-update` };
    env.nudgeRuns.upsert({ ...run, metadata: { ...run.metadata, annotations } });
    markDeleted(env);

    await env.reconcile(5);

    const writes = env.client.writes().filter((c) => c.ref === PIPELINE_RUNS);
    assert.deepEqual(
      writes.map((c) => [c.verb, c.name]),
      [['patch', 'nudge-operand-b-2']],
    );
    assert.match(env.events.find((e) => e.reason === 'NudgeReleaseWaiting')?.message ?? '', /docs=docs-update/);
  });
});
