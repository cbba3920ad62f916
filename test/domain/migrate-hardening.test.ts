// migrate reads exactly the files validate reads (issue 8, defect D): it used to call the `yaml`
// library directly and failed on files kubectl and validate read (controller-gen CRDs, bare-CR line
// ends) or reported a stack overflow for runaway nesting. Edits of a file read through a repair
// (LF for CRs, re-indented quoted continuations) keep every other byte as written.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Document, Scalar, stringify } from 'yaml';
import { MigrationError, planMigration, renderNewNudgeConfig, type SourceFile } from '../../src/domain/migrate.ts';
import type { MigrationEntry } from '../../src/domain/migrate-model.ts';
import { yamlNameText } from '../../src/domain/migrate-yaml.ts';
import { ManifestSyntaxError } from '../../src/manifest/errors.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';
import { componentText } from '../support/manifest-text.ts';

const fixture = (name: string): SourceFile => ({
  path: `hardening/${name}`,
  text: readFileSync(new URL(`../fixtures/hardening/${name}`, import.meta.url), 'utf8'),
});

/** The error `run` throws, which must be a `type`. */
function thrown<E extends Error>(run: () => unknown, type: abstract new (...args: never[]) => E): E {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected a ${type.name}`);
}

const migrationError = (files: readonly SourceFile[]): MigrationError =>
  thrown(() => planMigration(files), MigrationError);
const validateError = (files: readonly SourceFile[]): ManifestSyntaxError =>
  thrown(() => parseManifestSet(files), ManifestSyntaxError);

const change = (result: ReturnType<typeof planMigration>, path: string): string | undefined =>
  result.changes.find((c) => c.path === path)?.after;

describe('migrate reads the files validate reads', () => {
  it("reads a controller-gen CRD whose names say kind: Component (Konflux's own), and leaves it as it is", () => {
    const crd = fixture('component-crd.yaml');
    const components = fixture('tenant-components.yaml');
    assert.deepEqual(parseManifestSet([crd, components]).issues, []);
    const result = planMigration([crd, components]);
    assert.deepEqual(result.componentsUpdated, ['widgets-tenant/widget-controller']);
    assert.deepEqual(result.notes, []);
    assert.equal(change(result, crd.path), undefined);
  });

  it('reads a CRD that holds no kind nudger reads instead of skipping it with a note', () => {
    const result = planMigration([fixture('widgetpool-crd.yaml'), fixture('tenant-components.yaml')]);
    assert.deepEqual(result.notes, []);
    assert.deepEqual(result.componentsUpdated, ['widgets-tenant/widget-controller']);
  });

  it('migrates a file with bare-CR (old Mac) line ends, and it stays CR-only', () => {
    const lf = fixture('tenant-components.yaml');
    const expected = planMigration([lf]);
    for (const eol of ['\r', '\r\n']) {
      const text = lf.text.replaceAll('\n', eol);
      const result = planMigration([{ path: lf.path, text }]);
      assert.equal(change(result, lf.path), change(expected, lf.path)?.replaceAll('\n', eol), JSON.stringify(eol));
      assert.deepEqual(result.componentsUpdated, expected.componentsUpdated);
    }
  });

  it('writes the lines it adds with the line ends of the file it adds them to', () => {
    const kustomization = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - a.yaml\n';
    const nudgeConfig = [
      'apiVersion: konflux-ci.dev/v1alpha1',
      'kind: NudgeConfig',
      'metadata:',
      '  name: nudge-config',
      '  namespace: ns',
      'spec:',
      '  nudges:',
      '    - from: b',
      '      to: c',
      '',
    ].join('\n');
    const a = componentText({ namespace: 'ns', name: 'a', nudges: ['b'] });
    const rest = ['b', 'c'].map((name) => componentText({ namespace: 'ns', name })).join('---\n');
    for (const eol of ['\r', '\r\n']) {
      const crlf = (text: string): string => text.replaceAll('\n', eol);
      // A NudgeConfig that gains an entry, and a kustomization that lists a new file.
      const withTarget = planMigration([
        { path: 'a.yaml', text: crlf(a) },
        { path: 'rest.yaml', text: rest },
        { path: 'nudge-config.yaml', text: crlf(nudgeConfig) },
      ]);
      const grown = change(withTarget, 'nudge-config.yaml');
      assert.equal(grown, crlf(`${nudgeConfig}    - from: a\n      to: b\n      mode: immediate\n`));
      const listed = planMigration([
        { path: 'a.yaml', text: a },
        { path: 'rest.yaml', text: rest },
        { path: 'kustomization.yaml', text: crlf(kustomization) },
      ]);
      assert.equal(change(listed, 'kustomization.yaml'), crlf(`${kustomization}  - nudge-config.yaml\n`));
    }
  });

  it('edits a document it read through the quoted-continuation repair, keeping its text as written', () => {
    const text = [
      'apiVersion: appstudio.redhat.com/v1alpha1',
      'kind: Component',
      'metadata:',
      '  name: widget-controller',
      '  namespace: widgets-tenant',
      '  annotations:',
      "    widgets.example.com/notes: 'Rebuilt nightly; nudges the bundle once the image",
      "    is pushed.'",
      'spec:',
      '  componentName: widget-controller',
      '  build-nudges-ref:',
      '    - widget-bundle',
      '  containerImage: quay.io/widgets/widget-controller',
      '',
    ].join('\n');
    const bundle = componentText({ namespace: 'widgets-tenant', name: 'widget-bundle' });
    const result = planMigration([
      { path: 'controller.yaml', text },
      { path: 'bundle.yaml', text: bundle },
    ]);
    assert.equal(change(result, 'controller.yaml'), text.replace('  build-nudges-ref:\n    - widget-bundle\n', ''));
  });
});

describe('rendering a file of many Components', () => {
  it('checks a prepared removal by reading the file back, and refuses one that does not read as planned', () => {
    // The explicit list hides one merged in under it: removing the explicit one would revive the
    // merged one. The prepared edit is taken on trust only until the file is read back whole.
    const text = [
      'apiVersion: appstudio.redhat.com/v1alpha1',
      'kind: Component',
      'metadata:',
      '  name: a',
      '  namespace: ns',
      'spec:',
      '  <<: {build-nudges-ref: [c]}',
      '  build-nudges-ref: [b]',
      '',
    ].join('\n');
    const peers = ['b', 'c'].map((name) => componentText({ namespace: 'ns', name })).join('---\n');
    const error = migrationError([
      { path: 'a.yaml', text },
      { path: 'peers.yaml', text: peers },
    ]);
    assert.equal(error.file, 'a.yaml');
    assert.match(error.reason, /merge key/);
  });

  it('removes build-nudges-ref from each of many documents, keeping every other byte', () => {
    const names = Array.from({ length: 200 }, (_, i) => `c${String(i).padStart(3, '0')}`);
    const docs = names.map((name, i) =>
      componentText({ namespace: 'ns', name, nudges: i + 1 < names.length ? [names[i + 1] ?? ''] : [] }),
    );
    const text = `# tenant ns\n${docs.join('---\n')}`;
    const result = planMigration([{ path: 'all.yaml', text }]);
    assert.equal(result.componentsUpdated.length, names.length - 1);
    const expected = text.replace(/ {2}build-nudges-ref:\n {4}- c\d+\n/g, '');
    assert.equal(change(result, 'all.yaml'), expected);
  });
});

