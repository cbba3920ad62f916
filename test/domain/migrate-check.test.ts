// Regression tests for issue 8 (part 1 item 2, the migrate half of item 3, part 2 item 3): the
// migration never writes a NudgeConfig nudger's own validation rejects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MigrationRefusedError,
  commitOrder,
  planMigration,
  type MigrationOptions,
  type MigrationResult,
  type SourceFile,
} from '../../src/domain/migrate.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';
import { validateManifestSet } from '../../src/domain/validate.ts';

const component = (name: string, nudges: readonly string[] = [], namespace = 'billing-tenant'): string =>
  [
    'apiVersion: appstudio.redhat.com/v1alpha1',
    'kind: Component',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${namespace}`,
    'spec:',
    `  componentName: ${name}`,
    '  application: billing',
    `  containerImage: quay.io/acme/${name}`,
    ...(nudges.length === 0 ? [] : ['  build-nudges-ref:', ...nudges.map((to) => `    - ${to}`)]),
    '',
  ].join('\n');

/** A billing tenant whose operator still names `billing-api-v1`, renamed to `billing-api` long ago. */
const BILLING: SourceFile[] = [
  {
    path: 'tenants/billing/kustomization.yaml',
    text: 'resources:\n  - billing-api.yaml\n  - billing-operator.yaml\n  - billing-bundle.yaml\n',
  },
  { path: 'tenants/billing/billing-api.yaml', text: component('billing-api', ['billing-bundle']) },
  {
    path: 'tenants/billing/billing-operator.yaml',
    text: component('billing-operator', ['billing-bundle', 'billing-api-v1']),
  },
  { path: 'tenants/billing/billing-bundle.yaml', text: component('billing-bundle') },
];

function refusal(files: readonly SourceFile[], options?: MigrationOptions): MigrationRefusedError {
  try {
    planMigration(files, options);
  } catch (error) {
    assert.ok(error instanceof MigrationRefusedError, `expected MigrationRefusedError, got ${String(error)}`);
    return error;
  }
  assert.fail('the migration was not refused');
}

function after(files: readonly SourceFile[], result: MigrationResult): SourceFile[] {
  const byPath = new Map(files.map((file) => [file.path, file.text]));
  for (const change of result.changes) byPath.set(change.path, change.after);
  return [...byPath].map(([path, text]) => ({ path, text }));
}

describe('migration refuses what nudger would reject', () => {
  it('refuses a build-nudges-ref naming a renamed component, at its file and line, writing nothing', () => {
    const error = refusal(BILLING);
    assert.deepEqual(
      error.problems.map(({ file, line }) => ({ file, line })),
      [{ file: 'tenants/billing/billing-operator.yaml', line: 12 }],
    );
    const [problem] = error.problems;
    assert.match(problem?.message ?? '', /^unknown-component: Component billing-tenant\/billing-operator/);
    assert.match(problem?.message ?? '', /spec\.build-nudges-ref\[1\]: billing-operator -> billing-api-v1/);
    assert.match(problem?.message ?? '', /"billing-api-v1" does not exist in namespace billing-tenant/);
    assert.match(error.advice, /--drop-invalid/);
  });

  it('with dropInvalid, drops and lists that edge only; what it writes validates', () => {
    const result = planMigration(BILLING, { dropInvalid: true });
    assert.deepEqual(result.dropped, [
      {
        rule: 'unknown-component',
        namespace: 'billing-tenant',
        from: 'billing-operator',
        to: 'billing-api-v1',
        reason: 'to: component "billing-api-v1" does not exist in namespace billing-tenant',
        sources: [
          {
            file: 'tenants/billing/billing-operator.yaml',
            line: 12,
            object: 'Component billing-tenant/billing-operator',
            field: 'spec.build-nudges-ref[1]',
          },
        ],
      },
    ]);
    assert.equal(result.edges, 2);
    const written = after(BILLING, result);
    const validation = validateManifestSet(parseManifestSet(written));
    assert.deepEqual(
      validation.findings.filter((finding) => finding.severity === 'error'),
      [],
    );
    const config = written.find((file) => file.path === 'tenants/billing/nudge-config.yaml')?.text ?? '';
    assert.doesNotMatch(config, /billing-api-v1/);
    assert.match(config, /from: billing-operator\n +to: billing-bundle/);
    assert.deepEqual(planMigration(written).changes, [], 'the rerun has nothing left to do');
  });

  it('refuses self-nudges and invalid names, and drops them with dropInvalid', () => {
    const files = [
      { path: 'a.yaml', text: component('ledger', ['ledger', 'Ledger_UI', 'ledger-ui']) },
      { path: 'b.yaml', text: component('ledger-ui') },
    ];
    const error = refusal(files);
    assert.deepEqual(
      error.offences.map((offence) => offence.rule),
      ['self-nudge', 'invalid-name'],
    );
    const result = planMigration(files, { dropInvalid: true });
    assert.deepEqual(
      result.dropped.map((edge) => `${edge.from}->${edge.to}`),
      ['ledger->ledger', 'ledger->Ledger_UI'],
    );
    assert.deepEqual(result.nudgeConfigs, [{ namespace: 'billing-tenant', file: 'nudge-config.yaml', edges: 1 }]);
  });

  it('refuses a cycle even with dropInvalid, naming every edge of it with file and line', () => {
    const files = [
      { path: 'api.yaml', text: component('api', ['worker']) },
      { path: 'worker.yaml', text: component('worker', ['scheduler']) },
      { path: 'scheduler.yaml', text: component('scheduler', ['api', 'ghost']) },
    ];
    for (const options of [{}, { dropInvalid: true }]) {
      const error = refusal(files, options);
      const cycle = error.problems.find((problem) => problem.message.startsWith('cycle:'));
      assert.ok(cycle !== undefined, error.message);
      for (const at of ['api.yaml:11', 'worker.yaml:11', 'scheduler.yaml:11'])
        assert.ok(cycle.message.includes(at), at);
      assert.equal(error.offences.find((offence) => offence.rule === 'cycle')?.droppable, false);
      // Every edge is named as one the user may remove.
      assert.equal(
        cycle.message,
        'cycle: the edges form a cycle api -> worker -> scheduler -> api; each is a real dependency, so nudger ' +
          'never picks one to drop (not even with --drop-invalid). Remove (or reverse) any one of its 3 edges by ' +
          'hand to break it: ' +
          'api -> worker at api.yaml:11: Component billing-tenant/api spec.build-nudges-ref[0], ' +
          'or worker -> scheduler at worker.yaml:11: Component billing-tenant/worker spec.build-nudges-ref[0], ' +
          'or scheduler -> api at scheduler.yaml:11: Component billing-tenant/scheduler spec.build-nudges-ref[0]',
      );
    }
    const advice = refusal(files, { dropInvalid: true }).advice;
    assert.match(advice, /^1 of them cannot be dropped: --drop-invalid drops only unknown or invalid names/);
    assert.match(advice, /remove one edge of each cycle \(any edge named breaks it\), then rerun$/);
  });

  it('with dropInvalid, removes a dangling entry already in the target NudgeConfig, keeping its comments', () => {
    const existing = [
      'apiVersion: konflux-ci.dev/v1alpha1',
      'kind: NudgeConfig',
      'metadata:',
      '  name: nudge-config',
      '  namespace: billing-tenant',
      'spec:',
      '  nudges:',
      '    # the bundle follows the API',
      '    - from: billing-api',
      '      to: billing-bundle',
      '    - from: billing-api',
      '      to: billing-gateway',
      '',
    ].join('\n');
    const files = [
      { path: 'nc.yaml', text: existing },
      { path: 'a.yaml', text: component('billing-api', ['billing-bundle']) },
      { path: 'o.yaml', text: component('billing-operator', ['billing-bundle']) },
      { path: 'b.yaml', text: component('billing-bundle') },
    ];
    assert.equal(refusal(files).problems[0]?.line, 11);
    const result = planMigration(files, { dropInvalid: true });
    assert.deepEqual(
      result.dropped.map((edge) => [edge.to, edge.sources[0]?.field]),
      [['billing-gateway', 'spec.nudges[1]']],
    );
    assert.equal(
      result.changes.find((change) => change.path === 'nc.yaml')?.after,
      [
        ...existing.split('\n').slice(0, 10),
        '    - from: billing-operator',
        '      to: billing-bundle',
        '      mode: immediate',
        '',
      ].join('\n'),
    );
  });

  for (const apiVersion of ['appstudio.redhat.com/v1beta2', 'konflux-ci.dev/v1beta2']) {
    it(`refuses a ${apiVersion} validated entry without gatingGroup, naming it and both fixes`, () => {
      const upstream = [
        `apiVersion: ${apiVersion}`,
        'kind: NudgeConfig',
        'metadata:',
        '  name: nudge-config',
        '  namespace: billing-tenant',
        'spec:',
        '  nudges:',
        '    - from: billing-api',
        '      to: billing-bundle',
        '      mode: validated',
        '',
      ].join('\n');
      const files = [
        { path: 'nudges.yaml', text: upstream },
        { path: 'a.yaml', text: component('billing-api') },
        { path: 'b.yaml', text: component('billing-bundle') },
      ];
      for (const options of [{}, { dropInvalid: true }]) {
        const error = refusal(files, options);
        assert.deepEqual(
          error.problems.map(({ file, line }) => ({ file, line })),
          [{ file: 'nudges.yaml', line: 8 }],
        );
        const message = error.problems[0]?.message ?? '';
        assert.match(message, /^missing-gating-group: NudgeConfig billing-tenant\/nudge-config spec\.nudges\[0\]/);
        assert.match(message, /billing-api -> billing-bundle/);
        assert.match(message, /add gatingGroup/);
        assert.match(message, /mode: immediate/);
      }
      const fixed = upstream.replace('mode: validated', 'mode: validated\n      gatingGroup: billing-release');
      const result = planMigration([{ path: 'nudges.yaml', text: fixed }, ...files.slice(1)]);
      assert.match(result.changes[0]?.after ?? '', /^apiVersion: konflux-ci\.dev\/v1alpha1$/m);
    });
  }

  it('refuses a NudgeConfig over 5000 entries even with dropInvalid (20,100 build-nudges-ref edges)', () => {
    // 201 Components, each nudging every later one: a DAG of 201 * 200 / 2 = 20,100 valid edges.
    const names = Array.from({ length: 201 }, (_, i) => `svc-${String(i).padStart(3, '0')}`);
    const text = names.map((name, i) => component(name, names.slice(i + 1), 'big-tenant')).join('---\n');
    for (const options of [{}, { dropInvalid: true }]) {
      const error = refusal([{ path: 'components.yaml', text }], options);
      assert.deepEqual(
        error.offences.map((offence) => offence.rule),
        ['too-many-edges'],
      );
      assert.match(error.problems[0]?.message ?? '', /20100 entries exceed the limit of 5000/);
    }
  });

  it('does not judge existence in a namespace the input holds no Component of, and says so', () => {
    const upstream =
      'apiVersion: appstudio.redhat.com/v1beta2\nkind: NudgeConfig\nmetadata:\n  name: nudge-config\n  namespace: search\nspec:\n  nudges:\n    - from: indexer\n      to: search-bundle\n';
    const result = planMigration([{ path: 'nudges.yaml', text: upstream }]);
    assert.equal(result.changes.length, 1);
    assert.match(result.notes[0] ?? '', /no Component of namespace search/);
  });
});

describe('commitOrder', () => {
  it('replaces kustomizations, then files that gain edges, then files that lose them', () => {
    const result = planMigration(BILLING.filter((file) => !file.path.endsWith('billing-operator.yaml')));
    assert.deepEqual(
      commitOrder(result.changes).map((step) => [step.path, step.pass]),
      [
        ['tenants/billing/kustomization.yaml', 0],
        ['tenants/billing/nudge-config.yaml', 1],
        ['tenants/billing/billing-api.yaml', 2],
      ],
    );
  });
});

describe('a rerun after a crash between renames', () => {
  it('finishes a half-written migration without duplicate entries', () => {
    const first = planMigration(BILLING, { dropInvalid: true });
    // Killed after the kustomization and the new NudgeConfig were renamed into place, before any
    // Component: every edge is now declared twice.
    const half = BILLING.map((file) => {
      const change = first.changes.find((c) => c.path === file.path && c.commitPhase < 3);
      return change === undefined ? file : { path: file.path, text: change.after };
    });
    const config = first.changes.find((c) => c.path === 'tenants/billing/nudge-config.yaml');
    assert.ok(config !== undefined);
    half.push({ path: config.path, text: config.after });
    const rerun = planMigration(half, { dropInvalid: true });
    assert.deepEqual(
      rerun.changes.map((change) => change.path),
      ['tenants/billing/billing-api.yaml', 'tenants/billing/billing-operator.yaml'],
      'only the Components are left to rewrite; the NudgeConfig gains no duplicate',
    );
    assert.deepEqual(rerun.nudgeConfigs, [
      { namespace: 'billing-tenant', file: 'tenants/billing/nudge-config.yaml', edges: 2 },
    ]);
    const end = after(half, rerun);
    const uninterrupted = after(BILLING, first);
    assert.deepEqual(
      end.sort((a, b) => a.path.localeCompare(b.path)),
      uninterrupted.sort((a, b) => a.path.localeCompare(b.path)),
    );
  });
});

describe('dropping entries already in a NudgeConfig', () => {
  const files = (config: SourceFile): SourceFile[] => [
    config,
    { path: 'a.yaml', text: component('billing-api', ['billing-bundle']) },
    { path: 'b.yaml', text: component('billing-bundle') },
  ];

  it('leaves an empty list, not a null, when every entry goes (YAML), and appends after it', () => {
    const text =
      'apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata:\n  name: nudge-config\n  namespace: billing-tenant\nspec:\n  nudges:\n    - from: billing-api\n      to: billing-api-v1\n';
    const only = [
      { path: 'nc.yaml', text },
      { path: 'b.yaml', text: component('billing-bundle') },
    ];
    const emptied = planMigration(
      [
        ...only,
        { path: 'a.yaml', text: component('billing-api', []) },
        { path: 'c.yaml', text: component('x', ['billing-bundle']) },
      ],
      { dropInvalid: true },
    );
    const written = emptied.changes.find((change) => change.path === 'nc.yaml')?.after ?? '';
    assert.doesNotMatch(written, /billing-api-v1/);
    assert.match(written, /- from: x\n\s+to: billing-bundle/);
    const result = planMigration(files({ path: 'nc.yaml', text }), { dropInvalid: true });
    const after = result.changes.find((change) => change.path === 'nc.yaml')?.after ?? '';
    assert.doesNotMatch(after, /billing-api-v1/);
    assert.match(after, /- from: billing-api\n\s+to: billing-bundle\n\s+mode: immediate/);
    assert.deepEqual(
      validateManifestSet(
        parseManifestSet([{ path: 'nc.yaml', text: after }, ...files({ path: 'x', text: '' }).slice(1)]),
      ).findings.filter((finding) => finding.severity === 'error'),
      [],
    );
  });

  it('writes nudges: [] when the last entry goes and nothing is appended', () => {
    const text =
      'apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata:\n  name: nudge-config\n  namespace: billing-tenant\nspec:\n  nudges:\n    - from: billing-api\n      to: billing-api-v1\n';
    const emptyList = component('billing-api').replace(
      '  application: billing\n',
      '  application: billing\n  build-nudges-ref: []\n',
    );
    const result = planMigration(
      [
        { path: 'nc.yaml', text },
        { path: 'a.yaml', text: emptyList },
      ],
      { dropInvalid: true },
    );
    assert.match(
      result.changes.find((change) => change.path === 'nc.yaml')?.after ?? '',
      /^spec:\n {2}nudges: \[\]\n$/m,
    );
  });

  it('removes the entry from a JSON NudgeConfig', () => {
    const json = {
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace: 'billing-tenant' },
      spec: {
        nudges: [
          { from: 'billing-api', to: 'billing-api-v1' },
          { from: 'billing-api', to: 'billing-bundle' },
        ],
      },
    };
    const result = planMigration(files({ path: 'nc.json', text: `${JSON.stringify(json, null, 2)}\n` }), {
      dropInvalid: true,
    });
    const after = JSON.parse(result.changes.find((change) => change.path === 'nc.json')?.after ?? '{}') as typeof json;
    assert.deepEqual(after.spec.nudges, [{ from: 'billing-api', to: 'billing-bundle' }]);
  });
});
