// Handing held nudges back to ordinary nudging (docs/decisions.md D2, N26). A Renovate nudge run runs
// every config it mounts, so a copy cannot narrow it: targets are fired one by one from the run's
// build through the manager's executors (Redispatcher), and only without executors is the whole run
// copied (releaseWholeRun). Before, a copy with a narrowed nudged-components annotation was made per
// target set, which nudged every target again; these tests replace the ones of that copy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ObjectClient, PatchType, WriteOptions } from '../../src/adapters/kubernetes/client.ts';
import { errorFromResponse, isAlreadyExists } from '../../src/adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { COMPONENTS_KIND, PIPELINE_RUNS_KIND } from '../../src/cluster/watched-kinds.ts';
import {
  HELD_BY_ANNOTATION,
  HELD_TARGETS_ANNOTATION,
  HOLD_REASON_ANNOTATION,
  REDISPATCH_ANNOTATION,
} from '../../src/domain/changegroup/hold-decision.ts';
import { isDns1123Label } from '../../src/domain/labels.ts';
import { NUDGED_COMPONENTS_ANNOTATION, readNudgePipelineRun } from '../../src/domain/nudge-pipelinerun.ts';
import { dispatchKey } from '../../src/domain/nudge/dispatch-held-record.ts';
import { RELEASED_TARGETS_ANNOTATION } from '../../src/controllers/changegroup/inputs.ts';
import {
  isFinalOutcome,
  REDISPATCHED_FROM_ANNOTATION,
  REDISPATCHED_TARGETS_ANNOTATION,
  Redispatcher,
  redispatchName,
  releaseWholeRun,
  wholeRunCopy,
} from '../../src/controllers/redispatch.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ClusterComponent } from '../../src/schema/component.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import { decoded } from '../support/decoded.ts';
import { buildRun, DIGEST, nudgeRun } from '../domain/changegroup/fixtures.ts';
import { FakeObjectClient } from '../runtime/fakes.ts';
import { bundleX, nudgeConfig, operandA, recordingEvents, recordingExecutors } from './dispatch-env.ts';

const NS = 'tenant';
const ORIGINAL = 'renovate-pipeline-1736935680-ab12c';

function heldRun(annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name: ORIGINAL,
      namespace: NS,
      uid: 'uid-1',
      resourceVersion: '42',
      creationTimestamp: '2025-01-15T10:00:00Z',
      labels: { 'build.appstudio.redhat.com/type': 'nudge', 'app.kubernetes.io/part-of': 'x' },
      annotations: {
        'build.appstudio.redhat.com/nudging-component': 'operand-a',
        [NUDGED_COMPONENTS_ANNOTATION]: 'bundle other third',
        'build.appstudio.redhat.com/nudging-pipeline': 'operand-a-on-push-x7k2p',
        [HELD_BY_ANNOTATION]: 'bundle-update',
        [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update',
        [HOLD_REASON_ANNOTATION]: 'held',
        [REDISPATCH_ANNOTATION]: 'other third',
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
        ...annotations,
      },
    },
    spec: { pipelineSpec: { tasks: [{ name: 'renovate' }] }, params: [{ name: 'p', value: 'v' }], status: 'Cancelled' },
    status: { conditions: [{ type: 'Succeeded', status: 'False', reason: 'Cancelled' }] },
  } as KubeObject;
}

interface Call {
  readonly verb: 'create' | 'patch';
  readonly ref: ResourceRef;
  readonly namespace?: string;
  readonly name?: string;
  readonly type?: PatchType;
  readonly body: unknown;
  readonly options?: WriteOptions;
}

/** Records create and patch; `createError`/`patchError` make them fail with that HTTP status. */
class RecordingClient implements ObjectClient {
  readonly calls: Call[] = [];
  createError: { code: number; reason: string } | undefined;
  patchError: { code: number; reason: string } | undefined;

