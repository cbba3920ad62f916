// The nudge sweeper (docs/decisions.md D2) against an in-memory PipelineRun API that applies RFC 6902
// patches, `test` included, the way kube-apiserver does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonPatchOperation, ObjectClient, PatchType } from '../../src/adapters/kubernetes/client.ts';
import { errorFromResponse } from '../../src/adapters/kubernetes/errors.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { HELD_BY_ANNOTATION, type ChangeGroupView } from '../../src/domain/changegroup/hold-decision.ts';
import { decideSweep, hasStarted } from '../../src/domain/changegroup/sweep.ts';
import {
  HELD_EVENT_REASON,
  NudgeSweepReconciler,
  notStartedNudgeRunsFor,
} from '../../src/controllers/nudge-sweeper.ts';
import { RedispatchFailedError, type RedispatchOutcome } from '../../src/controllers/redispatch.ts';
import { Store } from '../../src/runtime/store.ts';
import type { PipelineRun } from '../../src/schema/pipelinerun.ts';

const NS = 'tenant';

type Json = Record<string, unknown>;

function nudgeRun(
  name: string,
  extra: { status?: Json; specStatus?: string; rv?: string; kind?: boolean } = {},
): KubeObject {
  return {
    ...(extra.kind === false ? {} : { apiVersion: 'tekton.dev/v1', kind: 'PipelineRun' }),
    metadata: {
      name,
      namespace: NS,
      resourceVersion: extra.rv ?? '7',
      labels: { 'build.appstudio.redhat.com/type': 'nudge' },
      annotations: {
        'build.appstudio.redhat.com/nudging-component': 'a',
        'build.appstudio.redhat.com/nudged-components': 'bundle other',
      },
    },
    spec: { pipelineRef: { name: 'x' }, ...(extra.specStatus === undefined ? {} : { status: extra.specStatus }) },
    ...(extra.status === undefined ? {} : { status: extra.status }),
  } as KubeObject;
}

const holding: ChangeGroupView = {
  name: 'bundle-update',
  namespace: NS,
  nudgedComponent: 'bundle',
  nudgingComponents: ['a'],
  phase: 'Waiting',
};

