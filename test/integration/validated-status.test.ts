// status.validatedNudges on a real kube-apiserver (issue 11, docs/decisions.md D10): the API server
// accepts the status of 5,000 validated entries and the longest names its schema allows; the
// writer and the stale-reference controller (run by the manager) each keep the other's fields.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  COMPONENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  NUDGE_CONFIGS_V1BETA2,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { namespaceNudgeGraph } from '../../src/cluster/nudge-graph.ts';
import { writeValidatedNudgesStatus } from '../../src/controllers/dispatch/validated-status-writer.ts';
import { buildNamespaceGraph } from '../../src/domain/graph.ts';
import type { ValidatedRecord } from '../../src/domain/nudge/validated-record.ts';
import {
  sameValidatedNudgesStatus,
  validatedNudgesStatus,
  type ValidatedNudgesStatus,
} from '../../src/domain/nudge/validated-status.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import { manifestSet, nudgeConfig as nudgeConfigObject, type EntrySpec } from '../domain/fixtures.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const NAMESPACE = 'tenant';
const AT = '2026-11-26T13:00:00.000Z';

let plane: ControlPlane;
let manager: TestManager;
let client: KubeClient;

const source = (i: number): string => `operand-${String(i).padStart(3, '0')}`;
const target = (g: number): string => `bundle-${String(g).padStart(2, '0')}`;
const group = (g: number): string => `group-${String(g).padStart(2, '0')}`;

/** 5,000 validated entries: 100 operands each nudge 50 bundles, bundle g gated by group g. */
const FIVE_THOUSAND: readonly EntrySpec[] = Array.from({ length: 5000 }, (_, k) => {
  const g = k % 50;
  return { from: source(Math.floor(k / 50)), to: target(g), mode: 'validated', gatingGroup: group(g) };
});

function nudgeConfig(
  namespace: string,
  nudges: readonly EntrySpec[],
  apiVersion = 'konflux-ci.dev/v1alpha1',
): KubeObject {
  return {
    apiVersion,
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace },
    spec: { nudges },
  } as KubeObject;
}

const read = (namespace = NAMESPACE): Promise<ClusterNudgeConfig> =>
  client.get<ClusterNudgeConfig>(NUDGE_CONFIGS, namespace, 'nudge-config');

/** The status of FIVE_THOUSAND as the dispatcher would compute it: every operand built since. */
function fiveThousandStatus(config: ClusterNudgeConfig): ValidatedNudgesStatus {
  const records = new Map<string, ValidatedRecord>();
  for (let g = 0; g < 50; g += 1) {
    records.set(`${group(g)}\u0000${target(g)}`, {
      group: group(g),
      target: target(g),
      nudged: new Map(),
      lastPass: { snapshot: `my-application-${String(g)}`, startTime: 1_764_162_000 + g, at: AT },
    });
  }
  const status = validatedNudgesStatus({
    graph: namespaceNudgeGraph(NAMESPACE, { components: [], nudgeConfig: config }),
    record: (g, t) => records.get(`${g}\u0000${t}`),
    newestBuildCreatedAt: () => 1,
  });
  assert.ok(status !== undefined);
  return status;
}

/** The largest status the domain makes: 50 groups listed, the longest names, 200 waiting entries. */
function longestStatus(): ValidatedNudgesStatus {
  const name = (prefix: string, length: number, i: number): string => {
    const suffix = `-${String(i)}`;
    return prefix.repeat(length).slice(0, length - suffix.length) + suffix;
  };
  const entries: EntrySpec[] = [];
  const records: ValidatedRecord[] = [];
  for (let g = 0; g < 50; g += 1) {
    const gatingGroup = name('g', 63, g);
    const to = name('t', 63, g);
    for (let j = 0; j < 100; j += 1)
      entries.push({ from: name('c', 63, g * 100 + j), to, mode: 'validated', gatingGroup });
    records.push({
      group: gatingGroup,
      target: to,
      nudged: new Map(),
      lastPass: { snapshot: name('s', 253, g), startTime: 1_764_162_000, at: AT },
    });
  }
  const graph = buildNamespaceGraph(
    'tenant-b',
    manifestSet({ nudgeConfigs: [nudgeConfigObject('tenant-b', entries)] }),
  );
  const status = validatedNudgesStatus({
    graph,
    record: (g, t) => records.find((r) => r.group === g && r.target === t),
    newestBuildCreatedAt: () => 1,
  });
  assert.ok(status !== undefined);
  return status;
}

