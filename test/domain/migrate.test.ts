import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import {
  MigrationError,
  planMigration,
  type MigrationOptions,
  type MigrationResult,
  type SourceFile,
} from '../../src/domain/migrate.ts';
import {
  BUILD_NUDGES_REF,
  COMPONENT_API_VERSION as MODEL_COMPONENT_API_VERSION,
  NUDGER_NUDGE_CONFIG_API_VERSION,
  UPSTREAM_NUDGE_CONFIG_API_VERSION,
} from '../../src/domain/migrate-model.ts';
import { yamlNameText } from '../../src/domain/migrate-yaml.ts';
import { BUILD_NUDGES_REF as SCHEMA_BUILD_NUDGES_REF, COMPONENT_API_VERSION } from '../../src/schema/component.ts';
import { NUDGE_CONFIG_API_VERSION } from '../../src/schema/nudgeconfig.ts';
import { UPSTREAM_NUDGE_CONFIG_API_VERSION as SCHEMA_UPSTREAM_API_VERSION } from '../../src/schema/upstream-nudgeconfig.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'migrate');

function readTree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path).split('\\').join('/'), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

function asSources(tree: ReadonlyMap<string, string>): SourceFile[] {
  return [...tree].map(([path, text]) => ({ path, text }));
}

function applyChanges(tree: ReadonlyMap<string, string>, result: MigrationResult): Map<string, string> {
  const after = new Map(tree);
  for (const change of result.changes) after.set(change.path, change.after);
  return after;
}

/** Runs a fixture: before/ in, after/ expected byte for byte, and a second run changes nothing. */
function runFixture(name: string): MigrationResult {
  const before = readTree(join(FIXTURES, name, 'before'));
  const expected = readTree(join(FIXTURES, name, 'after'));
  const result = planMigration(asSources(before));
  const actual = applyChanges(before, result);
  assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
  for (const [path, text] of expected) assert.equal(actual.get(path), text, `${name}/after/${path}`);
  for (const change of result.changes) {
    assert.equal(change.before, before.get(change.path), `before of ${change.path}`);
    assert.notEqual(change.after, change.before, `${change.path} is listed but unchanged`);
  }
  assert.deepEqual(
    result.changes.map((c) => c.path),
    result.changes.map((c) => c.path).sort(),
    'changes are sorted by path',
  );
  const again = planMigration(asSources(actual));
  assert.deepEqual(again.changes, [], 'a second run is a no-op');
  assert.equal(again.edges, 0);
  return result;
}

function throwsMigrationError(
  files: SourceFile[],
  expected: { file: string; line?: number; reason: RegExp },
  options?: MigrationOptions,
): void {
  assert.throws(
    () => planMigration(files, options),
    (error: unknown) => {
      assert.ok(error instanceof MigrationError, `expected MigrationError, got ${String(error)}`);
      assert.equal(error.file, expected.file);
      assert.equal(error.line, expected.line);
      assert.match(error.reason, expected.reason);
      assert.ok(!error.message.includes('\n    at '), 'no stack trace in the message');
      return true;
    },
  );
}

const component = (name: string, namespace: string | undefined, specLines: string): string =>
  [
    'apiVersion: appstudio.redhat.com/v1alpha1',
    'kind: Component',
    'metadata:',
    `  name: ${name}`,
    ...(namespace === undefined ? [] : [`  namespace: ${namespace}`]),
    specLines,
    '',
  ].join('\n');

/**
 * The other Components of a namespace, in a file no migration changes: migration refuses to write
 * a NudgeConfig naming a component the input does not hold (see migrate-check.test.ts).
 */
const peers = (namespace: string, ...names: string[]): SourceFile => ({
  path: `zz-peers-${namespace}.yaml`,
  text: names.map((name) => component(JSON.stringify(name), namespace, 'spec:\n  application: x')).join('---\n'),
});

