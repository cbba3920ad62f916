import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ManifestSet } from '../../src/domain/model.ts';
import { ManifestSyntaxError } from '../../src/manifest/errors.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';

const fixture = (name: string) => ({
  path: `test/fixtures/manifests/${name}`,
  text: readFileSync(new URL(`../fixtures/manifests/${name}`, import.meta.url), 'utf8'),
});

const parse = (text: string, path = 'x.yaml'): ManifestSet => parseManifestSet([{ path, text }]);

/**
 * A trailing comment naming a kind nudger reads: the file "may hold" one (unreadable-files.ts), so
 * its syntax error stops the run instead of becoming an `unreadable-file` warning.
 */
const MAY_HOLD_A_COMPONENT = '\n# kind: Component\n';

function syntaxError(text: string, path = 'x.yaml'): ManifestSyntaxError {
  try {
    parse(text + MAY_HOLD_A_COMPONENT, path);
  } catch (error) {
    assert.ok(error instanceof ManifestSyntaxError, `expected ManifestSyntaxError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ManifestSyntaxError');
}

const NC_HEAD =
  'apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata:\n  name: nudge-config\n  namespace: ns\n';

describe('parseManifestSet: good inputs', () => {
  it('reads Components and NudgeConfigs from a multi-document file with exact lines', () => {
    const set = parseManifestSet([fixture('multi-doc.yaml')]);
    assert.equal(set.issues.length, 0);
    assert.equal(set.components.length, 1);
    const [libfoo] = set.components;
    assert.deepEqual(libfoo!.ref, { kind: 'Component', namespace: 'tenant', name: 'libfoo' });
    assert.deepEqual(libfoo!.location, { file: 'test/fixtures/manifests/multi-doc.yaml', line: 2, column: 1 });
    assert.equal(libfoo!.containerImage, 'quay.io/org/tenant/libfoo');
    assert.match(libfoo!.lastPromotedImage!, /@sha256:0{64}$/);
    assert.deepEqual(
      libfoo!.buildNudgesRef.map((r) => [r.name, r.location.line, r.location.column]),
      [
        ['app-a', 10, 5],
        ['app-b', 11, 5],
      ],
    );
    const [config] = set.nudgeConfigs;
    assert.equal(config!.flavour, 'nudger');
    assert.equal(config!.location.line, 24);
    assert.deepEqual(
      config!.entries.map((e) => ({ ...e, location: e.location.line })),
      [
        { index: 0, from: 'libfoo', to: 'app-a', location: 31 },
        { index: 1, from: 'libfoo', to: 'app-c', mode: 'validated', gatingGroup: 'frontend', location: 33 },
      ],
    );
  });

  it('unwraps a JSON kind: List with item lines', () => {
    const set = parseManifestSet([fixture('list.json')]);
    assert.deepEqual(
      set.components.map((c) => [c.ref.name, c.location.line, c.buildNudgesRef.map((r) => [r.name, r.location.line])]),
      [
        ['app-a', 5, [['app-b', 9]]],
        ['app-b', 11, []],
      ],
    );
    assert.deepEqual(set.issues, []);
  });

  it('unwraps typed lists whose items leave out apiVersion and kind', () => {
    const set = parse(
      'apiVersion: appstudio.redhat.com/v1alpha1\nkind: ComponentList\nitems:\n- metadata:\n    name: a\n  spec:\n    build-nudges-ref: [b, c]\n',
    );
    assert.deepEqual(
      set.components.map((c) => [
        c.ref.name,
        c.location.line,
        c.buildNudgesRef.map((r) => [r.name, r.location.column]),
      ]),
      [
        [
          'a',
          4,
          [
            ['b', 24],
            ['c', 27],
          ],
        ],
      ],
    );
  });

  it('reads the upstream v1beta2 NudgeConfig as an import source', () => {
    const set = parseManifestSet([fixture('upstream-v1beta2.yaml')]);
    assert.equal(set.nudgeConfigs[0]!.flavour, 'upstream-v1beta2');
    assert.deepEqual(set.nudgeConfigs[0]!.entries[0]!.gatingGroup, 'frontend-group');
    assert.deepEqual(set.issues, []);
  });

  it('ignores other kinds, other API versions and documents that are not objects', () => {
    const text = [
      'apiVersion: v1\nkind: Service\nmetadata: {name: s}',
      'apiVersion: example.com/v1\nkind: NudgeConfig\nmetadata: {name: other}',
      'apiVersion: toString\nkind: NudgeConfig\nmetadata: {name: other}',
      '- just\n- a list',
      'plain scalar',
      '',
      '# only a comment',
    ].join('\n---\n');
    assert.deepEqual(parse(text), { components: [], nudgeConfigs: [], issues: [] });
  });

  it('reports, and skips, a kind it reads in its own group but an unknown version (issue 8)', () => {
    const set = parse('apiVersion: konflux-ci.dev/v1alpha1\nkind: Component\nmetadata: {name: new-model}');
    assert.deepEqual([set.components, set.nudgeConfigs], [[], []]);
    assert.deepEqual(
      set.issues.map((i) => [i.rule, i.severity, i.location.line]),
      [['unknown-api-version', 'warning', 1]],
    );
  });

  it('copes with a BOM, a %YAML directive, anchors, merge keys and CRLF line ends', () => {
    const text =
      '\uFEFF%YAML 1.1\n---\napiVersion: appstudio.redhat.com/v1alpha1\r\nkind: Component\r\nmetadata:\r\n  name: a\r\n' +
      '---\r\napiVersion: v1\r\nkind: List\r\nitems:\r\n- apiVersion: appstudio.redhat.com/v1alpha1\r\n  kind: Component\r\n' +
      '  metadata: &m\r\n    name: b\r\n  spec:\r\n    build-nudges-ref: &refs\r\n    - c\r\n' +
      '- apiVersion: appstudio.redhat.com/v1alpha1\r\n  kind: Component\r\n  metadata:\r\n    <<: *m\r\n    namespace: ns\r\n' +
      '  spec:\r\n    build-nudges-ref: *refs\r\n';
    const set = parse(text);
    assert.deepEqual(
      set.components.map((c) => [c.ref.namespace, c.ref.name, c.location.line, c.buildNudgesRef.map((r) => r.name)]),
      [
        ['', 'a', 3, []],
        ['', 'b', 11, ['c']],
        ['ns', 'b', 18, ['c']],
      ],
    );
    assert.equal(set.components[2]!.buildNudgesRef[0]!.location.line, 17, 'an alias points at its anchor');
  });

  it('reads a 100,000-entry NudgeConfig, in YAML and in JSON', () => {
    const count = 100_000;
    let yaml = `${NC_HEAD}spec:\n  nudges:\n`;
    for (let i = 0; i < count; i++) yaml += `    - from: c-${String(i)}\n      to: c-${String(i + 1)}\n`;
    const fromYaml = parse(yaml).nudgeConfigs[0]!.entries;
    assert.equal(fromYaml.length, count);
    assert.equal(fromYaml[count - 1]!.location.line, 8 + 2 * (count - 1));
    const json = JSON.stringify({
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config' },
      spec: { nudges: Array.from({ length: count }, (_, i) => ({ from: `c-${String(i)}`, to: `c-${String(i + 1)}` })) },
    });
    const fromJson = parse(json, 'big.json').nudgeConfigs[0]!.entries;
    assert.equal(fromJson.length, count);
    assert.equal(fromJson[count - 1]!.to, `c-${String(count)}`);
  });

  it('reads yes/no/on/off as booleans like kubectl (YAML 1.1), and timestamps as strings', () => {
    const set = parse(`${NC_HEAD}spec:\n  nudges:\n  - from: a\n    to: no\n`);
    assert.equal(set.nudgeConfigs[0]!.entries.length, 0);
    assert.equal(set.issues[0]!.rule, 'invalid-field');
    assert.match(set.issues[0]!.message, /spec\.nudges\[0\]\.to: must be a string, found boolean false/);
    const quoted = parse(`${NC_HEAD}spec:\n  nudges:\n  - from: a\n    to: "no"\n`);
    assert.deepEqual(quoted.issues, []);
  });
});

describe('parseManifestSet: schema issues', () => {
  const set = parseManifestSet([fixture('invalid-entries.yaml')]);
  const file = 'test/fixtures/manifests/invalid-entries.yaml';
  const byRule = (rule: string) => set.issues.filter((issue) => issue.rule === rule);

  it('warns about a typo with a suggestion, on the line of the typo', () => {
    const [typo] = byRule('unknown-field');
    assert.deepEqual(typo, {
      rule: 'unknown-field',
      severity: 'warning',
      message: 'NudgeConfig my-ns/nudge-config spec.nudges[1].form: unknown field; did you mean `from`?',
      object: { kind: 'NudgeConfig', namespace: 'my-ns', name: 'nudge-config' },
      location: { file, line: 11, column: 7 },
    });
  });

  it('reports a bad name in DNS-1123 words, on its line', () => {
    const [bad] = byRule('invalid-name');
    assert.equal(
      bad!.message,
      `NudgeConfig my-ns/nudge-config spec.nudges[2].to "Bad_Name": must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
    );
    assert.equal(bad!.severity, 'error');
    assert.equal(bad!.location.line, 14);
  });

  it('reports an invalid mode with the allowed values', () => {
    const [mode] = byRule('invalid-mode');
    assert.equal(
      mode!.message,
      'NudgeConfig my-ns/nudge-config spec.nudges[3].mode "eventually": must be one of immediate, validated',
    );
    assert.equal(mode!.location.line, 17);
  });

  it('reports a missing to, and drops only that entry', () => {
    const [missing] = byRule('invalid-field');
    assert.equal(missing!.message, 'NudgeConfig my-ns/nudge-config spec.nudges[4].to: required field is missing');
    assert.equal(missing!.location.line, 18);
    assert.deepEqual(
      set.nudgeConfigs[0]!.entries.map((e) => [e.index, e.from, e.to, e.location.line]),
      [
        [0, 'a', 'b', 8],
        [1, 'a', 'd', 10],
        [2, 'b', 'Bad_Name', 13],
        [3, 'c', 'd', 15],
      ],
    );
  });

  it('has nothing else to say (status is not flagged)', () => {
    assert.equal(set.issues.length, 4);
  });

  it('reports a missing metadata.name and leaves the object out', () => {
    const result = parse('apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  namespace: ns\n');
    assert.equal(result.components.length, 0);
    assert.deepEqual(
      result.issues.map((i) => [i.rule, i.message, i.location.line]),
      [['invalid-field', 'Component ns/(unnamed) metadata.name: required field is missing', 3]],
    );
  });

  it('reports wrong-typed metadata and build-nudges-ref', () => {
    const result = parse(
      'apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata: {name: a, namespace: 7}\nspec:\n  build-nudges-ref: b\n  extra: fine\n',
    );
    assert.deepEqual(
      result.issues.map((i) => [i.rule, i.message, i.location.line]),
      [
        ['invalid-field', 'Component a metadata.namespace: must be a string, found number 7', 3],
        ['invalid-field', 'Component a spec.build-nudges-ref: must be a list, found the string "b"', 5],
      ],
    );
    assert.deepEqual(result.components[0]!.buildNudgesRef, []);
  });

  it('reports a metadata that is not a mapping', () => {
    const result = parse(`apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata: nudge-config\n`);
    assert.deepEqual(
      result.issues.map((i) => [i.rule, i.location.line]),
      [['invalid-field', 3]],
    );
    assert.match(result.issues[0]!.message, /^NudgeConfig \(unnamed\) metadata: must be a mapping/);
  });

  it('reports a Component or NudgeConfig without apiVersion', () => {
    const result = parse('kind: NudgeConfig\nmetadata:\n  name: nudge-config\n');
    assert.deepEqual(
      result.issues.map((i) => [i.rule, i.message]),
      [['invalid-field', 'NudgeConfig nudge-config apiVersion: required field is missing']],
    );
  });

  it('does not report maxItems (the domain reports too-many-edges)', () => {
    let text =
      'apiVersion: appstudio.redhat.com/v1beta2\nkind: NudgeConfig\nmetadata:\n  name: nudge-config\nspec:\n  nudges:\n';
    for (let i = 0; i < 300; i++) text += `  - {from: a${String(i)}, to: b}\n`;
    const result = parse(text);
    assert.deepEqual(result.issues, []);
    assert.equal(result.nudgeConfigs[0]!.entries.length, 300);
  });
});