async function validCondition(namespace = NAMESPACE) {
  return (await read(namespace)).status?.conditions?.find((c) => c.type === 'Valid');
}

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, ...NUDGER_CRDS] });
  client = new KubeClient(plane.kubeConfig);
  for (const name of [NAMESPACE, 'tenant-b', 'tenant-c']) {
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  await client.create(NUDGE_CONFIGS, nudgeConfig(NAMESPACE, FIVE_THOUSAND));
  await client.create(
    NUDGE_CONFIGS,
    nudgeConfig('tenant-b', [{ from: 'a', to: 'b', mode: 'validated', gatingGroup: 'g' }]),
  );
  // A validated entry without a gating group: only v1beta2 admits it, so status goes through v1beta2.
  await client.create(
    NUDGE_CONFIGS_V1BETA2,
    nudgeConfig(
      'tenant-c',
      [
        { from: 'a', to: 'b', mode: 'validated' },
        { from: 'a', to: 'c', mode: 'validated', gatingGroup: 'g' },
      ],
      'konflux-ci.dev/v1beta2',
    ),
  );
  // The stale-reference controller: none of these Components exist, so Valid turns False.
  manager = await startTestManager(plane.kubeConfig, { logLevel: 'error' });
  for (const namespace of [NAMESPACE, 'tenant-b', 'tenant-c']) {
    await eventually(`Valid in ${namespace}`, () => validCondition(namespace));
  }
});

after(async () => {
  await manager.stop();
  await plane.close();
});

describe('status.validatedNudges on the API server', () => {
  it("accepts the status of 5,000 validated entries and keeps the stale-reference controller's fields", async () => {
    const before = await read();
    const status = fiveThousandStatus(before);
    assert.equal(status.entries, 5000);
    assert.equal(status.waiting, 5000);
    assert.equal(await writeValidatedNudgesStatus(client, before, status), 'written');
    const after = await read();
    assert.deepEqual(after.status?.validatedNudges, status);
    assert.deepEqual(after.status.conditions, before.status?.conditions);
    assert.equal(after.status.lastValidationTime, before.status?.lastValidationTime);
    assert.equal(after.status.observedGeneration, before.status?.observedGeneration);
    console.log(`5,000 entries: status.validatedNudges ${String(JSON.stringify(status).length)} bytes`);
  });

  it('writes nothing when the status would not change, even from a cache that trails the server', async () => {
    const current = await read();
    const status = fiveThousandStatus(current);
    assert.equal(await writeValidatedNudgesStatus(client, current, status), 'unchanged');
    // A cache that has not seen the last write yet: the fresh read finds the same, and skips.
    const trailing = structuredClone(current);
    delete trailing.status?.validatedNudges;
    assert.equal(await writeValidatedNudgesStatus(client, trailing, status), 'unchanged');
    assert.equal((await read()).metadata?.resourceVersion, current.metadata?.resourceVersion);
  });

  it("survives the stale-reference controller's next write", async () => {
    const before = await read();
    const previous = before.status?.conditions?.find((c) => c.type === 'Valid')?.message;
    // One missing Component appears: the controller rewrites Valid's message.
    await client.create(COMPONENTS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'Component',
      metadata: { name: source(0), namespace: NAMESPACE },
      spec: { componentName: source(0), application: 'app', source: { git: { url: 'https://example.com/x' } } },
    } as KubeObject);
    const after = await eventually('a new Valid message', async () => {
      const config = await read();
      const message = config.status?.conditions?.find((c) => c.type === 'Valid')?.message;
      return message !== previous ? config : undefined;
    });
    assert.ok(sameValidatedNudgesStatus(after.status?.validatedNudges, before.status?.validatedNudges));
  });

  it('accepts the largest status the domain makes (the longest names the schema allows)', async () => {
    const current = await read('tenant-b');
    const status = longestStatus();
    assert.equal(await writeValidatedNudgesStatus(client, current, status), 'written');
    const after = await read('tenant-b');
    assert.deepEqual(after.status?.validatedNudges, status);
    assert.deepEqual(after.status.conditions, current.status?.conditions);
    console.log(`longest names: status.validatedNudges ${String(JSON.stringify(status).length)} bytes`);
  });

  it('removes the field when no validated entry is left, keeping the conditions', async () => {
    const current = await read('tenant-b');
    assert.equal(await writeValidatedNudgesStatus(client, current, undefined), 'written');
    const after = await read('tenant-b');
    assert.equal(after.status?.validatedNudges, undefined);
    assert.ok(current.status?.conditions !== undefined);
    assert.deepEqual(after.status?.conditions, current.status.conditions);
  });

  it('writes a v1beta2-only NudgeConfig through v1beta2, whose status is the same', async () => {
    const current = await read('tenant-c');
    const status = validatedNudgesStatus({
      graph: namespaceNudgeGraph('tenant-c', { components: [], nudgeConfig: current }),
      record: () => undefined,
      newestBuildCreatedAt: () => 1,
    });
    assert.deepEqual(status?.groups, [
      { gatingGroup: 'g', entries: 1, targets: 1, waiting: 1, waitingEntries: ['a -> c'] },
    ]);
    assert.equal(await writeValidatedNudgesStatus(client, current, status), 'written');
    const throughV1beta2 = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS_V1BETA2, 'tenant-c', 'nudge-config');
    assert.deepEqual(throughV1beta2.status?.validatedNudges, status);
    assert.deepEqual(throughV1beta2.status.conditions, current.status?.conditions);
  });

  it('answers gone for a NudgeConfig that no longer exists', async () => {
    const current = await read('tenant-b');
    await client.delete(NUDGE_CONFIGS, 'tenant-b', 'nudge-config');
    assert.equal(await writeValidatedNudgesStatus(client, current, longestStatus()), 'gone');
  });
});
