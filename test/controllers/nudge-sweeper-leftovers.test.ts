// The sweeper's removal of integration-service's Secret and ConfigMap of a held nudge
// (docs/decisions.md N21), against a recording ObjectClient: exact names, NotFound as success, a
// refusal by RBAC said in an Event rather than retried in a loop, and the wake-ups that bring it on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectClient } from '../../src/adapters/kubernetes/client.ts';
import { errorFromResponse } from '../../src/adapters/kubernetes/errors.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { StoreChangeGroupSource } from '../../src/cluster/changegroups.ts';
import {
  LEFTOVERS_DELETED_EVENT_REASON,
  LEFTOVERS_FORBIDDEN_EVENT_REASON,
  NudgeSweepReconciler,
  notStartedNudgeRunsFor,
  nudgeRunAndOriginal,
} from '../../src/controllers/nudge-sweeper.ts';
import {
  HELD_TARGETS_ANNOTATION,
  REDISPATCHED_FROM_ANNOTATION,
  RELEASED_TARGETS_ANNOTATION,
} from '../../src/domain/changegroup/hold-decision.ts';
import { redispatchName } from '../../src/controllers/redispatch.ts';
import { LEFTOVERS_DELETED_ANNOTATION } from '../../src/domain/changegroup/integration-service-leftovers.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ClusterChangeGroup } from '../../src/schema/changegroup.ts';
import type { PipelineRun } from '../../src/schema/pipelinerun.ts';

const NS = 'tenant';
const IS_RUN = 'renovate-pipeline-0123456789ab';

function heldRun(name = IS_RUN): PipelineRun {
  return {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name,
      namespace: NS,
      resourceVersion: '7',
      labels: { 'build.appstudio.redhat.com/type': 'nudge' },
      annotations: {
        'build.appstudio.redhat.com/nudging-component': 'a',
        'build.appstudio.redhat.com/nudged-components': 'bundle',
        'build.appstudio.redhat.com/nudging-pipeline': 'a-on-push-1',
        [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update',
      },
    },
    spec: { status: 'Cancelled' },
  };
}

type DeleteAnswer = 200 | 403 | 404;

/** Serves PipelineRuns from `objects` (the API server's current state); records every write. */
class RecordingClient implements ObjectClient {
  readonly calls: { verb: string; kind: string; name: string; body?: unknown }[] = [];
  readonly answer: DeleteAnswer;
  readonly objects = new Map<string, PipelineRun>();
  constructor(answer: DeleteAnswer = 200, objects: readonly PipelineRun[] = [heldRun()]) {
    this.answer = answer;
    for (const object of objects) this.objects.set(object.metadata?.name ?? '', object);
  }

  get<T extends KubeObject>(ref: ResourceRef, namespace: string, name: string): Promise<T> {
    const found = this.objects.get(name);
    if (found !== undefined) return Promise.resolve(structuredClone(found) as T);
    return Promise.reject(errorFromResponse({ verb: 'get', resource: ref.plural, namespace, name }, 404, undefined));
  }

  delete(ref: ResourceRef, namespace: string, name: string): Promise<void> {
    this.calls.push({ verb: 'delete', kind: ref.kind, name });
    if (this.answer === 200) return Promise.resolve();
    return Promise.reject(
      errorFromResponse({ verb: 'delete', resource: ref.plural, namespace, name }, this.answer, undefined),
    );
  }

  patch<T extends KubeObject>(ref: ResourceRef, _ns: string, name: string, _type: unknown, body: unknown): Promise<T> {
    this.calls.push({ verb: 'patch', kind: ref.kind, name, body });
    return Promise.resolve({} as T);
  }

  list = (): Promise<never> => Promise.reject(new Error('unused'));
  create = (): Promise<never> => Promise.reject(new Error('unused'));
  replace = (): Promise<never> => Promise.reject(new Error('unused'));
  replaceStatus = (): Promise<never> => Promise.reject(new Error('unused'));
  patchStatus = (): Promise<never> => Promise.reject(new Error('unused'));
}

function sweeper(client: ObjectClient, runs: readonly PipelineRun[], withChangeGroups = true) {
  const pipelineRuns = new Store<PipelineRun>();
  for (const run of runs) pipelineRuns.upsert(run);
  const changeGroups = new Store<ClusterChangeGroup>();
  const events: { type: string; reason: string; message: string }[] = [];
  const reconciler = new NudgeSweepReconciler({
    client,
    pipelineRuns,
    changeGroups: new StoreChangeGroupSource(changeGroups),
    ...(withChangeGroups ? { changeGroupObjects: changeGroups } : {}),
    events: { event: (_object, type, reason, message) => events.push({ type, reason, message }) },
  });
  const reconcile = (name = IS_RUN) => reconciler.reconcile({ namespace: NS, name }, new AbortController().signal);
  return { reconcile, events };
}

