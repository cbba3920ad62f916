// A renovate nudge that fails inside its run is told once (docs/decisions.md N24): which runs count
// (the renovate executor's, finished Succeeded=False, not stopped on purpose, not yet told) and
// what the Event says (target, build, run, Tekton's reason and message, nothing shaped like a token).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FAILURE_REPORTED_ANNOTATION,
  isRenovateExecutorRun,
  nudgeRunFailure,
} from '../../../src/domain/nudge/nudge-run-failure.ts';
import { DISPATCHED_FROM_ANNOTATION } from '../../../src/domain/nudge/dispatch-held-record.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';
import { FAKE_TOKEN, RUN_KEY, executorRun } from './renovate-run-fixture.ts';

const KEY = RUN_KEY;
const TOKEN = FAKE_TOKEN;
const run = executorRun;

const failed = (message?: string, reason = 'Failed') =>
  run({ status: 'False', reason, ...(message === undefined ? {} : { message }) });

const withName = (name: string) => (r: PipelineRun) => ({ ...r, metadata: { ...r.metadata, name } });
const annotated = (key: string, value: string) => (r: PipelineRun) => ({
  ...r,
  metadata: { ...r.metadata, annotations: { ...r.metadata?.annotations, [key]: value } },
});

describe('nudgeRunFailure', () => {
  it('a failed run of the renovate executor is told on the nudging Component, naming target, build, run, reason', () => {
    const failure = nudgeRunFailure(failed('Tasks Completed: 1 (Failed: 1, Cancelled 0), Skipped: 0'));
    assert.ok(failure !== undefined);
    assert.equal(failure.namespace, 'tenant');
    assert.equal(failure.component, 'operator');
    assert.equal(failure.metricReason, 'Failed');
    assert.deepEqual(failure.fact, ['nudge-run-failed', 'tenant', 'run-uid-1']);
    assert.equal(
      failure.message,
      'nudge of operator-bundle from build operator-on-push-abcde failed in its Renovate run: PipelineRun ' +
        `renovate-pipeline-${KEY} ended Failed: Tasks Completed: 1 (Failed: 1, Cancelled 0), Skipped: 0. nudger ` +
        'does not run it again; the next build of operator nudges operator-bundle anew',
    );
  });

  it('a token in the condition message never reaches the Event, in any of the shapes Renovate logs it', () => {
    const message = [
      `"renovate" exited with code 1: TOKEN_token_0=${TOKEN}`,
      `git clone https://x-access-token:${TOKEN}@github.com/acme/operator-bundle failed`,
      `Authorization: token ${TOKEN}`,
      `bare ${TOKEN} at the end`,
    ].join('\n');
    const failure = nudgeRunFailure(failed(message));
    assert.ok(failure !== undefined);
    assert.ok(!failure.message.includes(TOKEN), failure.message);
    assert.ok(!failure.message.includes(TOKEN.slice(4, 20)), failure.message);
    assert.match(failure.message, /https:\/\/\*\*\*@github\.com\/acme\/operator-bundle/);
    assert.ok(!failure.message.includes('\n'), 'one line');
  });

  it('a long message is cut, after redaction, and a missing one says so', () => {
    const long = `${'x'.repeat(590)} TOKEN_token_0=${TOKEN} ${'y'.repeat(400)}`;
    const cut = nudgeRunFailure(failed(long));
    assert.ok(cut !== undefined && !cut.message.includes(TOKEN.slice(0, 8)), cut?.message);
    assert.ok(cut.message.length < 900, String(cut.message.length));
    assert.match(nudgeRunFailure(failed())?.message ?? '', /ended Failed: no message\./);
  });

  it("Tekton's reason is the metric label when it is a CamelCase word; else Unknown or Other", () => {
    assert.equal(nudgeRunFailure(failed('m', 'PipelineRunTimeout'))?.metricReason, 'PipelineRunTimeout');
    assert.equal(nudgeRunFailure(run({ status: 'False', message: 'm' }))?.metricReason, 'Unknown');
    assert.equal(nudgeRunFailure(failed('m', 'not a reason; ghs_x'))?.metricReason, 'Other');
  });

  it('nothing to tell: running, succeeded, not yet started', () => {
    assert.equal(nudgeRunFailure(run(undefined)), undefined);
    assert.equal(nudgeRunFailure(run({ status: 'Unknown', reason: 'Running' })), undefined);
    assert.equal(nudgeRunFailure(run({ status: 'True', reason: 'Succeeded' })), undefined);
  });

  it('nothing to tell: a run stopped on purpose (the webhook holding it, a human), already told', () => {
    const cancelled = (specStatus: string, reason: string) =>
      run({ status: 'False', reason }, (r) => ({ ...r, spec: { ...r.spec, status: specStatus } }));
    assert.equal(nudgeRunFailure(cancelled('Cancelled', 'Cancelled')), undefined);
    assert.equal(nudgeRunFailure(cancelled('StoppedRunFinally', 'StoppedRunningFinally')), undefined);
    assert.equal(nudgeRunFailure(failed('m', 'Cancelled')), undefined, 'cancelled, whatever spec.status says');
    const told = run(
      { status: 'False', reason: 'Failed' },
      annotated(FAILURE_REPORTED_ANNOTATION, '2026-11-26T10:00:00Z'),
    );
    assert.equal(nudgeRunFailure(told), undefined);
  });

  it("nothing to tell about other nudge runs: build-service's, integration-service's, held-nudge records", () => {
    const failedAs = (change: (r: PipelineRun) => PipelineRun) => run({ status: 'False', reason: 'Failed' }, change);
    const buildService = failedAs(withName('renovate-pipeline-1764151200-ab1cd'));
    const integrationService = failedAs(withName('renovate-pipeline-0123456789ab'));
    const record = failedAs(annotated(DISPATCHED_FROM_ANNOTATION, 'operator-on-push-abcde'));
    const unlabelled = failedAs((r) => ({ ...r, metadata: { ...r.metadata, labels: {} } }));
    for (const other of [buildService, integrationService, record, unlabelled]) {
      assert.equal(isRenovateExecutorRun(other), false, other.metadata?.name);
      assert.equal(nudgeRunFailure(other), undefined);
    }
    assert.equal(isRenovateExecutorRun(run(undefined)), true);
  });
});