describe('parseManifestSet: malformed input', () => {
  it('names file, line and column in one line', () => {
    const error = syntaxError('apiVersion: v1\nkind: [Component\nmetadata: {}\n', 'examples/x.yaml');
    assert.equal(error.file, 'examples/x.yaml');
    assert.equal(error.line, 3);
    assert.equal(error.column, 1);
    assert.match(error.message, /^examples\/x\.yaml:3:1: malformed YAML: \S/);
    assert.ok(!error.message.includes('\n'));
  });

  it('reports duplicate keys and bad indentation at their line', () => {
    assert.equal(syntaxError('a: 1\nb: 2\na: 3\n').line, 3);
    const nested = syntaxError('a:\n  b: 1\n c: 2\n');
    assert.equal(nested.line, 3);
  });

  it('says JSON for .json files', () => {
    const error = syntaxError('{"a": 1,, }', 'x.json');
    assert.match(error.message, /^x\.json:1:9: malformed JSON: /);
  });

  it('refuses an alias bomb and an undefined alias', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++)
      lines.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(', ')}]`,
      );
    assert.match(syntaxError(lines.join('\n')).message, /alias/i);
    const undefinedAlias = syntaxError('a: 1\nb: *nope\n');
    assert.deepEqual([undefinedAlias.line, undefinedAlias.column], [2, 4]);
  });
});