describe('planMigration: golden GitOps trees (exact text)', () => {
  it('multi-document file with comments, flow and quoted styles, an unrelated ConfigMap and a kustomization', () => {
    const result = runFixture('multi-doc');
    assert.equal(result.edges, 3);
    assert.deepEqual(result.nudgeConfigs, [{ namespace: 'shop-tenant', file: 'tenant/nudge-config.yaml', edges: 3 }]);
    assert.deepEqual(result.componentsUpdated, ['shop-tenant/frontend', 'shop-tenant/operator']);
    assert.equal(result.changes.find((c) => c.path === 'tenant/nudge-config.yaml')?.before, undefined);
  });

  it('merges into an existing NudgeConfig without duplicates and removes merged v1beta2 documents', () => {
    const result = runFixture('merge-existing');
    // frontend->bundle exists already (validated): kept as written, not duplicated.
    assert.equal(result.edges, 6);
    assert.deepEqual(result.nudgeConfigs, [{ namespace: 'shop-tenant', file: 'base/nudge-config.yaml', edges: 6 }]);
    assert.deepEqual(result.componentsUpdated, ['shop-tenant/frontend', 'shop-tenant/operator']);
  });

  it('converts a lone v1beta2 NudgeConfig in place, keeping its quoting and comments', () => {
    const result = runFixture('convert-v1beta2');
    assert.deepEqual(result.nudgeConfigs, [{ namespace: 'team-a', file: 'team-a/nudges.yaml', edges: 3 }]);
    assert.deepEqual(result.componentsUpdated, ['team-a/api', 'team-a/db-migrations', 'team-a/sdk']);
  });

  it('rewrites JSON keeping each file’s indentation and final newline, and avoids a file-name clash', () => {
    const result = runFixture('json');
    assert.deepEqual(result.nudgeConfigs, [
      { namespace: 'json-tenant', file: 'apps/nudge-config-json-tenant.yaml', edges: 3 },
    ]);
  });
});