describe('migrate refuses what validate refuses, with the same reason', () => {
  const depth = 10_000;
  const inputs: [string, string][] = [
    ['flow sequences', `kind: Component\nspec: ${'['.repeat(depth)}${']'.repeat(depth)}\n`],
    ['flow mappings', `kind: Component\nspec: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}\n`],
    ['compact block sequences', `kind: Component\nspec:\n  ${'- '.repeat(depth)}x\n`],
    ['a collection as a mapping key', 'kind: Component\nspec:\n  ? [a, b]\n  : c\n'],
    ['an unknown alias', 'kind: Component\nspec: *nowhere\n'],
  ];
  /** migrate refuses `text` as validate does: same file, line and reason. */
  function assertSameRefusal(path: string, text: string, format: 'YAML' | 'JSON'): void {
    const files = [{ path, text }];
    const validate = validateError(files);
    const migrate = migrationError(files);
    assert.equal(migrate.file, path);
    assert.equal(migrate.line, validate.line);
    // A stack overflow's own message names how deep it got, which varies from run to run.
    const stable = (reason: string): string => reason.replace(/\(Maximum call stack size exceeded\)/, '(overflow)');
    assert.equal(stable(migrate.reason), `not valid ${format}: ${stable(validate.reason)}`);
    assert.doesNotMatch(migrate.reason, /^not valid \w+: Maximum call stack/);
  }

  for (const [name, text] of inputs) {
    it(`reports ${name} at its line, as validate does`, () => {
      assertSameRefusal('c.yaml', text, 'YAML');
    });
  }

  it('refuses JSON that JSON.parse reads but validate does not: runaway nesting, a repeated key', () => {
    const component = (spec: string): string =>
      `{"apiVersion": "appstudio.redhat.com/v1alpha1", "kind": "Component",\n "metadata": {"name": "a", "namespace": "n"},\n "spec": ${spec}}\n`;
    for (const text of [
      component(`{"x": ${'{"a": '.repeat(depth)}1${'}'.repeat(depth)}}`),
      component('{"build-nudges-ref": ["b"], "build-nudges-ref": []}'),
    ]) {
      assertSameRefusal('c.json', text, 'JSON');
    }
  });

  it('refuses a templated Component and skips a Helm template with a note, as validate does', () => {
    assert.equal(validateError([fixture('component-template.yaml')]).file, 'hardening/component-template.yaml');
    assert.equal(migrationError([fixture('component-template.yaml')]).file, 'hardening/component-template.yaml');
    const result = planMigration([fixture('helm-deployment.yaml'), fixture('tenant-components.yaml')]);
    assert.deepEqual(result.componentsUpdated, ['widgets-tenant/widget-controller']);
    assert.equal(result.notes.length, 1);
    assert.match(result.notes[0] ?? '', /^skipped hardening\/helm-deployment\.yaml:\d+: not valid YAML: /);
  });
});

