// integration-service's stand-in on a real control plane with the vendored CRDs: the ComponentGroup
// a scenario declares is accepted as written, and a `snapshot` step's Snapshot carries the labels,
// annotations and images integration-service gives a push Snapshot of a group (docs/decisions.md
// D10), its test condition written through the status subresource, and start times that keep
// increasing however fast builds come.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { COMPONENTS, NAMESPACES, SNAPSHOTS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { decodeSnapshot } from '../../src/domain/cluster-objects.ts';
import { readSnapshot } from '../../src/domain/nudge/validated-snapshot.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import {
  COMPONENT_GROUPS,
  IntegrationStandIn,
  IntegrationStandInError,
  type PlayedBuildRef,
} from '../../src/sandbox/integration.ts';
import { KonfluxStandIn, type RecordedBuild } from '../../src/sandbox/konflux.ts';
import { scenarioObjects } from '../../src/sandbox/scenario/objects.ts';
import { parseScenario } from '../../src/sandbox/scenario/parse.ts';
import { sandboxComponent } from './local-forge-fixtures.ts';

const NS = 'validated';
const SCENARIO = parseScenario(
  `namespace: ${NS}
components:
  - {name: op-a, image: quay.io/acme/op-a, nudges: [{to: bundle, mode: validated, gatingGroup: operands}]}
  - {name: op-b, image: quay.io/acme/op-b, nudges: [{to: bundle, mode: validated, gatingGroup: operands}]}
  - {name: op-c, image: quay.io/acme/op-c, nudges: [{to: bundle, mode: validated, gatingGroup: operands}]}
  - {name: bundle, image: quay.io/acme/bundle}
componentGroups:
  - {name: operands, components: [op-a, op-b, op-c]}
`,
  'stand-in.yaml',
);

interface SnapshotResource extends KubeObject {
  spec?: { application?: string; componentGroup?: string; components?: { name: string; containerImage: string }[] };
  status?: { conditions?: Record<string, unknown>[] };
}

let plane: ControlPlane;
let client: KubeClient;
let konflux: KonfluxStandIn;
let integration: IntegrationStandIn;
const builds: PlayedBuildRef[] = [];

async function build(component: string, succeeded = true): Promise<RecordedBuild> {
  const recorded = await konflux.recordBuild({ namespace: NS, component, nudge: false, succeeded });
  builds.push({ name: recorded.pipelineRun, component });
  return recorded;
}

before(async () => {
  plane = await startControlPlane({ crds: SANDBOX_CRDS });
  client = new KubeClient(plane.kubeConfig);
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  for (const name of ['op-a', 'op-b', 'op-c', 'bundle'])
    await client.create(COMPONENTS, sandboxComponent(NS, name, `file:///git/${name}.git`));
  konflux = new KonfluxStandIn(client, { seed: 'integration-stand-in' });
  integration = new IntegrationStandIn(client, { now: () => new Date('2026-11-26T12:00:00Z') });
});

after(async () => {
  await plane.close();
});

