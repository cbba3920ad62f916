// Issue 8 part 1 item 3: upstream's konflux-ci.dev/v1beta2 NudgeConfig is read like nudger's own
// (under upstream's rules), and an object of a kind nudger reads in a version it does not know is
// reported, never skipped in silence.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateManifestSet } from '../../src/domain/validate.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';
import { runCli, tempTree } from './run-cli.ts';

/** A payments tenant as integration-service users write it today: validated entries, no group yet. */
const UPSTREAM_TENANT = `apiVersion: konflux-ci.dev/v1beta2
kind: NudgeConfig
metadata:
  name: nudge-config
  namespace: payments
spec:
  nudges:
    - from: payments-api
      to: payments-bundle
      mode: validated
    - from: payments-worker
      to: payments-bundle
`;

function component(name: string, apiVersion = 'appstudio.redhat.com/v1alpha1'): string {
  return `---
apiVersion: ${apiVersion}
kind: Component
metadata:
  name: ${name}
  namespace: payments
spec:
  componentName: ${name}
  application: payments
  containerImage: quay.io/payments/${name}
`;
}

const COMPONENTS = ['payments-api', 'payments-worker', 'payments-bundle'].map((n) => component(n)).join('');

interface JsonFinding {
  readonly rule: string;
  readonly severity: string;
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
  readonly object?: string;
}

async function validateJson(files: Record<string, string>): Promise<{ code: number; findings: JsonFinding[] }> {
  const tree = tempTree(files);
  try {
    const result = await runCli(['validate', tree.root, '--output', 'json']);
    const parsed = JSON.parse(result.stdout) as { findings: JsonFinding[] };
    return {
      code: result.code,
      findings: parsed.findings.map((f) => ({ ...f, file: f.file?.slice(tree.root.length + 1) })),
    };
  } finally {
    tree.cleanup();
  }
}

describe('konflux-ci.dev/v1beta2 NudgeConfig in the CLI', () => {
  it('is read with its own flavour and its edges count', () => {
    const set = parseManifestSet([{ path: 'nudges.yaml', text: UPSTREAM_TENANT }]);
    assert.deepEqual(set.issues, []);
    const [config] = set.nudgeConfigs;
    assert.ok(config !== undefined);
    assert.equal(config.flavour, 'upstream-konflux-v1beta2');
    assert.deepEqual(
      config.entries.map((e) => [e.from, e.to, e.mode]),
      [
        ['payments-api', 'payments-bundle', 'validated'],
        ['payments-worker', 'payments-bundle', undefined],
      ],
    );
  });

  it('validates validated-without-gatingGroup as a warning, where v1alpha1 makes it an error', async () => {
    const upstream = await validateJson({ 'components.yaml': COMPONENTS, 'nudges.yaml': UPSTREAM_TENANT });
    assert.equal(upstream.code, 0);
    assert.deepEqual(
      upstream.findings.map((f) => [f.rule, f.severity, f.file, f.line]),
      [['missing-gating-group', 'warning', 'nudges.yaml', 8]],
    );
    assert.match(upstream.findings[0]?.message ?? '', /konflux-ci\.dev\/v1beta2 allows it, but nudger does not fire/);

    const ours = await validateJson({
      'components.yaml': COMPONENTS,
      'nudges.yaml': UPSTREAM_TENANT.replace('konflux-ci.dev/v1beta2', 'konflux-ci.dev/v1alpha1'),
    });
    assert.equal(ours.code, 1);
    assert.deepEqual(
      ours.findings.map((f) => [f.rule, f.severity]),
      [['missing-gating-group', 'error']],
    );
  });

  it('holds v1beta2 to upstream’s 360 entries', () => {
    const entries = (n: number) =>
      Array.from({ length: n }, (_, i) => `    - from: payments-lib-${String(i)}\n      to: payments-bundle\n`).join(
        '',
      );
    const findings = (n: number) =>
      validateManifestSet(
        parseManifestSet([{ path: 'nudges.yaml', text: UPSTREAM_TENANT.replace(/ {4}- from[\s\S]*$/, entries(n)) }]),
      ).findings.filter((f) => f.rule === 'too-many-edges');
    assert.deepEqual(findings(360), []);
    assert.match(
      findings(361)[0]?.message ?? '',
      /361 entries exceed the limit of 360 \(maxItems of konflux-ci\.dev\/v1beta2\)/,
    );
  });

  it('counts a v1alpha1 and a v1beta2 NudgeConfig of one namespace as two copies of one object', async () => {
    const ours = UPSTREAM_TENANT.replace('konflux-ci.dev/v1beta2', 'konflux-ci.dev/v1alpha1').replace(
      '      mode: validated\n',
      '',
    );
    const result = await validateJson({
      'components.yaml': COMPONENTS,
      'ours.yaml': ours,
      'upstream.yaml': UPSTREAM_TENANT,
    });
    assert.equal(result.code, 1);
    const multiple = result.findings.filter((f) => f.rule === 'multiple-nudgeconfigs');
    assert.deepEqual(
      multiple.map((f) => [f.severity, f.file]),
      [['error', 'upstream.yaml']],
    );
    assert.match(multiple[0]?.message ?? '', /konflux-ci\.dev\/v1beta2 is another version of the same object/);
  });
});

describe('objects of a kind nudger reads in a version it does not know', () => {
  it('are reported with the file, line, object and apiVersion, never skipped in silence', async () => {
    const result = await validateJson({
      'components.yaml': COMPONENTS,
      // upstream's new component model, which nudger does not read yet
      'new-model.yaml': component('payments-cli', 'konflux-ci.dev/v1alpha1'),
      'future.yaml': UPSTREAM_TENANT.replace('konflux-ci.dev/v1beta2', 'konflux-ci.dev/v1'),
      'changegroup.yaml': `apiVersion: appstudio.redhat.com/v1beta1
kind: ChangeGroup
metadata:
  name: payments-release
  namespace: payments
spec:
  nudgedComponent: payments-bundle
`,
    });
    assert.equal(result.code, 0, 'warnings only');
    const unknown = result.findings.filter((f) => f.rule === 'unknown-api-version');
    assert.deepEqual(
      unknown.map((f) => [f.severity, f.file, f.line, f.object]),
      [
        ['warning', 'changegroup.yaml', 1, 'ChangeGroup payments/payments-release'],
        ['warning', 'future.yaml', 1, 'NudgeConfig payments/nudge-config'],
        ['warning', 'new-model.yaml', 2, 'Component payments/payments-cli'],
      ],
    );
    assert.equal(
      unknown[1]?.message,
      'NudgeConfig payments/nudge-config apiVersion "konflux-ci.dev/v1": not a version nudger reads (it reads konflux-ci.dev/v1alpha1, konflux-ci.dev/v1beta2, appstudio.redhat.com/v1beta2); the object is skipped, so its nudges are neither checked nor followed',
    );
  });

  it('leave other APIs’ kinds of the same name alone (kustomize Components, core objects)', () => {
    const set = parseManifestSet([
      {
        path: 'kustomize/component.yaml',
        text: 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - nudge-config.yaml\n',
      },
      { path: 'other.yaml', text: 'apiVersion: v1\nkind: Component\nmetadata:\n  name: x\n' },
    ]);
    assert.deepEqual(set.issues, []);
  });
});
