// The render of deploy/default against a real kube-apiserver (v1.20, docs/decisions.md D7), through
// kubectl as an operator would use it: Namespace and RBAC are applied for real (so the API server
// resolves the bindings and answers access reviews for the manager's ServiceAccount), the rest by
// server-side dry run, which runs the API server's full validation and kubectl's schema check.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adaptCrdForV120, startControlPlane, type ControlPlane } from '../integration/harness/control-plane.ts';
import { kustomize, objectKey, runKubectl, type KubeObject } from './kubectl.ts';

const MANAGER = 'system:serviceaccount:nudger-system:nudger-manager';

/**
 * Kinds v1.20 cannot take, each with the reason. Everything else in the render is applied.
 * policy/v1 PodDisruptionBudget arrived in 1.21 (shipped manifests target >= 1.28, D8), and
 * cert-manager's kinds need cert-manager's CRDs, which the test control plane does not have.
 */
const NOT_ON_V120: Readonly<Record<string, string>> = {
  PodDisruptionBudget: 'policy/v1 is served from Kubernetes 1.21',
  Issuer: 'needs cert-manager',
  Certificate: 'needs cert-manager',
};
const APPLIED_FOR_REAL = new Set([
  'Namespace',
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
]);

function asList(objects: readonly (KubeObject | Record<string, unknown>)[]): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
}

/**
 * What the manager's ServiceAccount must be allowed (true) or refused (false), as verb,
 * `group/resource[/subresource]` (`core` for the core group), namespace ('' = cluster scope) and,
 * optionally, the object's name.
 * Asked of the API server's RBAC authorizer by SubjectAccessReview, which, unlike `kubectl auth
 * can-i`, needs no discovery, so it covers resources whose CRDs this control plane lacks.
 */
const ACCESS_EXPECTATIONS: readonly (readonly [string, string, string, boolean, string?])[] = [
  ['watch', 'appstudio.redhat.com/components', 'tenant-a', true],
  ['update', 'appstudio.redhat.com/components', 'tenant-a', false],
  ['patch', 'appstudio.redhat.com/changegroups', 'tenant-a', true],
  ['delete', 'appstudio.redhat.com/changegroups', 'tenant-a', false],
  ['update', 'appstudio.redhat.com/changegroups/status', 'tenant-a', true],
  ['update', 'appstudio.redhat.com/changegroups/finalizers', 'tenant-a', true],
  ['list', 'appstudio.redhat.com/nudgeconfigs', 'tenant-a', true],
  ['update', 'appstudio.redhat.com/nudgeconfigs', 'tenant-a', false],
  ['create', 'konflux-ci.dev/nudgeconfigs', 'tenant-a', true],
  ['delete', 'konflux-ci.dev/nudgeconfigs', 'tenant-a', false],
  ['patch', 'konflux-ci.dev/nudgeconfigs/status', 'tenant-a', true],
  // Valid (stale references) and validatedNudges (docs/decisions.md D10), a compare-and-swap PUT.
  ['update', 'konflux-ci.dev/nudgeconfigs/status', 'tenant-a', true],
  ['patch', 'tekton.dev/pipelineruns', 'tenant-a', true],
  ['create', 'tekton.dev/pipelineruns', 'tenant-a', true],
  ['delete', 'tekton.dev/pipelineruns', 'tenant-a', false],
  ['list', 'core/secrets', 'tenant-a', true],
  ['get', 'core/secrets', 'tenant-a', false],
  ['watch', 'core/secrets', 'tenant-a', false],
  // The renovate executor's token Secret and config ConfigMap (docs/decisions.md N24).
  ['create', 'core/secrets', 'tenant-a', true],
  // integration-service's Secret and ConfigMap of a held nudge, by name (docs/decisions.md N21).
  ['delete', 'core/secrets', 'tenant-a', true, 'renovate-pipeline-0123456789ab'],
  ['update', 'core/secrets', 'tenant-a', false],
  ['create', 'core/events', 'tenant-a', true],
  ['create', 'events.k8s.io/events', 'tenant-a', true],
  ['get', 'core/configmaps', 'tenant-a', true],
  ['delete', 'core/configmaps', 'tenant-a', true, 'renovate-pipeline-0123456789ab'],
  ['create', 'core/configmaps', 'tenant-a', true],
  // The validated-nudge records, cached by label and updated in place (docs/decisions.md D10).
  ['list', 'core/configmaps', 'tenant-a', true],
  ['watch', 'core/configmaps', 'tenant-a', true],
  ['update', 'core/configmaps', 'tenant-a', true],
  ['patch', 'core/configmaps', 'tenant-a', false],
  // Snapshots decide when a validated nudge fires (D10); never written.
  ['watch', 'appstudio.redhat.com/snapshots', 'tenant-a', true],
  ['update', 'appstudio.redhat.com/snapshots', 'tenant-a', false],
  ['update', 'appstudio.redhat.com/componentgroups', 'tenant-a', false],
  ['get', 'core/serviceaccounts', 'tenant-a', true],
  ['list', 'core/serviceaccounts', 'tenant-a', false],
  ['update', 'coordination.k8s.io/leases', 'nudger-system', true, 'nudger-manager-leader'],
  ['get', 'coordination.k8s.io/leases', 'nudger-system', true, 'nudger-manager-leader'],
  ['update', 'coordination.k8s.io/leases', 'nudger-system', false, 'another-controllers-lease'],
  ['get', 'coordination.k8s.io/leases', 'nudger-system', false, 'another-controllers-lease'],
  ['list', 'coordination.k8s.io/leases', 'nudger-system', false],
  ['create', 'coordination.k8s.io/leases', 'nudger-system', true],
  ['delete', 'coordination.k8s.io/leases', 'nudger-system', false],
  ['update', 'coordination.k8s.io/leases', 'tenant-a', false],
  ['create', 'rbac.authorization.k8s.io/clusterroles', '', false],
  // /metrics authentication (deploy/metrics-auth): the two reviews, and no other review kind.
  ['create', 'authentication.k8s.io/tokenreviews', '', true],
  ['create', 'authorization.k8s.io/subjectaccessreviews', '', true],
  ['create', 'authorization.k8s.io/localsubjectaccessreviews', 'tenant-a', false],
];

