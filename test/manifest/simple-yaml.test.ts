// The fast paths must read every file they accept exactly as the `yaml` library does: the same
// values and the same positions for every field. Generated documents exercise that broadly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { parseDocuments } from '../../src/manifest/documents.ts';
import { looksLikeJson, parseSimpleJson } from '../../src/manifest/simple-json.ts';
import { parseSimpleYaml } from '../../src/manifest/simple-yaml.ts';
import type { FieldPath, SourceDocument } from '../../src/manifest/source-tree.ts';
import { parseYamlDocuments } from '../../src/manifest/yaml-source.ts';

function pathsOf(value: unknown, prefix: FieldPath = []): FieldPath[] {
  const paths: FieldPath[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => paths.push(...pathsOf(item, [...prefix, i])));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  }
  return paths;
}

/** Asserts the fast result equals the full parser's, and returns whether the fast path accepted. */
function assertSameAsYaml(text: string, fast: SourceDocument[] | undefined): boolean {
  if (fast === undefined) return false;
  const full = parseYamlDocuments('f.yaml', text);
  assert.equal(fast.length, full.length, 'document count');
  fast.forEach((doc, d) => {
    const reference = full[d]!;
    assert.deepEqual(doc.value, reference.value);
    for (const path of pathsOf(reference.value)) {
      assert.deepEqual(doc.tree.fieldLocation(path), reference.tree.fieldLocation(path), `field ${path.join('.')}`);
      assert.deepEqual(
        doc.tree.child(path)?.location(),
        reference.tree.child(path)?.location(),
        `value ${path.join('.')}`,
      );
    }
  });
  return true;
}

const key = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      'apiVersion',
      'kind',
      'name',
      'from',
      'to',
      'build-nudges-ref',
      'app.kubernetes.io/name',
      '_x',
    ),
    weight: 30,
  },
  { arbitrary: fc.constantFrom('y', 'on', '1', 'a b', 'x:y'), weight: 1 },
);
const safeScalar = fc.oneof(
  fc.constantFrom('comp-a', 'nudge-config', 'quay.io/org/x@sha256:ab', 'True'),
  fc.nat(),
  fc.constant(null),
);
const oddScalar = fc.oneof(
  fc.constantFrom(
    'comp-a',
    'yes',
    'No',
    'null',
    '~',
    '',
    ' lead',
    'a: b',
    'a #b',
    '#x',
    "it's",
    'say "hi"',
    'multi\nline',
    'e5',
    '0755',
    '1.5',
    '2024-01-01',
    'tab\there',
    'https://x.io/a:b',
    '-x',
    'back\\slash',
  ),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
// Mostly what real manifests hold, so that the fast path accepts often enough to be tested.
const scalar = fc.oneof({ arbitrary: safeScalar, weight: 30 }, { arbitrary: oddScalar, weight: 1 });
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small' }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('tree'), { maxLength: 4 }),
  object: fc.dictionary(key, tie('tree'), { maxKeys: 5 }),
}));
const document = fc.dictionary(key, tree, { minKeys: 1, maxKeys: 6 });

describe('fast YAML path', () => {
  it('reads generated documents exactly as yaml does (or declines)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.array(document, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        (docs, indentSeq, flowLists) => {
          const text = docs
            .map((doc) =>
              stringify(doc, {
                version: '1.1',
                indentSeq,
                collectionStyle: flowLists ? 'any' : 'block',
                flowCollectionPadding: false,
              }),
            )
            .join('---\n');
          if (assertSameAsYaml(text, parseSimpleYaml('f.yaml', text))) accepted++;
        },
      ),
      { numRuns: 400 },
    );
    assert.ok(accepted > 40, `the fast path accepted only ${String(accepted)} of 400`);
  });

  it('reads hand-written shapes exactly as yaml does', () => {
    const samples = [
      'a: 1\nb:\n- x\n- w: 1\n  z: [p, q-r]\nc:\n  d: {}\n  e: []\n',
      "# lead\n---\na: b # trailing\n---\n---\nc: \"d\\\"e\" # q\nf: 'g''h'\n",
      'spec:\n  nudges:\n    - from: a\n      to: b\n\n    - from: c   \n      to: d\n',
      'a:\nb: 2\n',
      'a: # nothing\nb:\nc:\n',
      '- - a\n  - b\n- c\n',
      'items:\n- metadata:\n    name: x\n  spec: {}\n',
    ];
    for (const text of samples) assert.ok(assertSameAsYaml(text, parseSimpleYaml('f.yaml', text)), text);
  });

  it('declines what it does not handle, leaving it to yaml', () => {
    const declined = [
      'a: &x 1\nb: *x\n',
      'a: |\n  text\n',
      'a: b\n  c\n',
      '%YAML 1.2\n---\na: 1\n',
      'a: 1\na: 2\n',
      'a:\n\t- b\n',
      '"k": v\n',
      'a: 1.5\n',
      'a: b: c\n',
      'a:  \n',
      'a: b\u00a0\n',
      'a: 1\r\n',
    ];
    for (const text of declined) assert.equal(parseSimpleYaml('f.yaml', text), undefined, text);
  });
});

describe('documents streamed one at a time', () => {
  it('read a file the fast path declines part-way exactly as yaml does', () => {
    let declinedLate = 0;
    fc.assert(
      fc.property(fc.array(document, { minLength: 2, maxLength: 5 }), fc.boolean(), (docs, indentSeq) => {
        // Plain block documents and, here and there, one the fast path declines (flow or odd scalars).
        const text = docs
          .map((doc, index) =>
            stringify(doc, { version: '1.1', indentSeq, collectionStyle: index % 2 === 1 ? 'any' : 'block' }),
          )
          .join('---\n');
        let full: SourceDocument[];
        try {
          full = parseYamlDocuments('f.yaml', text);
        } catch {
          assert.throws(() => parseDocuments('f.yaml', text));
          return;
        }
        if (
          parseSimpleYaml('f.yaml', text) === undefined &&
          parseSimpleYaml('f.yaml', text.split('---\n')[0] ?? '') !== undefined
        )
          declinedLate++;
        const streamed = parseDocuments('f.yaml', text);
        assert.equal(streamed.length, full.length, 'document count');
        streamed.forEach((doc, d) => {
          const reference = full[d]!;
          assert.deepEqual(doc.value, reference.value);
          for (const path of pathsOf(reference.value)) {
            assert.deepEqual(
              doc.tree.fieldLocation(path),
              reference.tree.fieldLocation(path),
              `field ${path.join('.')}`,
            );
          }
        });
      }),
      { numRuns: 300 },
    );
    assert.ok(declinedLate > 20, `only ${String(declinedLate)} files were declined after their first document`);
  });
});

describe('fast JSON path', () => {
  it('reads generated JSON exactly as yaml does', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify({ wrapped: value }, null, pretty ? 2 : undefined);
        assert.ok(looksLikeJson(text));
        const fast = parseSimpleJson('f.yaml', text);
        // Declined only for keys yaml would treat specially; otherwise it must agree.
        if (fast !== undefined) assertSameAsYaml(text, fast);
      }),
      { numRuns: 300 },
    );
  });

  it('declines duplicate keys and non-JSON flow syntax', () => {
    for (const text of ['{"a": 1, "a": 2}', '{a: 1}', '[1, 2,]', '{"a": 1} {"b": 2}']) {
      assert.equal(parseSimpleJson('f.json', text), undefined, text);
    }
  });
});
