// Real-world inputs that used to abort a whole run or crash: CRDs as controller-gen writes them,
// Helm templates beside the manifests, bare-CR line ends, runaway nesting, and yaml's own warnings.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseDocuments } from '../../src/manifest/documents.ts';
import { ManifestSyntaxError } from '../../src/manifest/errors.ts';
import { parseManifestSet, type ManifestFile } from '../../src/manifest/parse.ts';
import { parseYamlDocuments } from '../../src/manifest/yaml-source.ts';

const fixture = (name: string): ManifestFile => ({
  path: `test/fixtures/hardening/${name}`,
  text: readFileSync(new URL(`../fixtures/hardening/${name}`, import.meta.url), 'utf8'),
});

function syntaxError(files: ManifestFile[]): ManifestSyntaxError {
  try {
    parseManifestSet(files);
  } catch (error) {
    assert.ok(error instanceof ManifestSyntaxError, `expected ManifestSyntaxError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ManifestSyntaxError');
}

const COMPONENT = (name: string, refs: string[] = []): string =>
  `apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: ${name}\n  namespace: t\n` +
  (refs.length === 0 ? '' : `spec:\n  build-nudges-ref:\n${refs.map((r) => `    - ${r}\n`).join('')}`);

describe('files kubectl reads', () => {
  it("reads controller-gen's multi-line quoted descriptions as go-yaml does", () => {
    const crd = fixture('widgetpool-crd.yaml');
    const [doc] = parseDocuments(crd.path, crd.text);
    const version = (doc?.value as { spec: { versions: Record<string, unknown>[] } }).spec.versions[0];
    const columns = version?.additionalPrinterColumns as { description: string; name: string }[];
    assert.deepEqual(
      columns.map((c) => [c.name, c.description]),
      [
        [
          'Phase',
          'The phase the pool is in: Pending while widgets are warmed, Ready once the minimum is reached, Draining when it is being scaled down.',
        ],
        ['Warm', 'Widgets kept warm, counted by the controller; it can lag behind the actual number by one reconcile.'],
      ],
    );
    // Lines after the repaired scalars keep their numbers: the next key is where the file says.
    assert.deepEqual(doc?.tree.fieldLocation(['spec', 'versions', 0, 'additionalPrinterColumns', 1, 'jsonPath']), {
      file: crd.path,
      line: 73,
      column: 7,
    });
    const set = parseManifestSet([crd, fixture('tenant-components.yaml')]);
    assert.deepEqual(set.issues, []);
    assert.equal(set.components.length, 2);
  });

  it('reads bare-CR (old Mac) and CRLF line ends with the same lines as LF', () => {
    const lf = `${COMPONENT('a', ['b'])}---\n${COMPONENT('b')}`;
    const expected = parseManifestSet([{ path: 'x.yaml', text: lf }]);
    for (const eol of ['\r', '\r\n']) {
      const set = parseManifestSet([{ path: 'x.yaml', text: lf.replaceAll('\n', eol) }]);
      assert.deepEqual(set, expected, JSON.stringify(eol));
    }
    assert.deepEqual(
      expected.components.map((c) => [c.ref.name, c.location.line, c.buildNudgesRef.map((r) => r.location.line)]),
      [
        ['a', 1, [8]],
        ['b', 10, []],
      ],
    );
  });

  it('reads a file the fast reader declines part-way exactly as yaml does', () => {
    // Plain documents first, then one with an anchor: the fast reader has yielded two documents
    // when it declines, and yaml must continue from the third, not start again.
    const text = `${COMPONENT('a', ['b'])}---\n${COMPONENT('b')}---\n${COMPONENT('c')}  labels: &l {x: y}\n`;
    const streamed = parseDocuments('x.yaml', text);
    const full = parseYamlDocuments('x.yaml', text);
    assert.deepEqual(
      streamed.map((d) => [d.value, d.tree.location(), d.tree.fieldLocation(['metadata', 'name'])]),
      full.map((d) => [d.value, d.tree.location(), d.tree.fieldLocation(['metadata', 'name'])]),
    );
    assert.equal(streamed.length, 3);
  });
});

describe('files nudger has no use for', () => {
  it('skips a malformed file that holds no kind nudger reads, with a warning naming file and line', () => {
    const broken = { path: 'ci/pipeline.yaml', text: 'steps:\n  - run: make\n   bad: indent\n' };
    const set = parseManifestSet([broken, fixture('tenant-components.yaml')]);
    assert.equal(set.components.length, 2);
    assert.deepEqual(
      set.issues.map((i) => [i.rule, i.severity, i.location.file, i.location.line]),
      [['unreadable-file', 'warning', 'ci/pipeline.yaml', 3]],
    );
    assert.match(
      set.issues[0]?.message ?? '',
      /^skipped: malformed YAML: .+holds no Component, NudgeConfig or kustomization/,
    );
  });

  it('skips an unrendered Helm template with a hint, but refuses a templated Component', () => {
    const set = parseManifestSet([fixture('helm-deployment.yaml'), fixture('tenant-components.yaml')]);
    assert.deepEqual(
      set.issues.map((i) => [i.rule, i.location.file, i.location.line]),
      [['unreadable-file', 'test/fixtures/hardening/helm-deployment.yaml', 5]],
    );
    assert.match(set.issues[0]?.message ?? '', /unrendered Go template/);
    const error = syntaxError([fixture('component-template.yaml')]);
    // Pointed at the first template action, wherever yaml gave up.
    assert.deepEqual([error.line, error.column], [4, 9]);
    assert.match(
      error.message,
      /^test\/fixtures\/hardening\/component-template\.yaml:4:9: malformed YAML: .*Go template/,
    );
  });

  it('refuses a malformed file that may hold a Component, NudgeConfig or kustomization', () => {
    assert.equal(syntaxError([{ path: 'c.yaml', text: `${COMPONENT('a')}  labels: {x: [}\n` }]).line, 6);
    const json = syntaxError([{ path: 'c.json', text: '{"kind": "NudgeConfig", "spec": {,}}' }]);
    assert.match(json.message, /^c\.json:1:\d+: malformed JSON/);
    // A kustomization sets other files' namespaces, whatever it holds.
    const kustomization = {
      path: 'overlays/kustomization.yaml',
      text: 'resources:\n  - ../base\nnamespace: [tenant\n',
    };
    assert.equal(syntaxError([kustomization]).file, 'overlays/kustomization.yaml');
  });

  it('never lets yaml print a warning on stderr', () => {
    const warnings: unknown[] = [];
    const listen = (warning: unknown): void => {
      warnings.push(warning);
    };
    process.on('warning', listen);
    try {
      // A collection as a mapping key: yaml would stringify it and warn through process.emitWarning.
      const set = parseManifestSet([{ path: 'odd.yaml', text: 'a:\n  ? [x, y]\n  : 1\n' }]);
      assert.deepEqual(
        set.issues.map((i) => [i.rule, i.location.line]),
        [['unreadable-file', 2]],
      );
      assert.match(set.issues[0]?.message ?? '', /mapping key is itself a mapping or sequence/);
    } finally {
      process.off('warning', listen);
    }
    assert.deepEqual(warnings, []);
  });
});

describe('runaway nesting', () => {
  const depth = 10_000;
  const inputs: [string, string, string][] = [
    ['flow sequences', 'c.yaml', `kind: Component\nspec: ${'['.repeat(depth)}${']'.repeat(depth)}\n`],
    ['flow mappings', 'c.yaml', `kind: Component\nspec: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}\n`],
    ['compact block sequences', 'c.yaml', `kind: Component\nspec:\n  ${'- '.repeat(depth)}x\n`],
    ['JSON objects', 'c.json', `{"kind": "Component", "spec": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`],
    ['JSON arrays', 'c.json', `{"kind": "Component", "spec": ${'['.repeat(depth)}${']'.repeat(depth)}}`],
  ];
  for (const [name, path, text] of inputs) {
    it(`reports 10,000-deep ${name} with file and position, not a stack overflow`, () => {
      const error = syntaxError([{ path, text }]);
      assert.equal(error.file, path);
      assert.ok(error.line >= 1 && error.column >= 1);
      assert.match(error.message, /nest/);
    });
  }

  it('reads nesting a CRD schema actually has', () => {
    const nested = `kind: Component\nspec:\n${Array.from({ length: 60 }, (_, i) => `${'  '.repeat(i + 1)}a${String(i)}:`).join('\n')} 1\n`;
    assert.doesNotThrow(() => parseManifestSet([{ path: 'c.yaml', text: nested }]));
  });
});
