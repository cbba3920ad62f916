// Validated nudges (docs/decisions.md D10, N27) in the manager, on a real kube-apiserver: push builds
// and Snapshots made and judged here as Pipelines-as-Code, Tekton and integration-service would,
// and what the manager records (the pair's ConfigMap), holds and fires.
//
// As in dispatch-controller.test.ts, this is the controller's contract with the executor boundary
// (src/controllers/dispatch/executor.ts): the executor records each batch by its key, idempotent
// as the contract demands, so "one pull request" is counted at that boundary. The executors'
// batches against real git and the forge emulators are tested in test/controllers/, and end to
// end in the sandbox.
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
  SNAPSHOTS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import type { DispatchControllerOptions } from '../../src/controllers/dispatch/controller.ts';
import type { BatchNudgeRequest } from '../../src/controllers/dispatch/executor.ts';
import { HELD_TARGETS_ANNOTATION } from '../../src/domain/changegroup/hold-decision.ts';
import { DISPATCHED_FROM_ANNOTATION } from '../../src/domain/nudge/dispatch-held-record.ts';
import {
  parseValidatedRecord,
  validatedRecordName,
  VALIDATED_RECORD_KEY,
  type ValidatedRecord,
} from '../../src/domain/nudge/validated-record.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';
import { ExecutorBoundary } from './executor-boundary.ts';

const POLICY = { maxAttempts: 3, firstRetryDelayMs: 500, backoffFactor: 1, maxRetryDelayMs: 500 };
const FIRE_TIMEOUT_MS = 2000;
const GROUP = 'operands';
const OPERANDS = ['op-a', 'op-b', 'op-c', 'op-d', 'op-e'] as const;
const digestOf = (seed: number): string => `sha256:${seed.toString(16).padStart(64, '0')}`;
const repositoryOf = (component: string): string => `quay.io/org/${component}`;

let plane: ControlPlane;
let client: KubeClient;
let boundary: ExecutorBoundary;
let manager: TestManager | undefined;

function dispatchSettings(): DispatchControllerOptions {
  return {
    enabled: true,
    defaultExecutor: 'direct',
    executors: { direct: boundary.executor() },
    policy: POLICY,
    fireTimeoutMs: FIRE_TIMEOUT_MS,
  };
}

const startManager = (): Promise<TestManager> =>
  startTestManager(plane.kubeConfig, { overrides: { dispatch: dispatchSettings() } });

interface Judged extends KubeObject {
  status?: Record<string, unknown>;
}

const ALL_VALIDATED = OPERANDS.map((from) => ({ from, to: 'bundle', mode: 'validated', gatingGroup: GROUP }));

/** Five operands validated by one group into the bundle (and nothing immediate), unless told otherwise. */
async function namespace(name: string, nudges: readonly Record<string, string>[] = ALL_VALIDATED): Promise<void> {
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const component of [...OPERANDS, 'bundle']) {
    await client.create(COMPONENTS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'Component',
      metadata: { name: component, namespace: name },
      spec: {
        componentName: component,
        application: 'app',
        containerImage: repositoryOf(component),
        source: { git: { url: `https://forge.example/acme/${component}`, revision: 'main' } },
      },
    } as KubeObject);
  }
  await client.create(NUDGE_CONFIGS, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: name },
    spec: { nudges },
  } as KubeObject);
}