function pointer(path: string): string[] {
  return path
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** RFC 6902 add/replace/test on objects, enough for what the sweeper sends. */
function applyJsonPatch(document: Json, ops: readonly JsonPatchOperation[]): Json | 'test-failed' {
  const copy = structuredClone(document);
  for (const op of ops) {
    const tokens = pointer(op.path);
    const last = tokens.pop() ?? '';
    let parent: Json = copy;
    for (const token of tokens) parent = parent[token] as Json;
    if (op.op === 'test') {
      if (JSON.stringify(parent[last]) !== JSON.stringify(op.value)) return 'test-failed';
    } else if (op.op === 'add' || op.op === 'replace') {
      parent[last] = structuredClone(op.value);
    } else throw new Error(`unsupported op ${op.op}`);
  }
  return copy;
}

class PipelineRunApi implements ObjectClient {
  readonly live = new Map<string, KubeObject>();
  readonly patches: JsonPatchOperation[][] = [];
  readonly merges: unknown[] = [];
  readonly created: KubeObject[] = [];
  #rv = 100;

  put(object: KubeObject): KubeObject {
    this.live.set(object.metadata?.name ?? '', structuredClone(object));
    return object;
  }

  #error(code: number, reason: string, name: string) {
    const target = { verb: 'patch', resource: 'pipelineruns', namespace: NS, name };
    return errorFromResponse(target, code, { kind: 'Status', status: 'Failure', code, reason, message: reason });
  }

  patch<T extends KubeObject>(
    _ref: ResourceRef,
    _ns: string,
    name: string,
    type: PatchType,
    patch: unknown,
  ): Promise<T> {
    const current = this.live.get(name);
    if (type === 'merge') {
      // Only the re-dispatch marker is merge-patched: annotations, nothing else.
      this.merges.push(patch);
      if (current === undefined) return Promise.reject(this.#error(404, 'NotFound', name));
      const { metadata } = patch as { metadata: { annotations: Record<string, string> } };
      const merged = structuredClone(current);
      merged.metadata = {
        ...merged.metadata,
        annotations: { ...merged.metadata?.annotations, ...metadata.annotations },
      };
      this.live.set(name, merged);
      return Promise.resolve(structuredClone(merged) as T);
    }
    const ops = patch as JsonPatchOperation[];
    this.patches.push(ops);
    if (current === undefined) return Promise.reject(this.#error(404, 'NotFound', name));
    const patched = applyJsonPatch(current as Json, ops);
    if (patched === 'test-failed') return Promise.reject(this.#error(422, 'Invalid', name));
    const stored = patched as KubeObject;
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#rv) };
    this.live.set(name, stored);
    return Promise.resolve(structuredClone(stored) as T);
  }

  get = (): Promise<never> => Promise.reject(new Error('unused'));
  list = (): Promise<never> => Promise.reject(new Error('unused'));
  create<T extends KubeObject>(_ref: unknown, object: T): Promise<T> {
    this.created.push(structuredClone(object));
    return Promise.resolve(object);
  }
  replace = (): Promise<never> => Promise.reject(new Error('unused'));
  replaceStatus = (): Promise<never> => Promise.reject(new Error('unused'));
  patchStatus = (): Promise<never> => Promise.reject(new Error('unused'));
  delete = (): Promise<never> => Promise.reject(new Error('unused'));
}

/** Records the targets fired through the executors; answers with `answer` (default: fired). */
class RecordingRedispatcher {
  readonly fired: { run: string; target: string }[] = [];
  answer: (target: string) => RedispatchOutcome = () => ({ kind: 'fired', executor: 'direct' });
  fire(run: PipelineRun, target: string): Promise<RedispatchOutcome> {
    this.fired.push({ run: run.metadata?.name ?? '', target });
    return Promise.resolve(this.answer(target));
  }
}

function setup(changeGroups: readonly ChangeGroupView[] = [holding], options: { executors?: boolean } = {}) {
  const api = new PipelineRunApi();
  const cache = new Store<KubeObject>();
  const events: { object: KubeObject; type: string; reason: string; message: string }[] = [];
  const redispatcher = new RecordingRedispatcher();
  const reconciler = new NudgeSweepReconciler({
    ...(options.executors === false ? {} : { redispatcher }),
    client: api,
    pipelineRuns: cache,
    changeGroups: { inNamespace: (ns) => changeGroups.filter((cg) => cg.namespace === ns) },
    events: {
      event: (object, type, reason, message) => {
        events.push({ object, type, reason, message });
      },
    },
    conflictRetryMs: 250,
  });
  const seed = (object: KubeObject): void => {
    api.put(object);
    cache.upsert(object);
  };
  const reconcile = (name: string) => reconciler.reconcile({ namespace: NS, name }, new AbortController().signal);
  return { api, cache, events, redispatcher, seed, reconcile };
}

describe('hasStarted', () => {
  it('is false only for an absent or entirely empty status', () => {
    assert.equal(hasStarted(nudgeRun('r')), false);
    assert.equal(hasStarted(nudgeRun('r', { status: {} })), false);
    assert.equal(hasStarted(nudgeRun('r', { status: { conditions: [], childReferences: [] } })), false);
    assert.equal(hasStarted(nudgeRun('r', { status: { startTime: '2024-01-01T00:00:00Z' } })), true);
    assert.equal(
      hasStarted(nudgeRun('r', { status: { conditions: [{ type: 'Succeeded', status: 'Unknown' }] } })),
      true,
    );
    assert.equal(hasStarted(nudgeRun('r', { status: { childReferences: [{ name: 't' }] } })), true);
    assert.equal(hasStarted(nudgeRun('r', { status: { observedGeneration: 1 } })), true);
  });

  it('never sweeps a run whose status has any content', () => {
    const content = fc.oneof(
      fc.string({ minLength: 1 }),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.anything(), { minLength: 1 }),
    );
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), content, (field, value) => {
        const sweep = decideSweep(nudgeRun('r', { status: { [field]: value } }), [holding]);
        assert.deepEqual(sweep, { action: 'skip', reason: 'started' });
      }),
    );
  });
});