describe('planMigration: rules', () => {
  it('puts the new NudgeConfig beside the kustomization that lists the Components, and lists it there', () => {
    const kustomization = 'namespace: shop\nresources:\n  - ./apps/a.yaml\n  - apps/b.yaml\n';
    const result = planMigration([
      { path: 'tenant/kustomization.yaml', text: kustomization },
      { path: 'tenant/apps/a.yaml', text: component('a', undefined, 'spec:\n  build-nudges-ref: [b]') },
      { path: 'tenant/apps/b.yaml', text: component('b', undefined, 'spec:\n  application: x') },
      { path: 'other/kustomization.yaml', text: 'resources:\n  - unrelated.yaml\n' },
    ]);
    assert.deepEqual(result.nudgeConfigs, [{ namespace: 'shop', file: 'tenant/nudge-config.yaml', edges: 1 }]);
    const listed = result.changes.find((c) => c.path === 'tenant/kustomization.yaml');
    assert.equal(listed?.after, `${kustomization}  - nudge-config.yaml\n`);
    assert.equal(
      result.changes.some((c) => c.path === 'other/kustomization.yaml'),
      false,
    );
  });

  it('leaves a tree without build-nudges-ref or v1beta2 NudgeConfig alone', () => {
    const result = planMigration([
      { path: 'c.yaml', text: component('a', 'ns', 'spec:\n  application: x') },
      { path: 'README.md', text: '# not: [valid yaml' },
    ]);
    assert.deepEqual(result, {
      edges: 0,
      nudgeConfigs: [],
      componentsUpdated: [],
      changes: [],
      dropped: [],
      notes: [],
    });
  });

  it('removes empty and null lists without creating a NudgeConfig, leaving spec: {} when spec empties', () => {
    const result = planMigration([
      { path: 'a.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref: []   # nothing') },
      { path: 'b.yaml', text: component('b', 'ns', 'spec:\n  build-nudges-ref: ~\n  application: x') },
    ]);
    assert.equal(result.edges, 0);
    assert.deepEqual(result.nudgeConfigs, []);
    assert.deepEqual(result.componentsUpdated, ['ns/a', 'ns/b']);
    assert.deepEqual(
      result.changes.map((c) => c.after),
      [component('a', 'ns', 'spec: {}'), component('b', 'ns', 'spec:\n  application: x')],
    );
  });

  it('names new files per namespace when they share a directory, and lists both in the kustomization', () => {
    const result = planMigration([
      { path: 'apps/one.yaml', text: component('a', 'ns1', 'spec:\n  build-nudges-ref: [b]') },
      { path: 'apps/two.yaml', text: component('c', 'ns2', 'spec:\n  build-nudges-ref: [d]') },
      { path: 'apps/kustomization.yaml', text: 'resources:\n- one.yaml\n- two.yaml\n' },
      peers('ns1', 'b'),
      peers('ns2', 'd'),
    ]);
    assert.deepEqual(result.nudgeConfigs, [
      { namespace: 'ns1', file: 'apps/nudge-config.yaml', edges: 1 },
      { namespace: 'ns2', file: 'apps/nudge-config-ns2.yaml', edges: 1 },
    ]);
    const kustomization = result.changes.find((c) => c.path === 'apps/kustomization.yaml');
    assert.equal(
      kustomization?.after,
      'resources:\n- one.yaml\n- two.yaml\n- nudge-config.yaml\n- nudge-config-ns2.yaml\n',
    );
  });

  it('falls back to numbered names when the default and the namespaced name are both taken', () => {
    const result = planMigration([
      { path: 'c.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref: [b]') },
      { path: 'nudge-config.yaml', text: 'kind: ConfigMap\n' },
      { path: 'nudge-config-ns.yaml', text: 'kind: ConfigMap\n' },
      peers('ns', 'b'),
    ]);
    assert.deepEqual(result.nudgeConfigs, [{ namespace: 'ns', file: 'nudge-config-2.yaml', edges: 1 }]);
  });

  it('honours newFileName and refuses one with a directory', () => {
    const files = [
      { path: 'x/c.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref: [b]') },
      peers('ns', 'b'),
    ];
    assert.equal(planMigration(files, { newFileName: 'nudges.yml' }).nudgeConfigs[0]?.file, 'x/nudges.yml');
    throwsMigrationError(files, { file: 'x/y.yaml', reason: /plain file name/ }, { newFileName: 'x/y.yaml' });
  });

  it('writes a new NudgeConfig with explicit mode, sorted entries, a namespace and quoted YAML 1.1 look-alikes', () => {
    const result = planMigration([
      { path: 'c.yaml', text: component('web', 'team', "spec:\n  build-nudges-ref: ['on', api, api]") },
      peers('team', 'on', 'api'),
    ]);
    const created = result.changes.find((c) => c.path === 'nudge-config.yaml');
    assert.equal(
      created?.after,
      [
        "# Generated by `nudger migrate` from the spec.build-nudges-ref lists of this namespace's",
        '# Components. mode: immediate keeps the behaviour build-nudges-ref had (ADR 67).',
        '',
        'apiVersion: konflux-ci.dev/v1alpha1',
        'kind: NudgeConfig',
        'metadata:',
        '  name: nudge-config',
        '  namespace: team',
        'spec:',
        '  nudges:',
        '    - from: web',
        '      to: api',
        '      mode: immediate',
        '    - from: web',
        '      to: "on"',
        '      mode: immediate',
        '',
      ].join('\n'),
    );
  });

  it('prefers the NudgeConfig named nudge-config when a namespace has several of ours', () => {
    const ours = (name: string) =>
      `apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata:\n  name: ${name}\n  namespace: ns\nspec:\n  nudges:\n  - from: x\n    to: z\n`;
    const result = planMigration([
      { path: 'a.yaml', text: ours('misnamed') },
      { path: 'b.yaml', text: ours('nudge-config') },
      { path: 'c.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref: [b]') },
      peers('ns', 'b', 'x', 'z'),
    ]);
    assert.deepEqual(result.nudgeConfigs, [{ namespace: 'ns', file: 'b.yaml', edges: 2 }]);
    assert.deepEqual(
      result.changes.map((c) => c.path),
      ['b.yaml', 'c.yaml'],
    );
  });

  it('grows `spec: {}` as a block and re-renders a flow-style spec, keeping its tight flow style', () => {
    const result = planMigration([
      {
        path: 'nc.yaml',
        text: 'apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata:\n  name: nudge-config\n  namespace: ns\nspec: {}\n',
      },
      { path: 'c.yaml', text: component('a', 'ns', 'spec: {application: x, build-nudges-ref: [b]}') },
      peers('ns', 'b'),
    ]);
    assert.deepEqual(
      result.changes.map((c) => c.after),
      [
        component('a', 'ns', 'spec: {application: x}'),
        'apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata:\n  name: nudge-config\n  namespace: ns\nspec:\n  nudges:\n    - from: a\n      to: b\n      mode: immediate\n',
      ],
    );
  });

  it('keeps CRLF line endings and a missing final newline when appending', () => {
    const text =
      'apiVersion: konflux-ci.dev/v1alpha1\r\nkind: NudgeConfig\r\nmetadata:\r\n  name: nudge-config\r\n  namespace: ns\r\nspec:\r\n  nudges:\r\n  - from: z\r\n    to: w';
    const result = planMigration([
      { path: 'nc.yaml', text },
      { path: 'c.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref: [b]') },
      peers('ns', 'b', 'w', 'z'),
    ]);
    assert.equal(
      result.changes.find((c) => c.path === 'nc.yaml')?.after,
      `${text}\r\n  - from: a\r\n    to: b\r\n    mode: immediate\r\n`,
    );
  });

  it('adds resources: to a kustomization that has none', () => {
    const result = planMigration([
      { path: 'c.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref: [b]') },
      { path: 'Kustomization', text: 'namePrefix: a-  # keep\n' },
      peers('ns', 'b'),
    ]);
    assert.equal(
      result.changes.find((c) => c.path === 'Kustomization')?.after,
      'namePrefix: a-  # keep\nresources:\n  - nudge-config.yaml\n',
    );
  });

  it('turns a JSON file whose only document was a merged v1beta2 NudgeConfig into an empty List', () => {
    const upstream = JSON.stringify({
      apiVersion: 'appstudio.redhat.com/v1beta2',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace: 'ns' },
      spec: { nudges: [{ from: 'p', to: 'q' }] },
    });
    const result = planMigration([
      { path: 'a.json', text: upstream },
      { path: 'b.json', text: upstream.replace('"p"', '"r"') },
    ]);
    assert.deepEqual(result.nudgeConfigs, [{ namespace: 'ns', file: 'a.json', edges: 2 }]);
    assert.deepEqual(
      result.changes.map((c) => [c.path, JSON.parse(c.after) as unknown]),
      [
        [
          'a.json',
          {
            apiVersion: 'konflux-ci.dev/v1alpha1',
            kind: 'NudgeConfig',
            metadata: { name: 'nudge-config', namespace: 'ns' },
            spec: {
              nudges: [
                { from: 'p', to: 'q' },
                { from: 'r', to: 'q' },
              ],
            },
          },
        ],
        ['b.json', { apiVersion: 'v1', kind: 'List', items: [] }],
      ],
    );
  });
});