describe('integration-service stand-in on a real control plane', () => {
  it('creates the scenario ComponentGroup as the v1beta2 CRD serves it, nothing pruned', async () => {
    const [group] = scenarioObjects(SCENARIO, { repoUrl: (c) => `file:///git/${c}.git` }).componentGroups;
    assert.ok(group !== undefined);
    await client.create(COMPONENT_GROUPS, group);
    const stored = await client.get<KubeObject & { spec?: unknown }>(COMPONENT_GROUPS, NS, 'operands');
    assert.equal(stored.apiVersion, 'appstudio.redhat.com/v1beta2');
    assert.deepEqual(stored.spec, {
      // The API server fills in upstream's default kind.
      components: group.spec.components.map((c) => ({ ...c, kind: 'component' })),
    });
  });

  it('makes a push Snapshot of the group from the latest succeeded build of each member', async () => {
    const a1 = await build('op-a');
    const a2 = await build('op-a');
    await build('op-a', false); // failed: never in a Snapshot
    const b1 = await build('op-b');
    const made = await integration.recordSnapshot({
      namespace: NS,
      group: 'operands',
      application: 'app',
      passed: true,
      builds,
    });
    assert.notEqual(a1.digest, a2.digest);
    const snapshot = await client.get<SnapshotResource>(SNAPSHOTS, NS, made.name);
    assert.match(made.name, /^operands-[a-z0-9]{5}$/);
    assert.deepEqual(snapshot.metadata?.labels, {
      'test.appstudio.openshift.io/type': 'component',
      'appstudio.openshift.io/component': 'op-b',
      'appstudio.openshift.io/component-group': 'operands',
      'appstudio.openshift.io/build-pipelinerun': b1.pipelineRun,
      'test.appstudio.openshift.io/pipelinerunfinishtime': String(made.startTime),
      'pac.test.appstudio.openshift.io/event-type': 'push',
    });
    assert.deepEqual(snapshot.metadata.annotations, {
      'test.appstudio.openshift.io/pipelinerunstarttime': String(made.startTime),
      'test.appstudio.openshift.io/integration-workflow': 'push',
    });
    // op-c has no build yet: left out, as a member with no promoted image.
    assert.deepEqual(snapshot.spec, {
      application: 'app',
      componentGroup: 'operands',
      components: [
        { name: 'op-a', containerImage: `quay.io/acme/op-a@${a2.digest}` },
        { name: 'op-b', containerImage: `quay.io/acme/op-b@${b1.digest}` },
      ],
    });
    assert.deepEqual(snapshot.status?.conditions, [
      {
        type: 'AppStudioTestSucceeded',
        status: 'True',
        reason: 'Passed',
        message: 'All Integration Pipeline tests passed',
        lastTransitionTime: '2026-11-26T12:00:00Z',
      },
    ]);
    const decoded = decodeSnapshot(snapshot);
    assert.ok(decoded.ok);
    const reading = readSnapshot(decoded.object);
    assert.ok(reading.kind === 'passing', JSON.stringify(reading));
    assert.equal(reading.snapshot.startTime, made.startTime);
    // The build's own second (the stand-in's clock), not a made-up one, when nothing came before.
    const started = Math.floor(Date.now() / 1000);
    assert.ok(Math.abs(made.startTime - started) <= 60, `${String(made.startTime)} vs now ${String(started)}`);
  });

  it('marks a failed Snapshot False/Failed and keeps start times strictly increasing within one second', async () => {
    const c1 = await build('op-c');
    const times: number[] = [];
    for (const passed of [false, true, true]) {
      const made = await integration.recordSnapshot({ namespace: NS, group: 'operands', passed, builds });
      times.push(made.startTime);
      assert.equal(made.component, 'op-c');
      assert.equal(made.build, c1.pipelineRun);
      const snapshot = await client.get<SnapshotResource>(SNAPSHOTS, NS, made.name);
      assert.equal(snapshot.status?.conditions?.[0]?.reason, passed ? 'Passed' : 'Failed');
      assert.equal(snapshot.status.conditions[0].status, passed ? 'True' : 'False');
      assert.equal(snapshot.spec?.application, undefined);
    }
    const [first = 0, second = 0, third = 0] = times;
    assert.ok(first < second && second < third, times.join(' < '));
    const list = await client.list<SnapshotResource>(SNAPSHOTS, { namespace: NS });
    const all = list.items.map((s) =>
      Number(s.metadata?.annotations?.['test.appstudio.openshift.io/pipelinerunstarttime']),
    );
    assert.equal(new Set(all).size, all.length, 'every Snapshot has its own start time');
  });

  it('limits a Snapshot to the listed members; the newest of them triggered it', async () => {
    const made = await integration.recordSnapshot({
      namespace: NS,
      group: 'operands',
      passed: true,
      components: ['op-a'],
      builds,
    });
    const snapshot = await client.get<SnapshotResource>(SNAPSHOTS, NS, made.name);
    assert.deepEqual(
      snapshot.spec?.components?.map((c) => c.name),
      ['op-a'],
    );
    assert.equal(snapshot.metadata?.labels?.['appstudio.openshift.io/component'], 'op-a');
  });

  it('refuses a group that does not exist, a non-member, and a group no member of which has built', async () => {
    const refused = (input: Partial<Parameters<IntegrationStandIn['recordSnapshot']>[0]>, reason: RegExp) =>
      assert.rejects(
        integration.recordSnapshot({ namespace: NS, group: 'operands', passed: true, builds, ...input }),
        (error: unknown) => error instanceof IntegrationStandInError && reason.test(error.message),
      );
    await refused({ group: 'ghosts' }, /ComponentGroup validated\/ghosts: no such ComponentGroup/);
    await refused({ components: ['bundle'] }, /"bundle" is not a member/);
    await refused({ builds: [] }, /no member of op-a, op-b, op-c has a succeeded build/);
  });
});