describe('decideSweep', () => {
  it('cancels a not-started nudge an active ChangeGroup holds, and mirrors the webhook decision', () => {
    const sweep = decideSweep(nudgeRun('r'), [holding]);
    assert.equal(sweep.action, 'cancel');
    assert.deepEqual(sweep.decision.coveredBy, [{ changeGroup: 'bundle-update', target: 'bundle' }]);
    assert.deepEqual(sweep.decision.uncovered, ['other']);
  });

  it('leaves runs that are not nudges, already stopped, or not held', () => {
    const plain = nudgeRun('r');
    plain.metadata = { ...plain.metadata, labels: {} };
    assert.deepEqual(decideSweep(plain, [holding]), { action: 'skip', reason: 'not-a-nudge' });
    for (const specStatus of ['Cancelled', 'CancelledRunFinally', 'StoppedRunFinally']) {
      assert.deepEqual(decideSweep(nudgeRun('r', { specStatus }), [holding]), {
        action: 'skip',
        reason: 'already-stopped',
      });
    }
    assert.deepEqual(decideSweep(nudgeRun('r'), [{ ...holding, phase: 'Ready' }]), {
      action: 'skip',
      reason: 'not-held',
    });
    assert.equal(decideSweep(nudgeRun('r', { specStatus: 'PipelineRunPending' }), [holding]).action, 'cancel');
  });
});