describe('planMigration: refusals', () => {
  it('refuses a build-nudges-ref that is not a list, naming file and line', () => {
    throwsMigrationError([{ path: 'c.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref: bundle') }], {
      file: 'c.yaml',
      line: 7,
      reason: /must be a list of component names/,
    });
  });

  it('refuses a non-string item, including YAML 1.1 booleans kubectl would send as true', () => {
    throwsMigrationError(
      [{ path: 'c.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref:\n  - ok\n  - on') }],
      { file: 'c.yaml', line: 9, reason: /build-nudges-ref\[1\] must be a non-empty string/ },
    );
  });

  it('refuses YAML and JSON that do not parse, and plans nothing', () => {
    const good = { path: 'a.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref: [b]') };
    // Both may hold a Component (their kind says so): a file that cannot hold one is skipped instead.
    throwsMigrationError([good, { path: 'bad.yaml', text: 'kind: Component\nspec:\n  a: [1\n' }], {
      file: 'bad.yaml',
      line: 4,
      reason: /^not valid YAML/,
    });
    throwsMigrationError([good, { path: 'bad.json', text: '{\n  "kind": "Component",\n}\n' }], {
      file: 'bad.json',
      line: 3,
      reason: /^not valid JSON/,
    });
  });

  it('leaves a file it cannot parse and that holds nothing to migrate as it is, with a note', () => {
    const files = [
      { path: 'a.yaml', text: component('a', 'ns', 'spec:\n  build-nudges-ref: [b]') },
      { path: 'b.yaml', text: component('b', 'ns', 'spec: {}') },
      // A Helm template beside the manifests: not YAML until rendered, and no Component in it.
      {
        path: 'chart/deployment.yaml',
        text: 'kind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n    {{- include "l" . }}\n',
      },
    ];
    const result = planMigration(files);
    assert.deepEqual(result.componentsUpdated, ['ns/a']);
    assert.ok(result.changes.every((change) => change.path !== 'chart/deployment.yaml'));
    assert.deepEqual(result.notes.length, 1);
    assert.match(result.notes[0] ?? '', /^skipped chart\/deployment\.yaml:\d+: not valid YAML: .*holds no Component/);
  });

  it('refuses edges without a source name, malformed NudgeConfig entries and Components inside a List', () => {
    throwsMigrationError(
      [
        {
          path: 'c.yaml',
          text: 'apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata: {}\nspec:\n  build-nudges-ref: [b]\n',
        },
      ],
      { file: 'c.yaml', line: 3, reason: /no metadata.name/ },
    );
    throwsMigrationError(
      [
        {
          path: 'n.yaml',
          text: 'apiVersion: appstudio.redhat.com/v1beta2\nkind: NudgeConfig\nspec:\n  nudges:\n  - from: a\n',
        },
      ],
      { file: 'n.yaml', line: 5, reason: /needs string from and to/ },
    );
    throwsMigrationError(
      [
        {
          path: 'l.yaml',
          text: 'apiVersion: appstudio.redhat.com/v1alpha1\nkind: ComponentList\nitems:\n- metadata: {name: a}\n  spec:\n    build-nudges-ref: [b]\n',
        },
      ],
      { file: 'l.yaml', line: 4, reason: /items\.0 is a Component inside a List/ },
    );
  });
});