/** A SubjectAccessReview for the manager's ServiceAccount, with the groups its token carries. */
function accessReview(verb: string, target: string, namespace: string, name?: string): Record<string, unknown> {
  const [group = '', resource = '', subresource] = target.split('/');
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: MANAGER,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:nudger-system', 'system:authenticated'],
      resourceAttributes: {
        verb,
        group: group === 'core' ? '' : group,
        resource,
        ...(subresource === undefined ? {} : { subresource }),
        ...(namespace === '' ? {} : { namespace }),
        ...(name === undefined ? {} : { name }),
      },
    },
  };
}

describe('deploy/default on a real kube-apiserver v1.20', () => {
  const rendered = kustomize('default');
  let cp: ControlPlane;

  before(async () => {
    cp = await startControlPlane();
  });
  after(async () => {
    await cp.close();
  });

  function kubectl(args: readonly string[], input?: string): { status: number | null; stdout: string; stderr: string } {
    return runKubectl(['--kubeconfig', cp.kubeconfigPath, ...args], input);
  }

  it('takes the Namespace and the RBAC objects', () => {
    const objects = rendered.filter((o) => APPLIED_FOR_REAL.has(o.kind));
    assert.deepEqual(new Set(objects.map((o) => o.kind)), APPLIED_FOR_REAL);
    const result = kubectl(['apply', '-o', 'name', '-f', '-'], asList(objects));
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim().split('\n').length, objects.length, result.stdout);
  });

  it('accepts everything else by server-side dry run (CRDs adapted for v1.20)', () => {
    const rest = rendered
      .filter((o) => !APPLIED_FOR_REAL.has(o.kind) && !(o.kind in NOT_ON_V120))
      .map((o) => (o.kind === 'CustomResourceDefinition' ? adaptCrdForV120(o) : o));
    const kinds = new Set(rest.map((o) => String(o.kind)));
    for (const kind of [
      'CustomResourceDefinition',
      'Deployment',
      'Service',
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
      'NetworkPolicy',
    ]) {
      assert.ok(kinds.has(kind), `nothing of kind ${kind} to dry-run`);
    }
    const result = kubectl(['apply', '--dry-run=server', '-o', 'name', '-f', '-'], asList(rest));
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim().split('\n').length, rest.length, result.stdout);
  });

  it('rejects, by the same dry run, a webhook configuration the API server finds invalid', () => {
    const webhookConfig = rendered.find((o) => o.kind === 'ValidatingWebhookConfiguration');
    assert.ok(webhookConfig);
    const broken = JSON.parse(
      JSON.stringify(webhookConfig).replace('"sideEffects":"None"', '"sideEffects":"Unknown"'),
    ) as KubeObject;
    assert.notDeepEqual(broken, webhookConfig);
    const result = kubectl(['apply', '--dry-run=server', '-f', '-'], asList([broken]));
    assert.notEqual(result.status, 0, `${objectKey(broken)} with sideEffects Unknown was accepted`);
    assert.match(result.stderr, /sideEffects/);
  });

  it('rejects, by the same dry run, a Deployment with a misspelt field', () => {
    const deployment = rendered.find((o) => o.kind === 'Deployment');
    assert.ok(deployment);
    const broken = JSON.parse(
      JSON.stringify(deployment).replace('"readOnlyRootFilesystem"', '"readOnlyRootFileSystem"'),
    ) as KubeObject;
    assert.notDeepEqual(broken, deployment);
    const result = kubectl(['apply', '--dry-run=server', '-f', '-'], asList([broken]));
    assert.notEqual(result.status, 0, 'a Deployment with readOnlyRootFileSystem was accepted');
    assert.match(result.stderr, /readOnlyRootFileSystem/);
  });

  it('lets a scraper bound to nudger-metrics-reader get /metrics, and no other path or verb', () => {
    const scraper = 'system:serviceaccount:monitoring:prometheus-k8s';
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'prometheus-nudger-metrics' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'nudger-metrics-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: 'monitoring' }],
    };
    const bound = kubectl(['apply', '-f', '-'], asList([binding]));
    assert.equal(bound.status, 0, bound.stderr);
    const review = (user: string, path: string, verb: string) => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user, groups: ['system:authenticated'], nonResourceAttributes: { path, verb } },
    });
    const questions = [
      review(scraper, '/metrics', 'get'),
      review(scraper, '/metrics', 'post'),
      review(scraper, '/debug/pprof/', 'get'),
      review('system:serviceaccount:tenant-a:default', '/metrics', 'get'),
    ];
    const result = kubectl(['create', '-o', 'jsonpath={.status.allowed}{"\\n"}', '-f', '-'], asList(questions));
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(result.stdout.trim().split('\n'), ['true', 'false', 'false', 'false']);
  });

  it("authorizes the manager's ServiceAccount for exactly what it needs", () => {
    const reviews = ACCESS_EXPECTATIONS.map(([verb, target, namespace, , name]) =>
      accessReview(verb, target, namespace, name),
    );
    // One line per review, in input order (kubectl prints each created object on its own).
    const result = kubectl(['create', '-o', 'jsonpath={.status.allowed}{"\\n"}', '-f', '-'], asList(reviews));
    assert.equal(result.status, 0, result.stderr);
    const answers = result.stdout.trim().split('\n');
    assert.equal(answers.length, ACCESS_EXPECTATIONS.length, result.stdout);
    const wrong = ACCESS_EXPECTATIONS.flatMap(([verb, target, namespace, expected, name], i) => {
      assert.ok(
        answers[i] === 'true' || answers[i] === 'false',
        `review ${String(i)} answered '${String(answers[i])}'`,
      );
      return (answers[i] === 'true') === expected
        ? []
        : [`${verb} ${target} ${name ?? ''} in '${namespace}': expected allowed=${String(expected)}`];
    });
    assert.deepEqual(wrong, []);
  });
});