  #fail(verb: string, name: string, error: { code: number; reason: string }) {
    return errorFromResponse({ verb, resource: 'pipelineruns', namespace: NS, name }, error.code, {
      kind: 'Status',
      status: 'Failure',
      code: error.code,
      reason: error.reason,
      message: error.reason,
    });
  }

  create<T extends KubeObject>(ref: ResourceRef, object: T, options?: WriteOptions): Promise<T> {
    this.calls.push({ verb: 'create', ref, body: structuredClone(object), ...(options ? { options } : {}) });
    if (this.createError) return Promise.reject(this.#fail('create', object.metadata?.name ?? '', this.createError));
    return Promise.resolve(object);
  }

  patch<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T> {
    this.calls.push({ verb: 'patch', ref, namespace, name, type, body: patch, ...(options ? { options } : {}) });
    if (this.patchError) return Promise.reject(this.#fail('patch', name, this.patchError));
    return Promise.resolve({ metadata: { name, namespace } } as T);
  }

  get = (): Promise<never> => Promise.reject(new Error('unused'));
  list = (): Promise<never> => Promise.reject(new Error('unused'));
  replace = (): Promise<never> => Promise.reject(new Error('unused'));
  replaceStatus = (): Promise<never> => Promise.reject(new Error('unused'));
  patchStatus = (): Promise<never> => Promise.reject(new Error('unused'));
  delete = (): Promise<never> => Promise.reject(new Error('unused'));
}

const dnsLabel = fc
  .stringMatching(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/)
  .filter((s) => s.length <= 63 && isDns1123Label(s));
const targetSet = fc.uniqueArray(dnsLabel, { minLength: 1, maxLength: 5 });

describe('redispatchName', () => {
  it('is deterministic and independent of target order', () => {
    fc.assert(
      fc.property(dnsLabel, targetSet, (original, targets) => {
        const name = redispatchName(original, targets);
        assert.equal(redispatchName(original, [...targets].reverse()), name);
        assert.equal(redispatchName(original, targets), name);
      }),
    );
  });

  it('is a DNS-1123 label of at most 63 characters, however long the original', () => {
    fc.assert(
      fc.property(dnsLabel, fc.nat(200), targetSet, (original, extra, targets) => {
        // Names up to 63 characters, and longer ones built from valid pieces.
        const long = `${original}${'-x'.repeat(extra % 40)}`;
        for (const name of [redispatchName(original, targets), redispatchName(long, targets)]) {
          assert.ok(name.length <= 63, name);
          assert.ok(isDns1123Label(name), name);
        }
      }),
    );
    // The cut lands just after a hyphen: the hyphen is dropped rather than doubled.
    const tricky = `${'a'.repeat(42)}-${'b'.repeat(30)}`;
    const name = redispatchName(tricky, ['bundle']);
    assert.ok(isDns1123Label(name), name);
    assert.ok(!name.includes('--'), name);
  });

  it('keeps the original recognisable and marks the copy', () => {
    const name = redispatchName(ORIGINAL, ['bundle']);
    assert.match(name, /^renovate-pipeline-1736935680-ab12c-rd-[0-9a-f]{16}$/);
  });

  it('differs between target sets of one original', () => {
    fc.assert(
      fc.property(dnsLabel, targetSet, targetSet, (original, a, b) => {
        fc.pre(new Set(a).size !== new Set(b).size || a.some((t) => !b.includes(t)));
        assert.notEqual(redispatchName(original, a), redispatchName(original, b));
      }),
    );
    assert.notEqual(redispatchName(ORIGINAL, ['a', 'b']), redispatchName(ORIGINAL, ['a b']));
  });
});

describe('wholeRunCopy', () => {
  it('copies labels, spec, every nudged component and the other annotations; drops spec.status, status and server fields', () => {
    const original = heldRun();
    const copy = wholeRunCopy(original) as KubeObject & { spec: Record<string, unknown> };
    assert.equal(copy.apiVersion, 'tekton.dev/v1');
    assert.equal(copy.kind, 'PipelineRun');
    assert.deepEqual(copy.metadata, {
      name: redispatchName(ORIGINAL, ['bundle', 'other', 'third']),
      namespace: NS,
      labels: { 'build.appstudio.redhat.com/type': 'nudge', 'app.kubernetes.io/part-of': 'x' },
      annotations: {
        'build.appstudio.redhat.com/nudging-component': 'operand-a',
        [NUDGED_COMPONENTS_ANNOTATION]: 'bundle other third',
        'build.appstudio.redhat.com/nudging-pipeline': 'operand-a-on-push-x7k2p',
        [REDISPATCHED_FROM_ANNOTATION]: ORIGINAL,
      },
    });
    assert.deepEqual(copy.spec, {
      pipelineSpec: { tasks: [{ name: 'renovate' }] },
      params: [{ name: 'p', value: 'v' }],
    });
    assert.equal('status' in copy, false);
    // The original is left as it was.
    assert.equal((original as { spec: { status?: string } }).spec.status, 'Cancelled');
    assert.equal(original.metadata?.annotations?.[HELD_BY_ANNOTATION], 'bundle-update');
    const reading = readNudgePipelineRun(copy);
    assert.ok(reading.ok);
    assert.equal(reading.nudge.pipelineRun.specStatus, '');
  });

  it('carries none of the markers nudger put on the original (only redispatched-from)', {}, () => {
    const copy = wholeRunCopy(
      heldRun({ [RELEASED_TARGETS_ANNOTATION]: 'bundle=bundle-update', [REDISPATCHED_TARGETS_ANNOTATION]: 'other' }),
    );
    const nudgerKeys = Object.keys(copy.metadata?.annotations ?? {}).filter((k) =>
      k.startsWith('nudger.konflux-ci.dev/'),
    );
    assert.deepEqual(nudgerKeys, [REDISPATCHED_FROM_ANNOTATION]);
  });
});

describe('releaseWholeRun', () => {
  const marker = { key: RELEASED_TARGETS_ANNOTATION, value: 'bundle=bundle-update' };

  it('creates the copy, then merges the marker onto the original', async () => {
    const client = new RecordingClient();
    const signal = new AbortController().signal;
    const name = await releaseWholeRun(client, heldRun(), marker, signal);
    assert.equal(name, redispatchName(ORIGINAL, ['bundle', 'other', 'third']));
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ['create', 'patch'],
    );
    const [create, patch] = client.calls;
    assert.equal(create?.ref, PIPELINE_RUNS);
    assert.deepEqual(create.body, wholeRunCopy(heldRun()));
    assert.equal(create.options?.signal, signal);
    assert.equal(patch?.ref, PIPELINE_RUNS);
    assert.equal(patch.namespace, NS);
    assert.equal(patch.name, ORIGINAL);
    assert.equal(patch.type, 'merge');
    assert.deepEqual(patch.body, { metadata: { annotations: { [marker.key]: marker.value } } });
    assert.equal(patch.options?.signal, signal);
  });

  it('treats AlreadyExists on create as success and still marks the original, with one name', async () => {
    const client = new RecordingClient();
    await releaseWholeRun(client, heldRun(), marker);
    client.createError = { code: 409, reason: 'AlreadyExists' };
    await releaseWholeRun(client, heldRun(), marker);
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ['create', 'patch', 'create', 'patch'],
    );
    const created = client.calls.filter((c) => c.verb === 'create').map((c) => (c.body as KubeObject).metadata?.name);
    assert.equal(new Set(created).size, 1);
  });

  for (const error of [
    { code: 409, reason: 'Conflict' },
    { code: 403, reason: 'Forbidden' },
    { code: 500, reason: 'InternalError' },
  ]) {
    it(`propagates ${String(error.code)} ${error.reason} from create without marking the original`, async () => {
      const client = new RecordingClient();
      client.createError = error;
      await assert.rejects(releaseWholeRun(client, heldRun(), marker), (e: unknown) => {
        assert.ok(!isAlreadyExists(e));
        assert.match(String(e), new RegExp(error.reason));
        return true;
      });
      assert.deepEqual(
        client.calls.map((c) => c.verb),
        ['create'],
      );
    });
  }
});

