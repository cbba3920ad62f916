// deploy/korifi (docs/decisions.md N39): a kustomize Component with the Korifi and kpack RBAC and
// `--controllers=all`, which deploy/default does not include. kubectl 1.20's kustomize (v2.0.3)
// predates Components, so the Component is applied here as kustomize would: its resources as they
// are, its JSON patch on deploy/default's rendered Deployment.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { runCli } from '../cli/run-cli.ts';
import { DEPLOY_DIR, isRecord, kustomize, parseObjects, type KubeObject } from './kubectl.ts';

const KORIFI_DIR = join(DEPLOY_DIR, 'korifi');
const read = (file: string): string => readFileSync(join(KORIFI_DIR, file), 'utf8');

const kustomization = parse(read('kustomization.yaml')) as Record<string, unknown>;
const objects = [
  ...parseObjects(read('role.yaml'), 'deploy/korifi/role.yaml'),
  ...parseObjects(read('role_binding.yaml'), 'deploy/korifi/role_binding.yaml'),
];
const patch = parse(read('manager_controllers_patch.yaml')) as { op: string; path: string; value: string }[];

/** The Korifi and kpack permissions, `group/resource` -> verbs: docs/deploy.md explains each. */
const EXPECTED_PERMISSIONS: Record<string, string[]> = {
  'korifi.cloudfoundry.org/buildworkloads': ['get', 'list', 'patch', 'update', 'watch'],
  'korifi.cloudfoundry.org/buildworkloads/status': ['get', 'patch', 'update'],
  'korifi.cloudfoundry.org/buildworkloads/finalizers': ['update'],
  'korifi.cloudfoundry.org/cfapps': ['get', 'list', 'patch', 'update', 'watch'],
  'korifi.cloudfoundry.org/cfapps/finalizers': ['update'],
  'korifi.cloudfoundry.org/cfbuilds': ['create', 'get', 'list', 'watch'],
  'korifi.cloudfoundry.org/cfbuilds/status': ['get', 'patch', 'update'],
  'kpack.io/images': ['create', 'get', 'list', 'patch', 'update', 'watch'],
  'kpack.io/builds': ['get', 'list', 'patch', 'watch'],
  'kpack.io/builders': ['create', 'get', 'list', 'patch', 'update', 'watch'],
  'kpack.io/clusterbuilders': ['get', 'list', 'watch'],
  'core/serviceaccounts': ['get'],
  'core/secrets': ['get'],
};

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function permissionsOf(role: KubeObject): Record<string, string[]> {
  const permissions: Record<string, string[]> = {};
  for (const rule of Array.isArray(role.rules) ? (role.rules as unknown[]).filter(isRecord) : []) {
    for (const group of strings(rule.apiGroups))
      for (const resource of strings(rule.resources)) {
        const key = `${group === '' ? 'core' : group}/${resource}`;
        permissions[key] = [...new Set([...(permissions[key] ?? []), ...strings(rule.verbs)])].sort();
      }
  }
  return permissions;
}

function only(kind: string): KubeObject {
  const found = objects.filter((o) => o.kind === kind);
  assert.equal(found.length, 1, kind);
  return found[0]!;
}

/** deploy/default's Deployment with the Component's patch applied (each op an append to a list). */
function patchedArgs(): string[] {
  const deployment = kustomize('default').find((o) => o.kind === 'Deployment' && o.metadata.name === 'nudger-manager');
  assert.ok(deployment);
  const spec = deployment.spec as { template: { spec: { containers: { args: string[] }[] } } };
  const args = [...(spec.template.spec.containers[0]?.args ?? [])];
  for (const op of patch) {
    assert.equal(op.op, 'add');
    assert.equal(op.path, '/spec/template/spec/containers/0/args/-');
    args.push(op.value);
  }
  return args;
}

describe('deploy/korifi', () => {
  it('is a kustomize Component of the role, its binding and the manager patch, and deploy/default leaves it out', () => {
    assert.equal(kustomization.apiVersion, 'kustomize.config.k8s.io/v1alpha1');
    assert.equal(kustomization.kind, 'Component');
    assert.deepEqual(kustomization.resources, ['role.yaml', 'role_binding.yaml']);
    assert.deepEqual(
      (kustomization.patches as Record<string, unknown>[]).map((p) => p.path),
      ['manager_controllers_patch.yaml'],
    );
    const rendered = kustomize('default');
    assert.ok(
      !rendered.some((o) => o.metadata.name.startsWith('nudger-korifi')),
      'deploy/default binds the Korifi role',
    );
    const grants = rendered
      .filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')
      .flatMap((r) => Object.keys(permissionsOf(r)));
    assert.deepEqual(
      grants.filter((key) => key.startsWith('korifi.cloudfoundry.org/') || key.startsWith('kpack.io/')),
      [],
    );
  });

  it('grants exactly the Korifi and kpack permissions the controllers use: no wildcard, no delete', () => {
    const role = only('ClusterRole');
    assert.equal(role.metadata.name, 'nudger-korifi-role');
    assert.deepEqual(permissionsOf(role), EXPECTED_PERMISSIONS);
    for (const verbs of Object.values(permissionsOf(role))) {
      for (const verb of verbs)
        assert.ok(!['*', 'delete', 'deletecollection', 'escalate', 'bind', 'impersonate'].includes(verb));
    }
    for (const rule of (role.rules as unknown[]).filter(isRecord)) {
      for (const list of ['apiGroups', 'resources', 'verbs'])
        assert.ok(!strings(rule[list]).some((v) => v.includes('*')));
    }
  });

  it("binds the role to the ServiceAccount deploy/default's manager runs as", () => {
    const binding = only('ClusterRoleBinding');
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'nudger-korifi-role',
    });
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'nudger-manager', namespace: 'nudger-system' },
    ]);
    for (const object of objects) assert.equal(object.metadata.labels?.['app.kubernetes.io/part-of'], 'nudger');
  });

  it('runs both controller groups, with flags `nudger manager --help` documents', async () => {
    const args = patchedArgs();
    assert.equal(args.filter((arg) => arg.startsWith('--controllers')).length, 1);
    assert.ok(args.includes('--controllers=all'));
    const help = await runCli(['manager', '--help']);
    for (const flag of [
      '--controllers',
      '--korifi-image-repository',
      '--korifi-builder-name',
      '--korifi-cluster-builder',
      '--builder-readiness-timeout',
    ]) {
      assert.match(help.stdout, new RegExp(`${flag}\\b`), flag);
    }
  });
});