describe('the sweeper and integration-service leftovers', () => {
  it('deletes the Secret and the ConfigMap of the run’s own name, records it on the run, tells it', async () => {
    for (const answer of [200, 404] as const) {
      const client = new RecordingClient(answer);
      const { reconcile, events } = sweeper(client, [heldRun()]);
      assert.equal(await reconcile(), undefined);
      assert.deepEqual(
        client.calls.map((c) => [c.verb, c.kind, c.name]),
        [
          ['delete', 'Secret', IS_RUN],
          ['delete', 'ConfigMap', IS_RUN],
          ['patch', 'PipelineRun', IS_RUN],
        ],
        `delete answered ${String(answer)}`,
      );
      assert.deepEqual(client.calls[2]?.body, {
        metadata: { annotations: { [LEFTOVERS_DELETED_ANNOTATION]: `Secret ${IS_RUN}, ConfigMap ${IS_RUN}` } },
      });
      assert.deepEqual(
        events.map((e) => [e.type, e.reason]),
        [['Normal', LEFTOVERS_DELETED_EVENT_REASON]],
      );
    }
  });

  it('forbidden by RBAC: a Warning on the run naming what it could not delete, no record, no error', async () => {
    const client = new RecordingClient(403);
    const { reconcile, events } = sweeper(client, [heldRun()]);
    assert.equal(await reconcile(), undefined);
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ['delete'],
    );
    assert.deepEqual(events, [
      {
        type: 'Warning',
        reason: LEFTOVERS_FORBIDDEN_EVENT_REASON,
        message: `cannot delete the Secret ${IS_RUN} integration-service left for this held nudge (it holds its token): the manager may not delete secrets here`,
      },
    ]);
  });

  it('decides again on what the API server has: a release the cache has not shown yet keeps the pair', async () => {
    // The ChangeGroup is gone from its cache, but its last release of the run (a copy, then the
    // released pair) has not reached the PipelineRun cache: the API server has both.
    const copyName = redispatchName(IS_RUN, ['bundle']);
    const released = heldRun();
    released.metadata = {
      ...released.metadata,
      annotations: { ...released.metadata?.annotations, [RELEASED_TARGETS_ANNOTATION]: 'bundle=bundle-update' },
    };
    const copy = heldRun(copyName);
    copy.metadata = { ...copy.metadata, annotations: { [REDISPATCHED_FROM_ANNOTATION]: IS_RUN } };
    copy.spec = {};
    const client = new RecordingClient(200, [released, copy]);
    const { reconcile } = sweeper(client, [heldRun()]);
    await reconcile();
    assert.equal(client.calls.length, 0, 'the copy runs the same spec: the pair stays');
    // Once the copy has finished, the pair goes.
    copy.status = { conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }] };
    client.objects.set(copyName, copy);
    await reconcile();
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ['delete', 'delete', 'patch'],
    );
  });

  it('leaves a run the API server no longer has', async () => {
    const client = new RecordingClient(200, []);
    await sweeper(client, [heldRun()]).reconcile();
    assert.deepEqual(client.calls, []);
  });

  it('touches nothing for build-service’s runs, or when the ChangeGroups are not given', async () => {
    const client = new RecordingClient();
    await sweeper(client, [heldRun('renovate-pipeline-1736935680-ab12c')]).reconcile(
      'renovate-pipeline-1736935680-ab12c',
    );
    await sweeper(client, [heldRun()], false).reconcile();
    assert.deepEqual(client.calls, []);
  });

  it('wakes a held run when its ChangeGroup changes or goes, and an original when its copy changes', () => {
    const runs = new Store<PipelineRun>();
    runs.upsert(heldRun());
    runs.upsert(heldRun('renovate-pipeline-1736935680-ab12c'));
    const changeGroup = { metadata: { name: 'bundle-update', namespace: NS } } as ClusterChangeGroup;
    assert.deepEqual(notStartedNudgeRunsFor(runs)(changeGroup), [{ namespace: NS, name: IS_RUN }]);
    const other = { metadata: { name: 'other', namespace: NS } } as ClusterChangeGroup;
    assert.deepEqual(notStartedNudgeRunsFor(runs)(other), []);

    const copy = heldRun(`${IS_RUN}-rd-0011223344556677`);
    const annotated = {
      ...copy,
      metadata: { ...copy.metadata, annotations: { [REDISPATCHED_FROM_ANNOTATION]: IS_RUN } },
    };
    assert.deepEqual(nudgeRunAndOriginal(annotated), [
      { namespace: NS, name: `${IS_RUN}-rd-0011223344556677` },
      { namespace: NS, name: IS_RUN },
    ]);
    assert.deepEqual(nudgeRunAndOriginal(heldRun()), [{ namespace: NS, name: IS_RUN }]);
  });
});