/** A succeeded push build of `component` producing `digest`, as PaC and Tekton leave it. */
async function build(ns: string, component: string, name: string, digest: string): Promise<void> {
  await client.create(PIPELINE_RUNS, {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name,
      namespace: ns,
      labels: {
        'appstudio.openshift.io/application': 'app',
        'appstudio.openshift.io/component': component,
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
  await writeStatus(PIPELINE_RUNS, ns, name, {
    conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }],
    results: [
      { name: 'IMAGE_DIGEST', value: digest },
      { name: 'IMAGE_URL', value: `${repositoryOf(component)}:tag` },
    ],
  });
}

/** Status writes race the dispatcher's annotation writes: read again on a Conflict. */
async function writeStatus(
  resource: ResourceRef,
  ns: string,
  name: string,
  status: Record<string, unknown>,
): Promise<void> {
  await eventually(`status of ${name}`, async () => {
    const current = await client.get<Judged>(resource, ns, name);
    await client.replaceStatus<Judged>(resource, { ...current, status });
    return true;
  });
}

/**
 * A push Snapshot of the group as integration-service makes it for a build of `trigger`, holding
 * `images` (component -> digest), then judged.
 */
async function snapshot(
  ns: string,
  name: string,
  startTime: number,
  trigger: string,
  images: Readonly<Record<string, string>>,
  passed: boolean,
): Promise<void> {
  await client.create(SNAPSHOTS, {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Snapshot',
    metadata: {
      name,
      namespace: ns,
      labels: {
        'test.appstudio.openshift.io/type': 'component',
        'appstudio.openshift.io/component': trigger,
        'appstudio.openshift.io/component-group': GROUP,
      },
      annotations: {
        'test.appstudio.openshift.io/pipelinerunstarttime': String(startTime),
        'test.appstudio.openshift.io/integration-workflow': 'push',
      },
    },
    spec: {
      application: 'app',
      componentGroup: GROUP,
      components: Object.entries(images).map(([component, digest]) => ({
        name: component,
        containerImage: `${repositoryOf(component)}@${digest}`,
      })),
    },
  } as KubeObject);
  await writeStatus(SNAPSHOTS, ns, name, {
    conditions: [
      {
        type: 'AppStudioTestSucceeded',
        status: passed ? 'True' : 'False',
        reason: passed ? 'Passed' : 'Failed',
        message: passed ? 'All Integration Pipeline tests passed' : 'Some Integration pipeline tests failed',
        lastTransitionTime: new Date().toISOString(),
      },
    ],
  });
}

async function record(ns: string): Promise<ValidatedRecord | undefined> {
  try {
    const object = await client.get<KubeObject & { data?: Record<string, string> }>(
      CONFIG_MAPS,
      ns,
      validatedRecordName(GROUP, 'bundle'),
    );
    const reading = parseValidatedRecord(object.data?.[VALIDATED_RECORD_KEY], GROUP, 'bundle');
    return reading.ok ? reading.record : undefined;
  } catch {
    return undefined;
  }
}

/** The record once `component` is nudged at `digest` and no batch is under way. */
async function nudgedAt(ns: string, expected: Readonly<Record<string, string>>): Promise<ValidatedRecord> {
  return eventually(`the record of ${ns} to show ${JSON.stringify(expected)}`, async () => {
    const current = await record(ns);
    if (current === undefined || current.batch !== undefined) return undefined;
    for (const [component, digest] of Object.entries(expected)) {
      if (current.nudged.get(component)?.digest !== digest) return undefined;
    }
    return current;
  });
}

interface ValidatedStatus {
  entries?: number;
  waiting?: number;
  groups?: { gatingGroup?: string; targets?: number; lastPassingSnapshot?: { name?: string } }[];
}

/** The immediate nudges fired in `namespace`, as `<build> <target>`. */
function immediateOf(namespace: string): string[] {
  return boundary.calls
    .filter((call) => call.namespace === namespace)
    .map((call) => `${call.build.pipelineRun} ${call.nudged.metadata?.name ?? ''}`);
}

function entriesOf(request: BatchNudgeRequest): Record<string, string> {
  return Object.fromEntries(request.entries.map((entry) => [entry.build.component, entry.build.digest]));
}

before(async () => {
  plane = await startControlPlane({
    crds: [UPSTREAM_CRDS.components, UPSTREAM_CRDS.pipelineRuns, UPSTREAM_CRDS.snapshots, ...NUDGER_CRDS],
  });
  client = new KubeClient(plane.kubeConfig);
  boundary = new ExecutorBoundary();
  manager = await startManager();
});

after(async () => {
  await manager?.stop();
  await plane.close();
});

describe('validated nudges in the manager', () => {
  it('five operands, four builds, a failing then a passing Snapshot: one batch with the four digests; a later pass updates it', async () => {
    const ns = 'bundle-five';
    await namespace(ns);
    const four = { 'op-a': digestOf(1), 'op-b': digestOf(2), 'op-c': digestOf(3), 'op-d': digestOf(4) };
    for (const [component, digest] of Object.entries(four))
      await build(ns, component, `${component}-on-push-1`, digest);
    await snapshot(ns, 'operands-fail', 100, 'op-d', four, false);
    await snapshot(ns, 'operands-pass', 101, 'op-d', four, true);
    await nudgedAt(ns, four);
    const [first, ...others] = boundary.batches(ns);
    assert.ok(first !== undefined);
    assert.equal(others.length, 0, 'one batch: one pull request, one build of the bundle');
    assert.deepEqual(entriesOf(first), four);
    assert.equal(first.gatingGroup, GROUP);
    assert.equal(first.nudged.metadata?.name, 'bundle');
    assert.deepEqual(
      first.entries.map((entry) => entry.snapshot),
      ['operands-pass', 'operands-pass', 'operands-pass', 'operands-pass'],
    );

    // One more build of op-e and a pass: only what changed goes out, on the same pair's branch.
    await build(ns, 'op-e', 'op-e-on-push-1', digestOf(5));
    await snapshot(ns, 'operands-pass-2', 102, 'op-e', { ...four, 'op-e': digestOf(5) }, true);
    const settled = await nudgedAt(ns, { ...four, 'op-e': digestOf(5) });
    const batches = boundary.batches(ns);
    assert.equal(batches.length, 2);
    assert.deepEqual(entriesOf(batches[1]!), { 'op-e': digestOf(5) });
    assert.equal(batches[1]?.entries[0]?.previousDigest, undefined);
    assert.equal(settled.lastPass?.snapshot, 'operands-pass-2');

    // The NudgeConfig's status names the group's last pass used and what waits on it.
    const status = await eventually('status.validatedNudges to name the last pass', async () => {
      const config = await client.get<KubeObject & { status?: { validatedNudges?: ValidatedStatus } }>(
        NUDGE_CONFIGS,
        ns,
        'nudge-config',
      );
      const group = config.status?.validatedNudges?.groups?.[0];
      return group?.lastPassingSnapshot?.name === 'operands-pass-2' ? config.status?.validatedNudges : undefined;
    });
    assert.equal(status.entries, 5);
    assert.equal(status.waiting, 0);
    assert.equal(status.groups?.[0]?.gatingGroup, GROUP);
    assert.equal(status.groups[0].targets, 1);

    const events = await client.list<KubeObject & { reason?: string; message?: string }>(CORE_EVENTS, {
      namespace: ns,
    });
    const fired = events.items.filter((event) => event.reason === 'ValidatedNudgeFired');
    assert.equal(fired.length, 2);
    assert.ok(fired.some((event) => event.message?.includes('operands-pass-2') === true));
  });

  it('out-of-order passes and a late pass for an older build: nothing goes backwards', async () => {
    const ns = 'out-of-order';
    await namespace(ns);
    await build(ns, 'op-a', 'op-a-on-push-1', digestOf(11));
    await build(ns, 'op-a', 'op-a-on-push-2', digestOf(12));
    // The newer build's Snapshot passes first.
    await snapshot(ns, 'newer', 200, 'op-a', { 'op-a': digestOf(12) }, true);
    await nudgedAt(ns, { 'op-a': digestOf(12) });
    // The older build's Snapshot passes late: nothing happens.
    await snapshot(ns, 'older', 199, 'op-a', { 'op-a': digestOf(11) }, true);
    // A witness: a newer pass of another member goes out after the late one was seen.
    await build(ns, 'op-b', 'op-b-on-push-1', digestOf(13));
    await snapshot(ns, 'witness', 201, 'op-b', { 'op-a': digestOf(12), 'op-b': digestOf(13) }, true);
    const final = await nudgedAt(ns, { 'op-b': digestOf(13) });
    assert.equal(final.nudged.get('op-a')?.digest, digestOf(12));
    const batches = boundary.batches(ns);
    assert.equal(batches.length, 2);
    assert.deepEqual(entriesOf(batches[0]!), { 'op-a': digestOf(12) });
    assert.deepEqual(entriesOf(batches[1]!), { 'op-b': digestOf(13) });
  });

  it('a digest no verified build produced is not nudged, and is told', async () => {
    const ns = 'unverified';
    await namespace(ns);
    await build(ns, 'op-a', 'op-a-on-push-1', digestOf(21));
    await snapshot(ns, 'forged', 300, 'op-a', { 'op-a': digestOf(21), 'op-b': digestOf(22) }, true);
    await nudgedAt(ns, { 'op-a': digestOf(21) });
    const [only, ...rest] = boundary.batches(ns);
    assert.equal(rest.length, 0);
    assert.deepEqual(entriesOf(only!), { 'op-a': digestOf(21) });
    await eventually('the unverified digest to be told', async () => {
      const events = await client.list<KubeObject & { reason?: string }>(CORE_EVENTS, { namespace: ns });
      return events.items.some((event) => event.reason === 'ValidatedDigestUnverified') ? true : undefined;
    });
  });

  it('an active ChangeGroup on the target collects the validated digests: held-nudge records, no fire', async () => {
    const ns = 'held';
    await namespace(ns);
    await client.create(CHANGE_GROUPS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ChangeGroup',
      metadata: { name: 'bundle-update', namespace: ns },
      spec: { nudgedComponent: 'bundle', nudgingComponents: [{ name: 'op-a' }], timeout: '24h' },
    } as KubeObject);
    await eventually('the ChangeGroup to be taken up', async () => {
      const stored = await client.get<KubeObject>(CHANGE_GROUPS, ns, 'bundle-update');
      return stored.metadata?.finalizers !== undefined ? true : undefined;
    });
    await build(ns, 'op-a', 'op-a-on-push-1', digestOf(31));
    await build(ns, 'op-b', 'op-b-on-push-1', digestOf(32));
    await snapshot(ns, 'pass', 400, 'op-b', { 'op-a': digestOf(31), 'op-b': digestOf(32) }, true);
    const settled = await nudgedAt(ns, { 'op-a': digestOf(31), 'op-b': digestOf(32) });
    assert.equal(settled.nudged.get('op-a')?.heldBy?.changeGroup, 'bundle-update');
    assert.equal(settled.nudged.get('op-b')?.heldBy, undefined);
    const runs = await client.list<KubeObject & { spec?: { status?: string } }>(PIPELINE_RUNS, { namespace: ns });
    const records = runs.items.filter(
      (run) => run.metadata?.annotations?.[DISPATCHED_FROM_ANNOTATION] === 'op-a-on-push-1',
    );
    assert.equal(records.length, 1);
    assert.equal(records[0]?.spec?.status, 'Cancelled');
    assert.equal(records[0].metadata?.annotations?.[HELD_TARGETS_ANNOTATION], 'bundle=bundle-update');
    // op-b is not a source of the ChangeGroup: it goes out alone.
    const batches = boundary.batches(ns);
    assert.equal(batches.length, 1);
    assert.deepEqual(entriesOf(batches[0]!), { 'op-b': digestOf(32) });
  });

  it('an immediate and a validated entry into one target each follow their own rule', async () => {
    const ns = 'mixed';
    await namespace(ns, [
      { from: 'op-a', to: 'bundle', mode: 'validated', gatingGroup: GROUP },
      { from: 'op-b', to: 'bundle' },
    ]);
    await build(ns, 'op-b', 'op-b-on-push-1', digestOf(51));
    await eventually('the immediate nudge of op-b', () =>
      immediateOf(ns).includes('op-b-on-push-1 bundle') ? true : undefined,
    );
    await build(ns, 'op-a', 'op-a-on-push-1', digestOf(52));
    assert.equal(boundary.batches(ns).length, 0, 'a validated entry waits for its group');
    await snapshot(ns, 'pass', 600, 'op-a', { 'op-a': digestOf(52), 'op-b': digestOf(51) }, true);
    await nudgedAt(ns, { 'op-a': digestOf(52) });
    const [only, ...rest] = boundary.batches(ns);
    assert.equal(rest.length, 0);
    assert.deepEqual(entriesOf(only!), { 'op-a': digestOf(52) }, 'op-b is immediate, not batched');
    assert.deepEqual(immediateOf(ns), ['op-b-on-push-1 bundle'], 'op-a is validated, never fired on its build');
  });

  it('the manager killed between the pass and the pull request: exactly one batch after the restart', async () => {
    const ns = 'crash';
    await namespace(ns);
    await build(ns, 'op-a', 'op-a-on-push-1', digestOf(41));
    await build(ns, 'op-b', 'op-b-on-push-1', digestOf(42));
    const effect = new Promise<void>((resolve) => {
      boundary.effectRecorded = resolve;
    });
    boundary.hangNext = true;
    await snapshot(ns, 'pass', 500, 'op-b', { 'op-a': digestOf(41), 'op-b': digestOf(42) }, true);
    await effect;
    await manager?.stop();
    const interrupted = await record(ns);
    assert.equal(interrupted?.batch?.state, 'firing');
    manager = await startManager();
    await nudgedAt(ns, { 'op-a': digestOf(41), 'op-b': digestOf(42) });
    const keys = new Set(boundary.batchCalls.filter((call) => call.namespace === ns).map((call) => call.key));
    assert.equal(keys.size, 1, 'the retry carries the same key, so the forge makes one pull request');
    assert.equal(boundary.batches(ns).length, 1);
    assert.ok(boundary.batchCalls.filter((call) => call.namespace === ns).length >= 2);
  });
});