describe('NudgeSweepReconciler', () => {
  it('cancels a held, not-started run with a resourceVersion-guarded patch and records an event', async () => {
    const { api, events, redispatcher, seed, reconcile } = setup();
    seed(nudgeRun('run-1', { kind: false })); // as a LIST item: no kind or apiVersion
    assert.equal(await reconcile('run-1'), undefined);
    assert.deepEqual(api.patches[0]?.[0], { op: 'test', path: '/metadata/resourceVersion', value: '7' });
    const live = api.live.get('run-1') as KubeObject & { spec: Json };
    assert.equal(live.spec.status, 'Cancelled');
    assert.equal(live.metadata?.annotations?.[HELD_BY_ANNOTATION], 'bundle-update');
    assert.equal(events.length, 2);
    const [event, redispatched] = events;
    assert.ok(event);
    assert.equal(event.reason, HELD_EVENT_REASON);
    assert.match(event.message, /ChangeGroup bundle-update/);
    // `other` is nudged by the same run but held by no ChangeGroup: it alone is fired through the
    // executors. No copy of the run: a copy runs every config it mounts, `bundle` included.
    assert.equal(redispatched?.reason, 'NudgeRedispatched');
    assert.deepEqual(redispatcher.fired, [{ run: 'run-1', target: 'other' }]);
    assert.equal(api.created.length, 0);
    assert.equal(api.live.get('run-1')?.metadata?.annotations?.['nudger.konflux-ci.dev/redispatched-targets'], 'other');
  });

  it('marks the run only after every uncovered target fired; a failure to retry marks nothing', async () => {
    const twoUncovered = nudgeRun('run-1');
    const annotations = twoUncovered.metadata?.annotations ?? {};
    annotations['build.appstudio.redhat.com/nudged-components'] = 'bundle other third';
    const { api, redispatcher, seed, reconcile } = setup();
    redispatcher.answer = (target) =>
      target === 'third'
        ? { kind: 'failed', reason: 'forge-unavailable', message: '503', permanent: false }
        : { kind: 'fired', executor: 'direct' };
    seed(twoUncovered);
    await assert.rejects(reconcile('run-1'), (error: unknown) => {
      assert.ok(error instanceof RedispatchFailedError);
      assert.equal(error.target, 'third');
      assert.equal(error.reason, 'forge-unavailable');
      return true;
    });
    assert.equal(
      api.live.get('run-1')?.metadata?.annotations?.['nudger.konflux-ci.dev/redispatched-targets'],
      undefined,
    );
    // The retry fires both again (same keys in the executors: nothing twice), then marks.
    const cancelled = api.live.get('run-1');
    assert.ok(cancelled);
    redispatcher.answer = () => ({ kind: 'fired', executor: 'direct' });
    seed(cancelled);
    await reconcile('run-1');
    assert.deepEqual(
      redispatcher.fired.map((f) => f.target),
      ['other', 'third', 'other', 'third'],
    );
    assert.equal(
      api.live.get('run-1')?.metadata?.annotations?.['nudger.konflux-ci.dev/redispatched-targets'],
      'other third',
    );
  });

  it('without executors, copies nothing and tells once that the uncovered targets wait (N26)', async () => {
    const { api, cache, events, seed, reconcile } = setup([holding], { executors: false });
    seed(nudgeRun('run-1'));
    await reconcile('run-1');
    assert.equal(api.created.length, 0);
    const live = api.live.get('run-1');
    assert.equal(live?.metadata?.annotations?.['nudger.konflux-ci.dev/redispatch-deferred'], 'other');
    assert.deepEqual(
      events.map((e) => [e.type, e.reason]),
      [
        ['Normal', HELD_EVENT_REASON],
        ['Warning', 'NudgeRedispatchDeferred'],
      ],
    );
    assert.ok(live);
    cache.upsert(live);
    await reconcile('run-1');
    assert.equal(events.length, 2);
  });

  it('does nothing on a second reconcile of the cancelled run', async () => {
    const { api, cache, events, seed, reconcile } = setup();
    seed(nudgeRun('run-1'));
    await reconcile('run-1');
    const patched = api.live.get('run-1');
    assert.ok(patched);
    cache.upsert(patched); // the watch delivers the patched run
    await reconcile('run-1');
    assert.equal(api.patches.length, 1);
    assert.equal(api.created.length, 0);
    assert.equal(events.length, 2);
  });

  it('never touches a started run', async () => {
    const { api, seed, reconcile } = setup();
    seed(nudgeRun('run-1', { status: { startTime: '2024-01-01T00:00:00Z' } }));
    await reconcile('run-1');
    assert.equal(api.patches.length, 0);
  });

  it('requeues instead of cancelling when the run changed since the cache saw it', async () => {
    const { api, cache, events, reconcile } = setup();
    cache.upsert(nudgeRun('run-1', { rv: '7' }));
    api.put(nudgeRun('run-1', { rv: '8', status: { startTime: '2024-01-01T00:00:00Z' } }));
    assert.deepEqual(await reconcile('run-1'), { requeueAfterMs: 250 });
    const live = api.live.get('run-1') as KubeObject & { spec: Json };
    assert.equal(live.spec.status, undefined);
    assert.equal(events.length, 0);
  });

  it('ignores a run deleted meanwhile, and one missing from the cache', async () => {
    const { api, cache, reconcile } = setup();
    cache.upsert(nudgeRun('gone'));
    assert.equal(await reconcile('gone'), undefined);
    assert.equal(await reconcile('never-seen'), undefined);
    assert.equal(api.patches.length, 1);
  });

  it('leaves a run no ChangeGroup holds', async () => {
    const { api, seed, reconcile } = setup([]);
    seed(nudgeRun('run-1'));
    await reconcile('run-1');
    assert.equal(api.patches.length, 0);
  });
});

describe('notStartedNudgeRunsFor', () => {
  it('maps a ChangeGroup to its namespace nudge runs that may still be swept', () => {
    const cache = new Store<KubeObject>();
    cache.upsert(nudgeRun('fresh', { kind: false }));
    cache.upsert(nudgeRun('started', { status: { startTime: '2024-01-01T00:00:00Z' } }));
    cache.upsert(nudgeRun('cancelled', { specStatus: 'Cancelled' }));
    const elsewhere = nudgeRun('elsewhere');
    elsewhere.metadata = { ...elsewhere.metadata, namespace: 'other' };
    cache.upsert(elsewhere);
    const keys = notStartedNudgeRunsFor(cache)({
      metadata: { name: 'cg', namespace: NS },
      spec: { nudgedComponent: 'x' },
    });
    assert.deepEqual(keys, [{ namespace: NS, name: 'fresh' }]);
  });
});
