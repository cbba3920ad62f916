// `nudger manager --controllers` on the real control plane (docs/decisions.md N39): a group that
// is off asks the API server for none of its kinds. The korifi group alone runs in a cluster
// without any Konflux CRD (no Konflux informer, no Konflux webhook cache, and it becomes ready);
// the default group asks for no Korifi or kpack kind. What was asked is read from kube-apiserver's
// own request counters, so it covers every client the manager has.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { ControllerGroup } from '../../src/runtime/controller-groups.ts';
import { KORIFI_CRDS, SANDBOX_CRDS } from '../../src/sandbox/control-plane/control-plane.ts';
import { startKorifiControlPlane, type KorifiControlPlane } from './korifi-control-plane.ts';
import { startTestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const KONFLUX_GROUPS = ['appstudio.redhat.com', 'konflux-ci.dev', 'tekton.dev'];
const KORIFI_GROUPS = ['korifi.cloudfoundry.org', 'kpack.io'];

let cluster: KorifiControlPlane;

before(async () => {
  cluster = await startKorifiControlPlane(); // Korifi and kpack CRDs only
});
after(async () => {
  await cluster.stop();
});

/** kube-apiserver's /metrics, as the admin. */
function apiServerMetrics(): Promise<string> {
  const { kubeConfig, caPem, server } = cluster.plane;
  const token = kubeConfig.getCurrentUser()?.token ?? '';
  return new Promise((resolve, reject) => {
    const req = request(`${server}/metrics`, { ca: caPem, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve(Buffer.concat(chunks).toString('utf8'));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Requests kube-apiserver counted for resources of `groups`, by `group/resource`. */
async function resourceRequests(groups: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const line of (await apiServerMetrics()).split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const group = /[{,]group="([^"]*)"/.exec(line)?.[1] ?? '';
    const resource = /[{,]resource="([^"]*)"/.exec(line)?.[1] ?? '';
    if (resource === '' || !groups.includes(group)) continue;
    const key = `${group}/${resource}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** What was asked between two readings. */
function asked(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].filter(([key, count]) => count > (before.get(key) ?? 0)).map(([key]) => key);
}

async function runUntilReady(groups: readonly ControllerGroup[]): Promise<void> {
  const manager = await startTestManager(cluster.plane.kubeConfig, {
    overrides: { controllerGroups: groups, korifi: { repositoryPrefix: '127.0.0.1:5000/droplets/' } },
  });
  try {
    await eventually('readiness', async () => {
      const response = await fetch(`http://127.0.0.1:${String(manager.healthPort)}/readyz`);
      return response.status === 200 ? true : undefined;
    });
  } finally {
    await manager.stop();
  }
}

describe('manager controller groups', () => {
  it('korifi alone: ready in a cluster without Konflux CRDs, and asks for no Konflux kind', async () => {
    const before = await resourceRequests(KONFLUX_GROUPS);
    await runUntilReady(['korifi']);
    assert.deepEqual(asked(before, await resourceRequests(KONFLUX_GROUPS)), []);
  });

  it('the default (konflux): asks for no Korifi or kpack kind, even where their CRDs are installed', async () => {
    await cluster.plane.installCrds(SANDBOX_CRDS.filter((file) => !KORIFI_CRDS.includes(file)));
    const before = await resourceRequests(KORIFI_GROUPS);
    const konfluxBefore = await resourceRequests(KONFLUX_GROUPS);
    await runUntilReady(['konflux']);
    assert.deepEqual(asked(before, await resourceRequests(KORIFI_GROUPS)), []);
    // The counters see the manager at all: it did list the Konflux kinds.
    assert.ok(asked(konfluxBefore, await resourceRequests(KONFLUX_GROUPS)).includes('appstudio.redhat.com/components'));
  });
});
