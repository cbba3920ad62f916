// A renovate nudge that fails inside its run is told, once (docs/decisions.md N24, D9 "never in
// silence"), on a real kube-apiserver: the renovate executor creates its nudge PipelineRun as in
// renovate-executor.test.ts, "Tekton" ends it Succeeded=False with a message quoting the token, and
// the manager's dispatcher writes exactly one ComponentNudgeFailed Event on the nudging Component,
// without the token, counts it once and marks the run. A manager started after a crash between the
// Event and the mark (the mark removed here) finds the Event: no second Event, nothing counted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HostedForgeResolver } from '../../src/adapters/forges/hosted-resolver.ts';
import { publicForgeHosts } from '../../src/adapters/forges/registry.ts';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  COMPONENTS,
  CORE_EVENTS,
  NAMESPACES,
  PIPELINE_RUNS,
  SECRETS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import type { DispatchControllerOptions } from '../../src/controllers/dispatch/controller.ts';
import { ForgeResolverAccess } from '../../src/controllers/dispatch/renovate/forge-access.ts';
import { RenovateExecutor } from '../../src/controllers/dispatch/renovate/renovate-executor.ts';
import { FAILURE_REPORTED_ANNOTATION } from '../../src/domain/nudge/nudge-run-failure.ts';
import { KEY, NS, TOKEN, renovateRequest } from '../controllers/renovate-executor-fixtures.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const RUN = `renovate-pipeline-${KEY}`;

interface Told extends KubeObject {
  reason?: string;
  type?: string;
  message?: string;
  involvedObject: { kind?: string; name?: string };
}

interface Run extends KubeObject {
  status?: Record<string, unknown>;
}

let plane: ControlPlane;
let client: KubeClient;
let manager: TestManager | undefined;

/** The dispatcher on, firing nothing here: the run under test is made by the executor directly. */
const DISPATCH: DispatchControllerOptions = { enabled: true, defaultExecutor: 'renovate', executors: {} };
const startManager = (): Promise<TestManager> =>
  startTestManager(plane.kubeConfig, { overrides: { dispatch: DISPATCH } });

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, UPSTREAM_CRDS.pipelineRuns, ...NUDGER_CRDS] });
  client = new KubeClient(plane.kubeConfig);
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await client.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'github-acme',
      namespace: NS,
      labels: { 'appstudio.redhat.com/credentials': 'scm', 'appstudio.redhat.com/scm.host': 'github.com' },
      annotations: { 'appstudio.redhat.com/scm.repository': 'acme/*' },
    },
    type: 'kubernetes.io/basic-auth',
    stringData: { username: 'acme-bot', password: TOKEN },
  } as KubeObject);
  const request = renovateRequest();
  await client.create(COMPONENTS, { ...request.nudging, metadata: { name: 'operand-a', namespace: NS } });
  manager = await startManager();
});

after(async () => {
  await manager?.stop();
  await plane.close();
});

const failures = async (): Promise<Told[]> =>
  (await client.list<Told>(CORE_EVENTS, { namespace: NS })).items.filter((e) => e.reason === 'ComponentNudgeFailed');

async function counted(running: TestManager): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${String(running.metricsPort)}/metrics`)).text();
  const sample = /^nudger_nudge_runs_failed_total\{reason="Failed"\} (\d+)$/m.exec(text);
  return sample === null ? 0 : Number(sample[1]);
}

const mark = async (): Promise<string | undefined> =>
  (await client.get<Run>(PIPELINE_RUNS, NS, RUN)).metadata?.annotations?.[FAILURE_REPORTED_ANNOTATION];

describe("the renovate executor's failed nudge run", () => {
  it('is told once, without the token, counted once, also after a manager restart', async () => {
    const hosts = publicForgeHosts();
    const executor = new RenovateExecutor({
      client,
      forgeAccess: new ForgeResolverAccess(new HostedForgeResolver(client, hosts), { hosts }),
    });
    assert.deepEqual((await executor.fire(renovateRequest())).result, { ok: true, detail: RUN });

    // "Tekton": the Renovate step failed, and its message quotes the token in two shapes.
    const created = await client.get<Run>(PIPELINE_RUNS, NS, RUN);
    await client.replaceStatus<Run>(PIPELINE_RUNS, {
      ...created,
      status: {
        conditions: [
          {
            type: 'Succeeded',
            status: 'False',
            reason: 'Failed',
            message:
              'Tasks Completed: 1 (Failed: 1, Cancelled 0), Skipped: 0. renovate: git clone ' +
              `https://x-access-token:${TOKEN}@github.com/acme/operator-bundle failed (token ${TOKEN})`,
          },
        ],
      },
    });

    assert.ok(await eventually('the run marked as told', mark));
    const [event, ...more] = await failures();
    assert.equal(more.length, 0);
    assert.ok(event !== undefined);
    assert.equal(event.type, 'Warning');
    assert.deepEqual([event.involvedObject.kind, event.involvedObject.name], ['Component', 'operand-a']);
    assert.match(
      event.message ?? '',
      new RegExp(`operator-bundle .* PipelineRun ${RUN} ended Failed: Tasks Completed`),
    );
    assert.match(event.message ?? '', /https:\/\/\*\*\*@github\.com\/acme\/operator-bundle/);
    assert.ok(!JSON.stringify(event).includes(TOKEN), event.message);
    assert.ok(manager !== undefined);
    assert.equal(await counted(manager), 1);

    // A crash after the Event, before the mark: the next manager finds the Event, tells nothing.
    await manager.stop();
    await client.patch(PIPELINE_RUNS, NS, RUN, 'merge', {
      metadata: { annotations: { [FAILURE_REPORTED_ANNOTATION]: null } },
    });
    assert.equal(await mark(), undefined);
    manager = await startManager();
    assert.ok(await eventually('the run marked again', mark));
    assert.equal((await failures()).length, 1, 'one Event across both managers');
    assert.equal(await counted(manager), 0, 'the second manager counted nothing: one in all');
  });
});
