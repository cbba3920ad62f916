// Handing held nudges back to ordinary nudging: the copy's name, its content, and the
// create-then-mark sequence against a recording ObjectClient.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ObjectClient, PatchType, WriteOptions } from '../../src/adapters/kubernetes/client.ts';
import { errorFromResponse, isAlreadyExists } from '../../src/adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import {
  HELD_BY_ANNOTATION,
  HELD_TARGETS_ANNOTATION,
  HOLD_REASON_ANNOTATION,
  REDISPATCH_ANNOTATION,
} from '../../src/domain/changegroup/hold-decision.ts';
import { isDns1123Label } from '../../src/domain/labels.ts';
import { NUDGED_COMPONENTS_ANNOTATION, readNudgePipelineRun } from '../../src/domain/nudge-pipelinerun.ts';
import { RELEASED_TARGETS_ANNOTATION } from '../../src/controllers/changegroup/inputs.ts';
import {
  REDISPATCHED_FROM_ANNOTATION,
  REDISPATCHED_TARGETS_ANNOTATION,
  redispatchCopy,
  redispatchName,
  redispatchNudge,
} from '../../src/controllers/redispatch.ts';

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

describe('redispatchCopy', () => {
  it('copies labels, spec and the other annotations; drops spec.status, status and server fields', () => {
    const original = heldRun();
    const copy = redispatchCopy(original, ['other', 'third']) as KubeObject & { spec: Record<string, unknown> };
    assert.equal(copy.apiVersion, 'tekton.dev/v1');
    assert.equal(copy.kind, 'PipelineRun');
    assert.deepEqual(copy.metadata, {
      name: redispatchName(ORIGINAL, ['other', 'third']),
      namespace: NS,
      labels: { 'build.appstudio.redhat.com/type': 'nudge', 'app.kubernetes.io/part-of': 'x' },
      annotations: {
        'build.appstudio.redhat.com/nudging-component': 'operand-a',
        [NUDGED_COMPONENTS_ANNOTATION]: 'other third',
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
  });

  it('nudges exactly the targets, sorted, and reads back as a nudge of them', () => {
    const copy = redispatchCopy(heldRun(), ['third', 'other']);
    assert.equal(copy.metadata?.annotations?.[NUDGED_COMPONENTS_ANNOTATION], 'other third');
    const reading = readNudgePipelineRun(copy);
    assert.ok(reading.ok);
    assert.deepEqual(reading.nudge.nudgedComponents, ['other', 'third']);
    assert.equal(reading.nudge.pipelineRun.specStatus, '');
  });

  it('drops a previous redispatched-targets marker', () => {
    const copy = redispatchCopy(heldRun({ [REDISPATCHED_TARGETS_ANNOTATION]: 'other third' }), ['bundle']);
    assert.equal(copy.metadata?.annotations?.[REDISPATCHED_TARGETS_ANNOTATION], undefined);
  });

  it('carries none of the markers nudger put on the original (only redispatched-from)', {}, () => {
    const copy = redispatchCopy(heldRun({ [RELEASED_TARGETS_ANNOTATION]: 'bundle=bundle-update' }), ['bundle']);
    const nudgerKeys = Object.keys(copy.metadata?.annotations ?? {}).filter((k) =>
      k.startsWith('nudger.konflux-ci.dev/'),
    );
    assert.deepEqual(nudgerKeys, [REDISPATCHED_FROM_ANNOTATION]);
  });
});

describe('redispatchNudge', () => {
  const marker = { key: RELEASED_TARGETS_ANNOTATION, value: 'bundle=bundle-update' };

  it('creates the copy, then merges the marker onto the original', async () => {
    const client = new RecordingClient();
    const signal = new AbortController().signal;
    const name = await redispatchNudge(client, heldRun(), ['bundle'], marker, signal);
    assert.equal(name, redispatchName(ORIGINAL, ['bundle']));
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ['create', 'patch'],
    );
    const [create, patch] = client.calls;
    assert.equal(create?.ref, PIPELINE_RUNS);
    assert.deepEqual(create.body, redispatchCopy(heldRun(), ['bundle']));
    assert.equal(create.options?.signal, signal);
    assert.equal(patch?.ref, PIPELINE_RUNS);
    assert.equal(patch.namespace, NS);
    assert.equal(patch.name, ORIGINAL);
    assert.equal(patch.type, 'merge');
    assert.deepEqual(patch.body, { metadata: { annotations: { [marker.key]: marker.value } } });
    assert.equal(patch.options?.signal, signal);
  });

  it('treats AlreadyExists on create as success and still marks the original', async () => {
    const client = new RecordingClient();
    client.createError = { code: 409, reason: 'AlreadyExists' };
    const name = await redispatchNudge(client, heldRun(), ['bundle'], marker);
    assert.equal(name, redispatchName(ORIGINAL, ['bundle']));
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ['create', 'patch'],
    );
  });

  it('gives the same copy name twice, so a retry after a crash creates no second copy', async () => {
    const client = new RecordingClient();
    await redispatchNudge(client, heldRun(), ['bundle'], marker);
    await redispatchNudge(client, heldRun(), ['bundle'], marker);
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
      await assert.rejects(redispatchNudge(client, heldRun(), ['bundle'], marker), (e: unknown) => {
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

  it('propagates a failure of the marker patch', async () => {
    const client = new RecordingClient();
    client.patchError = { code: 404, reason: 'NotFound' };
    await assert.rejects(redispatchNudge(client, heldRun(), ['bundle'], marker), /NotFound/);
  });
});
