// The dispatcher's watch on the renovate executor's nudge PipelineRuns (docs/decisions.md N24): a run
// that ends Succeeded=False gives one ComponentNudgeFailed Event on the nudging Component, counted
// once, and the run is annotated as told. A reconcile that meets it again (a restart before the
// annotation was written, a stale cache) finds the Event and neither tells nor counts again. An
// Event the API server refuses is retried, not counted, and the run is not marked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CORE_EVENTS, PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { dispatchMetrics } from '../../src/controllers/dispatch/metrics.ts';
import { NudgeRunFailureReconciler } from '../../src/controllers/dispatch/nudge-run-failures.ts';
import { FAILURE_REPORTED_ANNOTATION } from '../../src/domain/nudge/nudge-run-failure.ts';
import { createRegistry } from '../../src/runtime/metrics.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ClusterComponent } from '../../src/schema/component.ts';
import type { PipelineRun } from '../../src/schema/pipelinerun.ts';
import { FAKE_TOKEN, RUN_NAME, executorRun } from '../domain/nudge/renovate-run-fixture.ts';
import { FakeObjectClient, status } from '../runtime/fakes.ts';

const NAME = RUN_NAME;
const TOKEN = FAKE_TOKEN;
const KEY = { namespace: 'tenant', name: NAME };

interface Told extends KubeObject {
  reason?: string;
  type?: string;
  message?: string;
  involvedObject?: { kind?: string; name?: string; uid?: string };
}

const failedRun = (): PipelineRun =>
  executorRun({ status: 'False', reason: 'Failed', message: `renovate: TOKEN_token_0=${TOKEN} refused` });

function setUp() {
  const client = new FakeObjectClient();
  const run = failedRun();
  client.objects.set(`pipelineruns/tenant/${NAME}`, run);
  const nudgeRuns = new Store<PipelineRun>();
  nudgeRuns.upsert(run);
  const components = new Store<ClusterComponent>();
  components.upsert({
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { namespace: 'tenant', name: 'operator', uid: 'component-uid' },
  });
  const metrics = dispatchMetrics(createRegistry());
  const reconciler = new NudgeRunFailureReconciler({
    client,
    nudgeRuns,
    components,
    metrics,
    now: () => Date.parse('2026-11-26T10:00:00Z'),
  });
  const events = () =>
    [...client.objects.entries()].filter(([key]) => key.startsWith('events/')).map(([, e]) => e as Told);
  const counted = async () => (await metrics.nudgeRunsFailed.get()).values.map((v) => [v.labels.reason, v.value]);
  const annotation = () =>
    client.objects.get(`pipelineruns/tenant/${NAME}`)?.metadata?.annotations?.[FAILURE_REPORTED_ANNOTATION];
  return { client, reconciler, events, counted, annotation };
}

describe('NudgeRunFailureReconciler', () => {
  it('tells a failed run once on the nudging Component, counts it once, marks the run; a second meeting adds nothing', async () => {
    const { client, reconciler, events, counted, annotation } = setUp();
    assert.equal(await reconciler.reconcile(KEY, new AbortController().signal), undefined);
    const [event, ...more] = events();
    assert.equal(more.length, 0);
    assert.ok(event !== undefined);
    assert.equal(event.reason, 'ComponentNudgeFailed');
    assert.equal(event.type, 'Warning');
    assert.deepEqual(
      [event.involvedObject?.kind, event.involvedObject?.name, event.involvedObject?.uid],
      ['Component', 'operator', 'component-uid'],
    );
    assert.match(
      event.message ?? '',
      new RegExp(`PipelineRun ${NAME} ended Failed: renovate: TOKEN_token_0=\\[redacted\\]`),
    );
    assert.ok(!JSON.stringify(event).includes(TOKEN));
    assert.deepEqual(await counted(), [['Failed', 1]]);
    assert.equal(annotation(), '2026-11-26T10:00:00Z');

    // The informer's copy still lacks the annotation (a restart before it was written, a slow cache).
    await reconciler.reconcile(KEY, new AbortController().signal);
    assert.equal(events().length, 1);
    assert.deepEqual(await counted(), [['Failed', 1]]);
    // This process remembers telling it: the second meeting asks the API server nothing (N49).
    assert.equal(client.calls.filter((c) => c.verb === 'create' && c.ref === CORE_EVENTS).length, 1);
  });

  it('an Event the API server refuses is retried: nothing counted, the run not marked', async () => {
    const { client, reconciler, events, counted, annotation } = setUp();
    client.fault = (verb, ref) =>
      verb === 'create' && ref === CORE_EVENTS ? status(503, 'ServiceUnavailable') : undefined;
    await assert.rejects(reconciler.reconcile(KEY, new AbortController().signal));
    assert.deepEqual([events().length, await counted(), annotation()], [0, [], undefined]);
    client.fault = undefined;
    await reconciler.reconcile(KEY, new AbortController().signal);
    assert.deepEqual([events().length, await counted(), annotation()], [1, [['Failed', 1]], '2026-11-26T10:00:00Z']);
  });

  it('a run deleted before it is marked needs no mark', async () => {
    const { client, reconciler, events } = setUp();
    client.objects.delete(`pipelineruns/tenant/${NAME}`);
    await reconciler.reconcile(KEY, new AbortController().signal);
    assert.equal(events().length, 1);
    assert.equal(client.calls.filter((c) => c.verb === 'patch' && c.ref === PIPELINE_RUNS).length, 1);
  });
});
