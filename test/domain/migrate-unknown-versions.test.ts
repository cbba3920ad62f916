// Regression tests for issue 8: a Component or NudgeConfig of nudger's groups in an apiVersion
// nudger does not read is never skipped by the migration in silence. In a namespace the migration
// rewrites it refuses (such an object may hold edges it cannot see, and a second NudgeConfig would
// clash with it); elsewhere it says so in a note. Before the fix, a `konflux-ci.dev/v1` nudge-config
// with entries was passed over and migrate wrote a second NudgeConfig for the namespace, notes: [].
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MigrationError, UnsafeMigrationError, planMigration, type SourceFile } from '../../src/domain/migrate.ts';
import { componentText, nudgeConfigText } from '../support/manifest-text.ts';

const component = (namespace: string, name: string, nudges: readonly string[] = [], apiVersion?: string): string =>
  componentText({ namespace, name, nudges, ...(apiVersion === undefined ? {} : { apiVersion }) });

/** A NudgeConfig of a future version, holding an edge the migration cannot read. */
const futureNudgeConfig = (namespace: string): string =>
  nudgeConfigText({
    namespace,
    apiVersion: 'konflux-ci.dev/v1',
    entries: [['payments-worker', 'payments-bundle']],
    comment: 'written by a newer integration-service',
  });

const PAYMENTS: SourceFile[] = [
  { path: 'payments/api.yaml', text: component('payments', 'payments-api', ['payments-bundle']) },
  { path: 'payments/worker.yaml', text: component('payments', 'payments-worker') },
  { path: 'payments/bundle.yaml', text: component('payments', 'payments-bundle') },
];

function unsafe(files: readonly SourceFile[]): UnsafeMigrationError {
  try {
    planMigration(files);
  } catch (error) {
    assert.ok(error instanceof UnsafeMigrationError, `expected UnsafeMigrationError, got ${String(error)}`);
    return error;
  }
  assert.fail('the migration was not refused');
}

describe('objects of a version nudger does not read, in a namespace the migration rewrites', () => {
  it('refuse a konflux-ci.dev/v1 NudgeConfig (no second NudgeConfig), naming file, line, object and apiVersion', () => {
    const error = unsafe([...PAYMENTS, { path: 'payments/nudges.yaml', text: futureNudgeConfig('payments') }]);
    assert.deepEqual(
      error.problems.map(({ file, line }) => ({ file, line })),
      [{ file: 'payments/nudges.yaml', line: 2 }],
    );
    const message = error.problems[0]?.message ?? '';
    assert.match(message, /^NudgeConfig payments\/nudge-config has apiVersion "konflux-ci\.dev\/v1", not a version/);
    assert.match(
      message,
      /it reads konflux-ci\.dev\/v1alpha1, konflux-ci\.dev\/v1beta2, appstudio\.redhat\.com\/v1beta2/,
    );
    assert.match(message, /in namespace payments, which this migration rewrites/);
    assert.match(message, /convert it to konflux-ci\.dev\/v1alpha1/);
  });

  it('refuse a Component of upstream’s new model (konflux-ci.dev/v1alpha1) and of another appstudio version', () => {
    const error = unsafe([
      ...PAYMENTS,
      { path: 'payments/cli.yaml', text: component('payments', 'payments-cli', [], 'konflux-ci.dev/v1alpha1') },
      {
        path: 'payments/old.yaml',
        text: component('payments', 'payments-old', ['payments-bundle'], 'appstudio.redhat.com/v1beta1'),
      },
    ]);
    assert.deepEqual(
      error.problems.map(({ file, line, message }) => [file, line, message.split(',')[0]]),
      [
        ['payments/cli.yaml', 1, 'Component payments/payments-cli has apiVersion "konflux-ci.dev/v1alpha1"'],
        ['payments/old.yaml', 1, 'Component payments/payments-old has apiVersion "appstudio.redhat.com/v1beta1"'],
      ],
    );
    assert.match(error.problems[1]?.message ?? '', /convert it to appstudio\.redhat\.com\/v1alpha1/);
  });

  it('refuse an object whose namespace a kustomization gives it', () => {
    const error = unsafe([
      { path: 'tenant/kustomization.yaml', text: 'namespace: payments\nresources:\n  - api.yaml\n  - nudges.yaml\n' },
      { path: 'tenant/api.yaml', text: component('', 'payments-api', ['payments-bundle']) },
      { path: 'tenant/nudges.yaml', text: futureNudgeConfig('somewhere-else') },
      { path: 'payments/bundle.yaml', text: component('payments', 'payments-bundle') },
    ]);
    assert.deepEqual(
      error.problems.map(({ file }) => file),
      ['tenant/nudges.yaml'],
    );
    assert.match(error.problems[0]?.message ?? '', /in namespace payments, which this migration rewrites/);
  });

  it('refuse one inside a List, asking for the List to be split', () => {
    const list = [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '  - apiVersion: konflux-ci.dev/v1alpha1',
      '    kind: Component',
      '    metadata:',
      '      name: payments-cli',
      '      namespace: payments',
      '',
    ].join('\n');
    assert.throws(
      () => planMigration([...PAYMENTS, { path: 'payments/list.yaml', text: list }]),
      (error: unknown) =>
        error instanceof MigrationError &&
        error.file === 'payments/list.yaml' &&
        error.line === 4 &&
        error.reason.includes(
          'items.0 is a Component of apiVersion "konflux-ci.dev/v1alpha1" inside a List; split the List',
        ),
    );
  });
});

describe('objects of a version nudger does not read, elsewhere', () => {
  it('are left as they are, with a note naming file, line, object and apiVersion', () => {
    const result = planMigration([...PAYMENTS, { path: 'search/nudges.yaml', text: futureNudgeConfig('search') }]);
    assert.deepEqual(result.nudgeConfigs, [{ namespace: 'payments', file: 'payments/nudge-config.yaml', edges: 1 }]);
    assert.equal(
      result.changes.some((change) => change.path.startsWith('search/')),
      false,
    );
    assert.deepEqual(result.notes, [
      'search/nudges.yaml:2: NudgeConfig search/nudge-config has apiVersion "konflux-ci.dev/v1", not a version nudger ' +
        'reads (it reads konflux-ci.dev/v1alpha1, konflux-ci.dev/v1beta2, appstudio.redhat.com/v1beta2); left as it ' +
        'is (nothing in namespace search is migrated, so no edge is lost)',
    ]);
  });

  it('are noted also when nothing at all is migrated', () => {
    const result = planMigration([
      { path: 'payments/bundle.yaml', text: component('payments', 'payments-bundle') },
      { path: 'payments/cli.yaml', text: component('payments', 'payments-cli', [], 'konflux-ci.dev/v1alpha1') },
    ]);
    assert.deepEqual(result.changes, []);
    assert.match(result.notes[0] ?? '', /^payments\/cli\.yaml:1: Component payments\/payments-cli has apiVersion/);
  });

  it('leave ChangeGroups (no edges, never read by the migration) and other APIs’ kinds alone', () => {
    const result = planMigration([
      ...PAYMENTS,
      {
        path: 'payments/changegroup.yaml',
        text: 'apiVersion: appstudio.redhat.com/v1beta1\nkind: ChangeGroup\nmetadata:\n  name: release\n  namespace: payments\n',
      },
      {
        path: 'kustomize/component.yaml',
        text: 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: []\n',
      },
    ]);
    assert.deepEqual(result.notes, []);
    assert.equal(result.edges, 1);
  });
});
