// The dispatch benchmarks' readings (bench/dispatch-common.ts): the burst's duplicate count comes
// from MarkerHistory's fire count, and both benchmarks' t0 from StatusWriteClock, so a miscount
// there would print a wrong figure (a hidden duplicate, or a latency measured from the wrong write).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectClient } from '../../src/adapters/kubernetes/client.ts';
import { COMPONENTS, PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import {
  DISPATCH_MARKER_ANNOTATION,
  serializeMarker,
  type MarkerEntry,
  type TargetState,
} from '../../src/domain/nudge/dispatch-marker.ts';
import { COMPONENT_LABEL } from '../../src/domain/nudge-pipelinerun.ts';
import { MarkerHistory, StatusWriteClock } from '../../bench/dispatch-common.ts';

const NS = 'bench-burst-0';
const BUILD = 'op-0-on-push-x7k2p';
const T0 = Date.UTC(2026, 10, 26, 10, 0, 0);

/** One version of the build PipelineRun, carrying `entries` as the dispatcher writes them. */
function version(entries: readonly MarkerEntry[] | undefined, resourceVersion: string): KubeObject {
  return {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      namespace: NS,
      name: BUILD,
      resourceVersion,
      labels: { [COMPONENT_LABEL]: 'op-0' },
      ...(entries === undefined ? {} : { annotations: { [DISPATCH_MARKER_ANNOTATION]: serializeMarker({ entries }) } }),
    },
  };
}

function entry(name: string, state: TargetState): MarkerEntry {
  return { name, state };
}

function history(targets: readonly string[]): { history: MarkerHistory; tick: () => void } {
  let now = 0;
  return {
    history: new MarkerHistory(
      () => targets,
      () => now,
    ),
    tick: () => {
      now += 1;
    },
  };
}

describe('MarkerHistory', () => {
  it('counts one fire for a target fired once, however often that version is seen again', () => {
    const { history: seen, tick } = history(['bundle']);
    seen.see(version(undefined, '1'));
    tick();
    const firing = [entry('bundle', { kind: 'firing', attempt: 1, startedAt: T0 })];
    seen.see(version(firing, '2'));
    // A finalizer or another annotation changes the object; the firing entry is the same one.
    seen.see(version(firing, '3'));
    tick();
    seen.see(version([entry('bundle', { kind: 'pullRequest' })], '4'));
    assert.deepEqual([...seen.fires], [[`${NS}/${BUILD} bundle`, 1]]);
    assert.equal(seen.firstFiringAt(NS, BUILD), 1);
    assert.equal(seen.settledAt(NS, BUILD), 2);
    assert.equal(seen.states(NS, BUILD).get('bundle'), 'pullRequest');
  });

  it('counts a second fire of the same key (a retry, or a fire after an interrupted attempt)', () => {
    const { history: seen } = history(['bundle']);
    seen.see(version([entry('bundle', { kind: 'firing', attempt: 1, startedAt: T0 })], '1'));
    seen.see(
      version([entry('bundle', { kind: 'retry', failures: 1, notBefore: T0 + 1000, reason: 'push-rejected' })], '2'),
    );
    seen.see(version([entry('bundle', { kind: 'firing', attempt: 2, startedAt: T0 + 1000 })], '3'));
    seen.see(version([entry('bundle', { kind: 'pullRequest' })], '4'));
    assert.equal(seen.fires.get(`${NS}/${BUILD} bundle`), 2);
  });

  it('counts firing:1 written afresh (another start time) as a second fire', () => {
    const { history: seen } = history(['bundle']);
    seen.see(version([entry('bundle', { kind: 'firing', attempt: 1, startedAt: T0 })], '1'));
    seen.see(version([entry('bundle', { kind: 'firing', attempt: 1, startedAt: T0 + 2000 })], '2'));
    assert.equal(seen.fires.get(`${NS}/${BUILD} bundle`), 2);
  });

  it('is not settled while a target is unnamed or in flight, and keys fires by target', () => {
    const { history: seen } = history(['bundle', 'catalog']);
    seen.see(
      version(
        [entry('bundle', { kind: 'pullRequest' }), entry('catalog', { kind: 'firing', attempt: 1, startedAt: T0 })],
        '1',
      ),
    );
    assert.equal(seen.settledAt(NS, BUILD), undefined);
    seen.see(version([entry('bundle', { kind: 'pullRequest' })], '2'));
    assert.equal(seen.settledAt(NS, BUILD), undefined, 'catalog is not named');
    seen.see(version([entry('bundle', { kind: 'pullRequest' }), entry('catalog', { kind: 'pullRequest' })], '3'));
    assert.notEqual(seen.settledAt(NS, BUILD), undefined);
    assert.deepEqual([...seen.fires.keys()], [`${NS}/${BUILD} catalog`]);
  });

  it('reports a marker the dispatcher cannot read instead of counting nothing', () => {
    const { history: seen } = history(['bundle']);
    const run = version(undefined, '1');
    seen.see({
      ...run,
      metadata: { ...run.metadata, annotations: { [DISPATCH_MARKER_ANNOTATION]: 'v1 bundle=firing:one' } },
    });
    assert.deepEqual([...seen.unreadable], [`${NS}/${BUILD}`]);
    assert.equal(seen.settledAt(NS, BUILD), undefined);
  });
});

describe('StatusWriteClock', () => {
  it('times only a PipelineRun status write that says Succeeded=True, and passes every call on', async () => {
    const calls: string[] = [];
    const record = <T extends KubeObject>(verb: string, name: string): Promise<T> => {
      calls.push(`${verb} ${name}`);
      return Promise.resolve({ metadata: { name } } as T);
    };
    const wrapped: ObjectClient = {
      get: (_ref, _ns, name) => record('get', name),
      list: () => Promise.resolve({ items: [], resourceVersion: '1' }),
      create: (_ref, object) => record('create', object.metadata?.name ?? ''),
      replace: (_ref, object) => record('replace', object.metadata?.name ?? ''),
      replaceStatus: (_ref, object) => record('replaceStatus', object.metadata?.name ?? ''),
      patch: (_ref, _ns, name) => record('patch', name),
      patchStatus: (_ref, _ns, name) => record('patchStatus', name),
      delete: async (_ref, _ns, name) => {
        await record('delete', name);
      },
    };
    const clock = new StatusWriteClock(wrapped);
    const succeeded = { status: { conditions: [{ type: 'Succeeded', status: 'True' }] } };
    await clock.client.patchStatus(PIPELINE_RUNS, NS, 'running', 'merge', {
      status: { conditions: [{ type: 'Succeeded', status: 'Unknown' }] },
    });
    await clock.client.patchStatus(COMPONENTS, NS, 'op-0', 'merge', succeeded);
    assert.equal(clock.firstSucceededAt(), undefined);
    await clock.client.patchStatus(PIPELINE_RUNS, NS, BUILD, 'merge', succeeded);
    await clock.client.get(PIPELINE_RUNS, NS, BUILD);
    assert.equal(typeof clock.succeededAt(NS, BUILD), 'number');
    assert.equal(clock.succeededAt(NS, 'running'), undefined);
    assert.equal(clock.firstSucceededAt(), clock.succeededAt(NS, BUILD));
    assert.deepEqual(calls, [`patchStatus running`, `patchStatus op-0`, `patchStatus ${BUILD}`, `get ${BUILD}`]);
  });
});
