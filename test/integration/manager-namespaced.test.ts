// `nudger manager --namespace` with only deploy/namespaced's Role, on a real kube-apiserver with
// RBAC on (issue 8, part 2 item 10): it does its work in the watched namespace and never reaches
// for anything outside it, so it meets no "forbidden" at all. The same identity watching every
// namespace is refused at once: that control shows the grant really is one namespace only.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { COMPONENTS, LEASES, NAMESPACES, NUDGE_CONFIGS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import { CacheSyncTimeoutError } from '../../src/runtime/controller.ts';
import { kustomize } from '../deploy/kubectl.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const ROLES: ResourceRef = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural: 'roles',
  kind: 'Role',
  namespaced: true,
};
const ROLE_BINDINGS: ResourceRef = { ...ROLES, plural: 'rolebindings', kind: 'RoleBinding' };
const MANAGER_USER = 'nudger-manager';
const OTHER = 'tenant-b';

let plane: ControlPlane;
let admin: KubeClient;
let managerConfig: KubeConfig;
/** The namespace deploy/namespaced watches: its Role is applied exactly as shipped. */
let watched: string;

const component = (namespace: string, name: string): KubeObject =>
  ({
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace },
    spec: { componentName: name, application: 'app', source: { git: { url: `https://example.com/${name}` } } },
  }) as KubeObject;

const nudgeConfig = (namespace: string, from: string, to: string): KubeObject =>
  ({
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace },
    spec: { nudges: [{ from, to }] },
  }) as KubeObject;

/** A manager as MANAGER_USER whose JSON log lines are kept. */
async function startManagerAs(namespace: string | undefined): Promise<{ manager: TestManager; log: string[] }> {
  const log: string[] = [];
  const manager = await startTestManager(managerConfig, {
    logLevel: 'debug',
    ...(namespace === undefined ? {} : { namespace }),
    logDestination: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        callback();
      },
    }),
  });
  return { manager, log };
}

const refusals = (log: readonly string[]): string[] => log.filter((line) => /forbidden|\b403\b/i.test(line));

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, UPSTREAM_CRDS.pipelineRuns, ...NUDGER_CRDS] });
  admin = new KubeClient(plane.kubeConfig);
  managerConfig = plane.tokenFor(MANAGER_USER);
  const role = kustomize('namespaced').find((o) => o.kind === 'Role' && o.metadata.name === 'nudger-manager-role');
  assert.ok(role?.metadata.namespace !== undefined, 'deploy/namespaced renders no nudger-manager-role Role');
  watched = role.metadata.namespace;
  for (const name of [watched, OTHER]) {
    await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  await admin.create(ROLES, role);
  // The shipped binding names the in-cluster ServiceAccount; the test identity stands in for it.
  await admin.create(ROLE_BINDINGS, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'nudger-manager-rolebinding', namespace: watched },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'nudger-manager-role' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: MANAGER_USER }],
  } as KubeObject);
  for (const namespace of [watched, OTHER]) {
    for (const name of ['api', 'web']) await admin.create(COMPONENTS, component(namespace, name));
  }
});

after(async () => {
  await plane.close();
});

describe('nudger manager --namespace with a Role in that namespace only', () => {
  it('validates the NudgeConfig of the watched namespace and meets no refusal', async () => {
    const { manager, log } = await startManagerAs(watched);
    try {
      // Stale on purpose in the other namespace: a manager that looked there would set Valid=False.
      await admin.create(NUDGE_CONFIGS, nudgeConfig(OTHER, 'api', 'ghost'));
      await admin.create(NUDGE_CONFIGS, nudgeConfig(watched, 'api', 'web'));
      const condition = await eventually('Valid on the watched NudgeConfig', async () => {
        const current = await admin.get<ClusterNudgeConfig>(NUDGE_CONFIGS, watched, 'nudge-config');
        return current.status?.conditions?.find((c) => c.type === 'Valid');
      });
      assert.equal(condition.status, 'True');
      assert.equal(condition.reason, 'AllComponentsExist');

      // Every informer synced: the manager is ready, so its lists and watches all succeeded.
      const ready = await eventually('readiness', async () => {
        const response = await fetch(`http://127.0.0.1:${String(manager.healthPort)}/readyz?verbose`);
        return response.status === 200 ? await response.text() : undefined;
      });
      assert.match(ready, /informers-synced/);

      const untouched = await admin.get<ClusterNudgeConfig>(NUDGE_CONFIGS, OTHER, 'nudge-config');
      assert.equal(untouched.status, undefined, `the manager wrote to ${OTHER}`);
      assert.deepEqual(refusals(log), []);
      assert.deepEqual(
        log.filter((line) => line.includes(OTHER)),
        [],
      );
    } finally {
      await manager.stop();
    }
  });

  it('is refused when the same identity watches every namespace (the control)', async () => {
    const { manager, log } = await startManagerAs(undefined);
    try {
      const refused = await eventually('a refused cluster-wide list', () => {
        const lines = refusals(log);
        return lines.length > 0 ? lines : undefined;
      });
      assert.match(refused.join('\n'), /cannot list resource/);
    } finally {
      await manager.stop();
    }
  });
});

describe('a leader whose controllers cannot start', () => {
  // Issue 8, part 2 item 5: a fatal error after start must end the manager. Before, the leader
  // logged "onStartedLeading failed" and went on renewing its Lease with no controller running,
  // which also kept every healthy replica from taking over.
  // The timeout only turns a hang (the defect) into a failure.
  it(
    'stops, reports the failure and releases the Lease (shipped Lease Role, resourceNames and all)',
    { timeout: 120_000 },
    async () => {
      const identityObjects = kustomize('identity');
      const leaseRole = identityObjects.find((o) => o.kind === 'Role');
      assert.ok(leaseRole?.metadata.namespace !== undefined, 'deploy/identity renders no Role');
      const leaseNamespace = leaseRole.metadata.namespace;
      await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: leaseNamespace } });
      await admin.create(ROLES, leaseRole);
      const user = 'alice'; // may touch the Lease and nothing else: no cache can ever sync
      await admin.create(ROLE_BINDINGS, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'lease-only', namespace: leaseNamespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: leaseRole.metadata.name },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      } as KubeObject);
      const manager = await startTestManager(plane.tokenFor(user), {
        logLevel: 'silent',
        overrides: {
          leaderElect: true,
          leaderElectionNamespace: leaseNamespace,
          leaderElectionId: 'nudger-manager-leader',
          leaseDurationMs: 3_000,
          renewDeadlineMs: 2_000,
          retryPeriodMs: 500,
          cacheSyncTimeoutMs: 1_000,
        },
      });
      try {
        await manager.done;
        assert.ok(manager.failure() instanceof CacheSyncTimeoutError, String(manager.failure()));
        const lease = await admin.get<KubeObject & { spec?: { holderIdentity?: string } }>(
          LEASES,
          leaseNamespace,
          'nudger-manager-leader',
        );
        // Created, held, then released on the way out: get, create and update were all allowed.
        assert.equal(lease.spec?.holderIdentity ?? '', '');
      } finally {
        await manager.stop();
      }
    },
  );
});
