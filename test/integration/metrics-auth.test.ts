// /metrics behind Kubernetes authentication on a real kube-apiserver v1.20 with token auth and
// RBAC (issue 8, part 2 item 7): the manager runs as its own identity with only the shipped roles
// (deploy/rbac and deploy/metrics-auth); a scraper bound to the shipped nudger-metrics-reader gets
// 200, another authenticated identity 403, a missing or unknown token 401. The probes stay open,
// and no token reaches the log.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { kustomize } from '../deploy/kubectl.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';

const CLUSTER_ROLES: ResourceRef = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural: 'clusterroles',
  kind: 'ClusterRole',
  namespaced: false,
};
const CLUSTER_ROLE_BINDINGS: ResourceRef = {
  ...CLUSTER_ROLES,
  plural: 'clusterrolebindings',
  kind: 'ClusterRoleBinding',
};
const MANAGER_USER = 'nudger-manager';
const SCRAPER = 'alice';
const OTHER = 'bob';

let plane: ControlPlane;
let manager: TestManager;
const log: string[] = [];
const tokens = new Map<string, string>();

function tokenOf(user: string): string {
  const token = plane.tokenFor(user).getCurrentUser()?.token;
  assert.ok(token !== undefined && token !== '', `no token for ${user}`);
  tokens.set(user, token);
  return token;
}

async function bind(admin: KubeClient, role: string, user: string): Promise<void> {
  await admin.create(CLUSTER_ROLE_BINDINGS, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${role}-${user}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  } as KubeObject);
}

async function scrape(path: string, token?: string, port = manager.metricsPort): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${String(port)}${path}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  await response.text();
  return response.status;
}

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, UPSTREAM_CRDS.pipelineRuns, ...NUDGER_CRDS] });
  const admin = new KubeClient(plane.kubeConfig);
  // The shipped ClusterRoles, exactly as rendered; the test identities stand in for the
  // ServiceAccounts the shipped bindings name.
  const shipped = [...kustomize('rbac'), ...kustomize('metrics-auth')].filter((o) => o.kind === 'ClusterRole');
  for (const role of shipped) await admin.create(CLUSTER_ROLES, role);
  await bind(admin, 'nudger-manager-role', MANAGER_USER);
  await bind(admin, 'nudger-metrics-auth-role', MANAGER_USER);
  await bind(admin, 'nudger-metrics-reader', SCRAPER);
  admin.close();
  manager = await startTestManager(plane.tokenFor(MANAGER_USER), {
    logLevel: 'debug',
    overrides: { metricsAuth: 'kubernetes' },
    logDestination: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        callback();
      },
    }),
  });
});

after(async () => {
  await manager.stop();
  await plane.close();
});

describe('nudger manager --metrics-auth=kubernetes', () => {
  it('serves /metrics to a token allowed to get it: 200, 403 for another identity, 401 without one', async () => {
    assert.equal(await scrape('/metrics', tokenOf(SCRAPER)), 200);
    assert.equal(await scrape('/metrics', tokenOf(OTHER)), 403);
    assert.equal(await scrape('/metrics'), 401);
    assert.equal(await scrape('/metrics', 'not-a-token-the-api-server-knows'), 401);
    // The manager's own token may create reviews but was granted no /metrics.
    assert.equal(await scrape('/metrics', tokenOf(MANAGER_USER)), 403);
  });

  it('guards /metrics on the health port too, and leaves /healthz and /readyz open for the kubelet', async () => {
    assert.equal(await scrape('/metrics', undefined, manager.healthPort), 401);
    assert.equal(await scrape('/healthz', undefined, manager.healthPort), 200);
    assert.notEqual(await scrape('/readyz', undefined, manager.healthPort), 401);
  });

  it('writes no token to any log line', () => {
    assert.ok(log.length > 0, 'the manager logged nothing');
    for (const [user, token] of tokens) {
      const leaked = log.filter((line) => line.includes(token));
      assert.deepEqual(leaked, [], `${user}'s token in the log`);
    }
  });
});