describe('yamlNameText', () => {
  it('writes a name plain exactly when YAML 1.1 and 1.2 both read it back as the same string', () => {
    const slow = (name: string): string => {
      const modern = stringify(name, { lineWidth: 0 }).trimEnd();
      const legacy = stringify(name, { version: '1.1', lineWidth: 0 }).trimEnd();
      return modern === name && legacy === name ? name : JSON.stringify(name);
    };
    const words = [
      'y',
      'n',
      'yes',
      'no',
      'on',
      'off',
      'true',
      'false',
      'null',
      'Yes',
      '~',
      'e5',
      'e-5',
      'e5x',
      'a-',
      'x1',
    ];
    for (const name of words) assert.equal(yamlNameText(name), slow(name), name);
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9.+-]{1,6}$/), (name) => {
        assert.equal(yamlNameText(name), slow(name));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('renderNewNudgeConfig', () => {
  /** What the Document API prints for the new NudgeConfig: the oracle of the text renderer. */
  function viaDocument(namespace: string, entries: readonly MigrationEntry[]): string {
    const quoted = (value: string): Scalar<string> => {
      const node = new Scalar(value);
      if (yamlNameText(value) !== value) node.type = Scalar.QUOTE_DOUBLE;
      return node;
    };
    const doc = new Document({
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', ...(namespace === '' ? {} : { namespace: quoted(namespace) }) },
      spec: {
        nudges: entries.map((entry) => ({
          from: quoted(entry.from),
          to: quoted(entry.to),
          ...(entry.mode === undefined ? {} : { mode: quoted(entry.mode) }),
          ...(entry.gatingGroup === undefined ? {} : { gatingGroup: quoted(entry.gatingGroup) }),
        })),
      },
    });
    doc.commentBefore =
      " Generated by `nudger migrate` from the spec.build-nudges-ref lists of this namespace's\n" +
      ' Components. mode: immediate keeps the behaviour build-nudges-ref had (ADR 67).';
    return doc.toString({ lineWidth: 0 });
  }

  it('writes what the Document API writes, plain names or not', () => {
    const name = fc.oneof(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
      fc.constantFrom('on', 'e5', '0755', 'a b', 'yes'),
    );
    const entry = fc.record(
      { from: name, to: name, mode: fc.constantFrom('immediate', 'validated'), gatingGroup: name },
      { requiredKeys: ['from', 'to'] },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.constant(''), name),
        fc.array(entry, { minLength: 1, maxLength: 5 }),
        (namespace, entries) => {
          assert.equal(renderNewNudgeConfig(namespace, entries), viaDocument(namespace, entries));
        },
      ),
      { numRuns: 500 },
    );
  });
});