describe('planMigration: refusals of YAML it cannot rewrite safely', () => {
  const head = 'apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: a\n  namespace: ns\n';

  it('refuses to remove a list whose anchor another field aliases', () => {
    throwsMigrationError([{ path: 'c.yaml', text: `${head}spec:\n  build-nudges-ref: &refs [b]\n  other: *refs\n` }], {
      file: 'c.yaml',
      line: 1,
      reason: /would break this document/,
    });
  });

  it('refuses a build-nudges-ref that arrives through a merge key', () => {
    throwsMigrationError([{ path: 'c.yaml', text: `${head}spec:\n  <<: {build-nudges-ref: [b]}\n  x: 1\n` }], {
      file: 'c.yaml',
      line: 1,
      reason: /merge key/,
    });
  });

  it('refuses an alias without its anchor as invalid YAML, at the start of its document', () => {
    throwsMigrationError([{ path: 'c.yaml', text: `${head}spec: {}\n---\nfoo: *nowhere\n` }], {
      file: 'c.yaml',
      line: 8,
      reason: /^not valid YAML/,
    });
  });

  it('rewrites an explicit-key pair by re-rendering the document', () => {
    const result = planMigration([
      { path: 'c.yaml', text: `${head}spec:\n  ? build-nudges-ref\n  : [b]\n  x: 1\n` },
      peers('ns', 'b'),
    ]);
    assert.equal(result.changes.find((c) => c.path === 'c.yaml')?.after, `${head}spec:\n  x: 1\n`);
  });
});

describe('migration constants and names', () => {
  it('match the schemas the parser uses', () => {
    assert.equal(NUDGER_NUDGE_CONFIG_API_VERSION, NUDGE_CONFIG_API_VERSION);
    assert.equal(UPSTREAM_NUDGE_CONFIG_API_VERSION, SCHEMA_UPSTREAM_API_VERSION);
    assert.equal(BUILD_NUDGES_REF, SCHEMA_BUILD_NUDGES_REF);
    assert.equal(MODEL_COMPONENT_API_VERSION, COMPONENT_API_VERSION);
  });

  it('quotes names that YAML 1.1 or 1.2 would not read back as the same string', () => {
    for (const name of ['on', 'y', 'No', 'true', 'null', '0755', '123', '1e3', '0x1f', '~']) {
      assert.equal(yamlNameText(name), JSON.stringify(name), name);
    }
    for (const name of ['web', 'api-v2', 'a1', 'x:y']) assert.equal(yamlNameText(name), name);
  });
});