describe('Redispatcher', () => {
  const TENANT = 'my-tenant';
  const HELD = 'renovate-pipeline-1736935680-ab12c';
  const BUILD = 'operand-a-on-push-x7k2p';

  async function world(
    options: {
      build?: boolean;
      executors?: ('direct' | 'renovate')[];
      nudgeConfigAnnotations?: Record<string, string>;
    } = {},
  ) {
    const client = new FakeObjectClient();
    const components = new Store<ClusterComponent>();
    const nudgeConfigs = new Store<ClusterNudgeConfig>();
    components.upsert(operandA());
    components.upsert(bundleX());
    components.upsert(
      decoded(COMPONENTS_KIND, {
        apiVersion: 'appstudio.redhat.com/v1alpha1',
        kind: 'Component',
        metadata: { name: 'docs', namespace: TENANT, uid: 'uid-docs' },
        spec: { componentName: 'docs', source: { git: { url: 'https://forge.example/acme/docs', revision: 'main' } } },
      } as KubeObject),
    );
    nudgeConfigs.upsert(nudgeConfig(options.nudgeConfigAnnotations));
    if (options.build !== false) {
      const raw = buildRun({ name: BUILD, namespace: TENANT, digest: DIGEST('3') }) as KubeObject;
      raw.metadata = { ...raw.metadata, uid: 'uid-build' };
      await client.create(PIPELINE_RUNS, raw);
    }
    const executors = recordingExecutors(options.executors);
    const { events, recorder } = recordingEvents();
    const redispatcher = new Redispatcher({
      client,
      components,
      nudgeConfigs,
      executors,
      defaultExecutor: 'direct',
      events: recorder,
    });
    // build-service's run for two targets, held for bundle-x.
    const held = decoded(
      PIPELINE_RUNS_KIND,
      nudgeRun({
        name: HELD,
        targets: 'bundle-x docs',
        extraAnnotations: { [HELD_TARGETS_ANNOTATION]: 'bundle-x=bundle-x-update', [REDISPATCH_ANNOTATION]: 'docs' },
        spec: { status: 'Cancelled', pipelineSpec: { tasks: [{ name: 'renovate' }] } },
      }) as KubeObject,
    );
    const fire = (target: string) => redispatcher.fire(held, target, new AbortController().signal);
    return { client, executors, events, fire };
  }

  it("fires only the target, from the run's verified build, with the dispatcher's key", async () => {
    const { executors, events, fire } = await world();
    const outcome = await fire('docs');
    assert.deepEqual(outcome, {
      kind: 'fired',
      executor: 'direct',
      detail: 'https://forge.example/acme/bundle-x/pull/1',
    });
    const requests = executors.direct?.requests ?? [];
    assert.equal(requests.length, 1);
    const [request] = requests;
    assert.equal(request?.nudged.metadata?.name, 'docs');
    assert.equal(request.key, dispatchKey({ namespace: TENANT, name: BUILD, uid: 'uid-build' }, 'docs'));
    assert.equal(request.build.pipelineRun, BUILD);
    assert.equal(request.build.digest, DIGEST('3'));
    assert.equal(request.buildRun.metadata?.uid, 'uid-build');
    assert.equal(request.redispatchedFrom, HELD);
    assert.equal(request.attempt, 1);
    assert.deepEqual(
      events.map((e) => [e.kind, e.name, e.type, e.reason]),
      [['Component', 'operand-a', 'Normal', 'NudgeRedispatched']],
    );
    assert.match(events[0]?.message ?? '', /docs/);
  });

  it('a fire repeated (a crash before the marker) asks the executor with the same key', async () => {
    const { executors, fire } = await world();
    await fire('docs');
    await fire('docs');
    const keys = (executors.direct?.requests ?? []).map((r) => r.key);
    assert.equal(keys.length, 2);
    assert.equal(new Set(keys).size, 1);
  });

  it('uses the executor the NudgeConfig names', async () => {
    const { executors, fire } = await world({
      executors: ['direct', 'renovate'],
      nudgeConfigAnnotations: { 'nudger.konflux-ci.dev/executor': 'renovate' },
    });
    assert.equal((await fire('docs')).kind, 'fired');
    assert.equal(executors.direct?.requests.length, 0);
    assert.equal(executors.renovate?.requests.length, 1);
  });

  it('a build that is gone is skipped (D3), final, told as a Warning naming the target', async () => {
    const { executors, events, fire } = await world({ build: false });
    const outcome = await fire('docs');
    assert.equal(outcome.kind, 'skipped');
    assert.ok(isFinalOutcome(outcome));
    assert.equal(executors.direct?.requests.length, 0);
    const [event] = events;
    assert.ok(event);
    assert.equal(event.type, 'Warning');
    assert.equal(event.reason, 'NudgeRedispatchSkipped');
    assert.match(event.message, /docs/);
  });

  it('a failure the executor may retry is not final and is told with its reason', async () => {
    const { executors, events, fire } = await world();
    const direct = executors.direct;
    assert.ok(direct);
    direct.answer = () => Promise.resolve({ result: { ok: false, reason: 'forge-unavailable', message: '503' } });
    const outcome = await fire('docs');
    assert.deepEqual(outcome, { kind: 'failed', reason: 'forge-unavailable', message: '503', permanent: false });
    assert.equal(isFinalOutcome(outcome), false);
    const [event] = events;
    assert.ok(event);
    assert.equal(event.reason, 'NudgeRedispatchFailed');
    assert.match(event.message, /docs.*forge-unavailable.*retried with backoff/);
  });

  it('a permanent failure is final; a rejecting executor is a failure named by its class only', async () => {
    const { executors, events, fire } = await world();
    const direct = executors.direct;
    assert.ok(direct);
    direct.answer = () =>
      Promise.resolve({ result: { ok: false, reason: 'no-credentials', message: 'none', permanent: true } });
    assert.ok(isFinalOutcome(await fire('docs')));
    direct.answer = () => Promise.reject(new TypeError('https://user:secret@forge.example'));
    const outcome = await fire('docs');
    assert.equal(outcome.kind === 'failed' && outcome.reason, 'executor-error');
    assert.equal(isFinalOutcome(outcome), false);
    assert.doesNotMatch(JSON.stringify(events), /secret/);
  });

  it('a namespace whose executor the manager does not run fails the target permanently', async () => {
    const { fire } = await world({
      executors: ['direct'],
      nudgeConfigAnnotations: { 'nudger.konflux-ci.dev/executor': 'renovate' },
    });
    const outcome = await fire('docs');
    assert.equal(outcome.kind === 'failed' && outcome.reason, 'executor-unavailable');
    assert.ok(isFinalOutcome(outcome));
  });
});
