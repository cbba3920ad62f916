// The dispatcher (docs/decisions.md D9, N18) in the manager, on a real kube-apiserver: build
// PipelineRuns made and finished here as Pipelines-as-Code and Tekton would, and what the manager
// writes to them (finalizer, marker), creates (held-nudge records) and fires.
//
// This is the controller's contract with the executor boundary (src/controllers/dispatch/executor.ts):
// the executor here is a recording one, idempotent by the request's key as the contract demands,
// so "fired exactly once" is counted at that boundary. The real executors' integration tests are
// their own (test/controllers/dispatch-direct*.test.ts, renovate-executor.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  CONFIG_MAPS,
  CORE_EVENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import type { DispatchControllerOptions } from '../../src/controllers/dispatch/controller.ts';
import { HELD_TARGETS_ANNOTATION } from '../../src/domain/changegroup/hold-decision.ts';
import { DISPATCHED_FROM_ANNOTATION } from '../../src/domain/nudge/dispatch-held-record.ts';
import { DISPATCH_FINALIZER, DISPATCH_MARKER_ANNOTATION } from '../../src/domain/nudge/dispatch-marker.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { captureLog, type CapturedLog } from '../support/secret-leaks.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';
import { ExecutorBoundary } from './executor-boundary.ts';

/** Retries a second apart, so an interrupted attempt is retried within the test. */
const POLICY = { maxAttempts: 3, firstRetryDelayMs: 500, backoffFactor: 1, maxRetryDelayMs: 500 };
const DIGEST = (c: string): string => `sha256:${c.repeat(64)}`;

interface Told extends KubeObject {
  reason?: string;
  involvedObject: { kind?: string; name?: string };
}

interface Run extends KubeObject {
  spec?: { status?: string };
  status?: Record<string, unknown>;
}

let plane: ControlPlane;
let client: KubeClient;
let boundary: ExecutorBoundary;
let manager: TestManager | undefined;

/** A fire may take 3 s here; another replica's (or a crashed manager's) attempt is judged after that. */
const FIRE_TIMEOUT_MS = 3000;

function dispatchSettings(): DispatchControllerOptions {
  return {
    enabled: true,
    defaultExecutor: 'direct',
    executors: { direct: boundary.executor() },
    policy: POLICY,
    fireTimeoutMs: FIRE_TIMEOUT_MS,
  };
}

const startManager = (log?: CapturedLog): Promise<TestManager> =>
  startTestManager(plane.kubeConfig, {
    overrides: { dispatch: dispatchSettings() },
    ...(log === undefined ? {} : { logDestination: log.destination }),
  });

/** The first manager's warnings: this control plane has no Snapshot CRD (integration-service's). */
const firstLog = captureLog();
const logged = (): { msg?: string; resource?: string; reason?: string }[] =>
  firstLog.lines.map((line) => JSON.parse(line) as { msg?: string; resource?: string; reason?: string });

async function namespace(name: string, withNudgeConfig: boolean, legacyRefs: readonly string[] = []): Promise<void> {
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const [component, image] of [
    ['a', 'quay.io/org/a'],
    ['b', 'quay.io/org/b'],
  ] as const) {
    await client.create(COMPONENTS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'Component',
      metadata: { name: component, namespace: name },
      spec: {
        componentName: component,
        application: 'app',
        containerImage: image,
        ...(component === 'a' && legacyRefs.length > 0 ? { 'build-nudges-ref': [...legacyRefs] } : {}),
        source: { git: { url: `https://forge.example/acme/${component}`, revision: 'main' } },
      },
    } as KubeObject);
  }
  if (!withNudgeConfig) return;
  await client.create(NUDGE_CONFIGS, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: name },
    spec: { nudges: [{ from: 'a', to: 'b' }] },
  } as KubeObject);
}

/** A push build of `a` as Pipelines-as-Code creates it, then finished by "Tekton". */
async function build(ns: string, name: string, succeeded: 'True' | 'False', digest = DIGEST('1')): Promise<void> {
  await client.create(PIPELINE_RUNS, {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name,
      namespace: ns,
      labels: {
        'appstudio.openshift.io/application': 'app',
        'appstudio.openshift.io/component': 'a',
        'pipelines.appstudio.openshift.io/type': 'build',
        'pipelinesascode.tekton.dev/event-type': 'push',
      },
      annotations: {
        'pipelinesascode.tekton.dev/event-type': 'push',
        'build.appstudio.redhat.com/target_branch': 'main',
      },
    },
    spec: { pipelineRef: { name: 'docker-build' } },
  } as KubeObject);
  // Running: the dispatcher puts its finalizer on before the build can finish and be pruned.
  await eventually(`the finalizer on running build ${name}`, async () =>
    (await get(ns, name)).metadata?.finalizers?.includes(DISPATCH_FINALIZER) === true ? true : undefined,
  );
  const current = await get(ns, name);
  await client.replaceStatus<Run>(PIPELINE_RUNS, {
    ...current,
    status: {
      conditions: [{ type: 'Succeeded', status: succeeded, reason: succeeded === 'True' ? 'Succeeded' : 'Failed' }],
      results: [
        { name: 'IMAGE_DIGEST', value: digest },
        { name: 'IMAGE_URL', value: 'quay.io/org/a:abc123' },
      ],
    },
  });
}

const nameOf = (object: KubeObject): string | undefined => object.metadata?.name;
const get = (ns: string, name: string): Promise<Run> => client.get<Run>(PIPELINE_RUNS, ns, name);

/** The marker once the finalizer is gone: the build is done with. */
async function settled(ns: string, name: string): Promise<string | undefined> {
  return eventually(`build ${ns}/${name} to be settled`, async () => {
    const run = await get(ns, name);
    const marker = run.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
    return marker !== undefined && !(run.metadata?.finalizers ?? []).includes(DISPATCH_FINALIZER) ? marker : undefined;
  });
}

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, UPSTREAM_CRDS.pipelineRuns, ...NUDGER_CRDS] });
  client = new KubeClient(plane.kubeConfig);
  boundary = new ExecutorBoundary();
  manager = await startManager(firstLog);
});

after(async () => {
  await manager?.stop();
  await plane.close();
});

describe('the dispatcher in the manager', () => {
  it('fires a verified push build of a to b exactly once: finalizer, marker pullRequest, finalizer released', async () => {
    await namespace('fire', true);
    await build('fire', 'a-on-push-1', 'True');
    assert.equal(await settled('fire', 'a-on-push-1'), 'v1 b=pullRequest');
    const fired = boundary.calls.filter((c) => c.namespace === 'fire');
    const [first] = fired;
    assert.equal(fired.length, 1);
    assert.ok(first !== undefined);
    assert.equal(nameOf(first.nudged), 'b');
    assert.equal(first.build.digest, DIGEST('1'));
  });

  it('without the Snapshot CRD: validated nudges wait, told once; no Snapshot list/watch retried in the log', async () => {
    // The nudge above fired; the dispatcher probed Snapshots when it started (docs/decisions.md N22).
    const told = await eventually('the one Snapshot warning', () => {
      const lines = logged().filter((line) => line.msg?.startsWith('Snapshots cannot be listed') === true);
      return lines.length > 0 ? lines : undefined;
    });
    assert.equal(told.length, 1);
    assert.match(told[0]?.reason ?? '', /the Snapshot CRD is not installed/);
    const retried = logged().filter(
      (line) => line.msg === 'list/watch failed; retrying' && line.resource?.startsWith('snapshots') === true,
    );
    assert.deepEqual(retried, []);
    assert.deepEqual(
      logged().filter((line) => line.msg?.includes('not running: a cache did not sync') === true),
      [],
    );
  });

  it('a failed build fires nothing; a namespace without a NudgeConfig is left alone', async () => {
    await namespace('failing', true);
    await build('failing', 'a-on-push-1', 'False');
    assert.equal(await settled('failing', 'a-on-push-1'), 'v1 *=skipped:not-succeeded');

    await namespace('alone', false);
    await client.create(PIPELINE_RUNS, {
      apiVersion: 'tekton.dev/v1',
      kind: 'PipelineRun',
      metadata: {
        name: 'a-on-push-1',
        namespace: 'alone',
        labels: { 'appstudio.openshift.io/component': 'a', 'pipelinesascode.tekton.dev/event-type': 'push' },
      },
      spec: { pipelineRef: { name: 'docker-build' } },
    } as KubeObject);
    // A namespace with a NudgeConfig built meanwhile shows the dispatcher has seen both.
    await namespace('witness', true);
    await build('witness', 'a-on-push-1', 'True');
    await settled('witness', 'a-on-push-1');
    const alone = await get('alone', 'a-on-push-1');
    assert.equal(alone.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION], undefined);
    assert.deepEqual(alone.metadata?.finalizers ?? [], []);
    assert.equal(boundary.calls.filter((c) => c.namespace === 'failing' || c.namespace === 'alone').length, 0);
  });

  it('a target an active ChangeGroup holds gets the held-nudge record the ChangeGroup collects, no fire', async () => {
    await namespace('held', true);
    await client.create(CHANGE_GROUPS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ChangeGroup',
      metadata: { name: 'b-update', namespace: 'held' },
      spec: { nudgedComponent: 'b', nudgingComponents: [{ name: 'a' }], timeout: '24h' },
    } as KubeObject);
    // The dispatcher's ChangeGroup cache has it before the build finishes.
    await eventually('the ChangeGroup to be seen', async () => {
      const stored = await client.get<KubeObject & { status?: { phase?: string } }>(CHANGE_GROUPS, 'held', 'b-update');
      return stored.metadata?.finalizers !== undefined ? true : undefined;
    });
    await build('held', 'a-on-push-1', 'True');
    assert.equal(await settled('held', 'a-on-push-1'), 'v1 b=held:b-update');
    const runs = await client.list<Run>(PIPELINE_RUNS, { namespace: 'held' });
    const records = runs.items.filter((r) => r.metadata?.annotations?.[DISPATCHED_FROM_ANNOTATION] === 'a-on-push-1');
    const [record] = records;
    assert.equal(records.length, 1);
    assert.ok(record !== undefined);
    assert.equal(record.spec?.status, 'Cancelled');
    assert.equal(record.metadata?.annotations?.[HELD_TARGETS_ANNOTATION], 'b=b-update');
    assert.equal(boundary.calls.filter((c) => c.namespace === 'held').length, 0);
  });

  it('tells once, as Events the API server keeps: an edge build-nudges-ref declares too, an ignored ConfigMap value', async () => {
    await namespace('told', true, ['b']);
    await client.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'namespace-wide-nudging-renovate-config', namespace: 'told' },
      data: { automerge: 'yes', labels: 'deps' },
    } as KubeObject);
    await build('told', 'a-on-push-1', 'True');
    assert.equal(await settled('told', 'a-on-push-1'), 'v1 b=pullRequest');
    await build('told', 'a-on-push-2', 'True', DIGEST('2'));
    assert.equal(await settled('told', 'a-on-push-2'), 'v1 b=pullRequest');
    const [first, second] = boundary.calls.filter((c) => c.namespace === 'told');
    assert.ok(first !== undefined && second !== undefined);
    assert.equal(first.settings.configMap, 'namespace-wide-nudging-renovate-config');
    assert.deepEqual(first.settings.labels, ['deps']);

    const events = await eventually('the Events told once', async () => {
      const list = await client.list<Told>(CORE_EVENTS, { namespace: 'told' });
      const told = list.items.filter((e) => e.reason === 'DuplicateNudgeEdge' || e.reason === 'NudgeSettingIgnored');
      return told.length >= 2 ? told : undefined;
    });
    const byReason = (reason: string) => events.filter((e) => e.reason === reason);
    assert.equal(byReason('DuplicateNudgeEdge').length, 1, 'once, though two builds met it');
    assert.equal(byReason('DuplicateNudgeEdge')[0]?.involvedObject.kind, 'NudgeConfig');
    assert.equal(byReason('NudgeSettingIgnored').length, 1);
    assert.equal(byReason('NudgeSettingIgnored')[0]?.involvedObject.name, 'b');
  });

  it('a manager stopped after the effect and before its record: the next one fires once more, same key', async () => {
    await namespace('crash', true);
    const recorded = new Promise<void>((resolve) => {
      boundary.effectRecorded = resolve;
    });
    boundary.hangNext = true;
    await build('crash', 'a-on-push-1', 'True');
    await recorded;
    await manager?.stop();
    const left = await get('crash', 'a-on-push-1');
    assert.match(left.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION] ?? '', /^v1 b=firing:1:/);
    assert.ok(left.metadata?.finalizers?.includes(DISPATCH_FINALIZER));

    manager = await startManager();
    assert.equal(await settled('crash', 'a-on-push-1'), 'v1 b=pullRequest');
    const calls = boundary.calls.filter((c) => c.namespace === 'crash');
    assert.deepEqual(
      calls.map((c) => c.attempt),
      [1, 2],
    );
    assert.equal(new Set(calls.map((c) => c.key)).size, 1, 'one idempotency key: one effect');
  });

  it('two managers racing on one build fire once per key', async () => {
    const rival = await startManager();
    try {
      await namespace('race', true);
      for (const n of ['1', '2', '3']) {
        await build('race', `a-on-push-${n}`, 'True', DIGEST(n));
        assert.equal(await settled('race', `a-on-push-${n}`), 'v1 b=pullRequest');
      }
      const calls = boundary.calls.filter((c) => c.namespace === 'race');
      assert.equal(calls.length, 3, calls.map((c) => `${c.build.pipelineRun} attempt ${String(c.attempt)}`).join(', '));
      assert.equal(new Set(calls.map((c) => c.key)).size, 3);
    } finally {
      await rival.stop();
    }
  });

  it('kube-apiserver restarted while builds are nudged: every build settles, one effect per key', async () => {
    // One build per namespace, so that no build supersedes another.
    const namespaces = Array.from({ length: 6 }, (_, i) => `restart-${String(i)}`);
    for (const ns of namespaces) await namespace(ns, true);
    // The first half finish just before the restart, while their fires and records are in flight.
    await Promise.all(namespaces.slice(0, 3).map((ns, i) => build(ns, 'a-on-push-1', 'True', DIGEST(String(i)))));
    await plane.restartApiServer();
    for (const [i, ns] of namespaces.slice(3).entries()) await build(ns, 'a-on-push-1', 'True', DIGEST(String(i + 3)));
    for (const ns of namespaces) assert.equal(await settled(ns, 'a-on-push-1'), 'v1 b=pullRequest');
    const calls = boundary.calls.filter((c) => namespaces.includes(c.namespace));
    const keys = new Set(calls.map((c) => c.key));
    assert.equal(keys.size, namespaces.length, 'one idempotency key, so one effect, per (build, target)');
    for (const key of keys) assert.ok(boundary.effects.has(key));
  });
});
