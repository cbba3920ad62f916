import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { describe, it } from 'node:test';
import Type from 'typebox';
import { parse } from 'yaml';
import { MAX_NUDGE_ENTRIES } from '../../src/domain/model.ts';
import {
  CRDS,
  NUDGE_CONFIG_CRD,
  UnsupportedSchemaError,
  crdFileName,
  renderCrdDirectory,
  toCustomResourceDefinition,
  toStructuralSchema,
  type CrdDefinition,
} from '../../src/schema/crd.ts';
import { NUDGE_CONFIG_CEL } from '../../src/schema/nudgeconfig.ts';
import { openApiSchemaOf } from './cel-evaluator.ts';

const CRD_DIR = new URL('../../deploy/crds/', import.meta.url);

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Descends `path` (property names, `items`) through a schema, failing the test when absent. */
function at(schema: unknown, ...path: string[]): Json {
  let node: unknown = schema;
  for (const step of path) {
    assert.ok(isRecord(node), `no schema at ${path.join('.')}`);
    node = step === 'items' ? node.items : (node.properties as Json | undefined)?.[step];
  }
  assert.ok(isRecord(node), `no schema at ${path.join('.')}`);
  return node;
}

/**
 * The rules the API server applies to a CRD schema that are easy to break from TypeBox: every
 * level typed, no additionalProperties beside properties, no JSON-Schema-only keywords, list-map
 * keys required, and root metadata limited to its type.
 */
function structuralProblems(schema: unknown, path = '<root>'): string[] {
  if (!isRecord(schema)) return [`${path}: not an object`];
  const problems: string[] = [];
  const typed =
    schema.type !== undefined ||
    schema['x-kubernetes-int-or-string'] === true ||
    schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (!typed) problems.push(`${path}: no type`);
  if (schema.properties !== undefined && schema.additionalProperties !== undefined)
    problems.push(`${path}: properties and additionalProperties`);
  for (const keyword of ['const', 'anyOf', 'oneOf', 'allOf', '$id', '$schema', '$ref', 'patternProperties']) {
    if (keyword in schema) problems.push(`${path}: keyword ${keyword}`);
  }
  if (schema['x-kubernetes-list-type'] === 'map') {
    const items = schema.items;
    const required = isRecord(items) && Array.isArray(items.required) ? (items.required as unknown[]) : [];
    for (const key of (schema['x-kubernetes-list-map-keys'] as unknown[] | undefined) ?? []) {
      if (!required.includes(key)) problems.push(`${path}: list-map key ${String(key)} is not required`);
    }
  }
  if (isRecord(schema.items)) problems.push(...structuralProblems(schema.items, `${path}[*]`));
  if (isRecord(schema.additionalProperties))
    problems.push(...structuralProblems(schema.additionalProperties, `${path}{*}`));
  if (isRecord(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties))
      problems.push(...structuralProblems(child, `${path}.${key}`));
  }
  return problems;
}

describe('toStructuralSchema', () => {
  it('drops additionalProperties:false and JSON-Schema bookkeeping, keeps Kubernetes extensions', () => {
    const schema = {
      $id: 'x',
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      properties: {
        when: { type: 'string', format: 'date-time' },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        list: {
          type: 'array',
          maxItems: 3,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
          items: {
            type: 'object',
            required: ['k'],
            properties: { k: { type: 'string' } },
            additionalProperties: false,
          },
        },
      },
      'x-kubernetes-validations': [{ rule: 'true' }],
    };
    assert.deepEqual(toStructuralSchema(schema), {
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        list: {
          type: 'array',
          maxItems: 3,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
          items: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } },
        },
      },
      'x-kubernetes-validations': [{ rule: 'true' }],
    });
  });

  it('turns const into an enum of one and a union of literals into an enum', () => {
    const schema = Type.Object({
      a: Type.Literal('x'),
      b: Type.Union([Type.Literal('p'), Type.Literal('q')]),
      n: Type.Literal(3),
    });
    const out = toStructuralSchema(schema);
    assert.deepEqual(at(out, 'a'), { type: 'string', enum: ['x'] });
    assert.deepEqual(at(out, 'b'), { type: 'string', enum: ['p', 'q'] });
    assert.deepEqual(at(out, 'n'), { type: 'number', enum: [3] });
    assert.deepEqual(at(toStructuralSchema({ type: 'object', properties: { i: { const: 3 } } }), 'i'), {
      type: 'integer',
      enum: [3],
    });
  });

  it('reduces root apiVersion, kind and metadata to their types, as controller-gen does', () => {
    const out = toStructuralSchema(NUDGE_CONFIG_CRD.schema);
    assert.deepEqual(at(out, 'apiVersion'), { type: 'string' });
    assert.deepEqual(at(out, 'kind'), { type: 'string' });
    assert.deepEqual(at(out, 'metadata'), { type: 'object' });
    assert.ok(isRecord(out) && !('required' in out), 'the API server sets apiVersion/kind/metadata itself');
  });

  it('turns a TypeBox Record into additionalProperties and open objects into preserve-unknown-fields', () => {
    const out = toStructuralSchema(
      Type.Object({
        labels: Type.Record(Type.String(), Type.String()),
        free: Type.Object({}, { additionalProperties: true }),
      }),
    );
    assert.deepEqual(at(out, 'labels'), { type: 'object', additionalProperties: { type: 'string' } });
    assert.deepEqual(at(out, 'free'), { type: 'object', properties: {}, 'x-kubernetes-preserve-unknown-fields': true });
  });

  it('refuses what a CRD cannot express, naming the field', () => {
    assert.throws(
      () => toStructuralSchema(Type.Object({ spec: Type.Object({ x: Type.Union([Type.String(), Type.Number()]) }) })),
      (error: unknown) =>
        error instanceof UnsupportedSchemaError && error.schemaPath === 'spec.x' && error.keyword === 'anyOf',
    );
    assert.throws(
      () => toStructuralSchema({ type: 'object', properties: { y: { $ref: '#/x' } } }),
      (error: unknown) =>
        error instanceof UnsupportedSchemaError && error.schemaPath === 'y' && error.message.includes('not supported'),
    );
    assert.throws(
      () => toStructuralSchema({ type: 'object', properties: { z: { description: 'untyped' } } }),
      (error: unknown) =>
        error instanceof UnsupportedSchemaError &&
        error.schemaPath === 'z' &&
        error.message.includes('type at every level'),
    );
    assert.throws(
      () =>
        toStructuralSchema({
          type: 'object',
          properties: { a: { type: 'string' } },
          additionalProperties: { type: 'string' },
        }),
      (error: unknown) => error instanceof UnsupportedSchemaError && error.keyword === 'additionalProperties',
    );
  });
});

describe('NudgeConfig CRD', () => {
  const crd = toCustomResourceDefinition(NUDGE_CONFIG_CRD);
  const schema = openApiSchemaOf(crd);

  it('is named, scoped and versioned as D1 and ADR 67 say', () => {
    assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(crd.kind, 'CustomResourceDefinition');
    assert.deepEqual((crd.metadata as Json).name, 'nudgeconfigs.konflux-ci.dev');
    const spec = crd.spec as Json;
    assert.equal(spec.group, 'konflux-ci.dev');
    assert.equal(spec.scope, 'Namespaced');
    assert.deepEqual(spec.names, {
      kind: 'NudgeConfig',
      listKind: 'NudgeConfigList',
      plural: 'nudgeconfigs',
      singular: 'nudgeconfig',
      shortNames: ['nc'],
      categories: ['konflux', 'nudger'],
    });
    const [version] = spec.versions as Json[];
    assert.ok(version !== undefined);
    assert.equal(version.name, 'v1alpha1');
    assert.equal(version.served, true);
    assert.equal(version.storage, true);
    assert.deepEqual(version.subresources, { status: {} });
    const columns = (version.additionalPrinterColumns as Json[]).map((c) => [c.name, c.jsonPath]);
    assert.deepEqual(columns, [
      ['Valid', '.status.conditions[?(@.type=="Valid")].status'],
      ['Reason', '.status.conditions[?(@.type=="Valid")].reason'],
      ['Last Validated', '.status.lastValidationTime'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
  });

  it('has a structural schema', () => {
    assert.deepEqual(structuralProblems(schema), []);
  });

  it('caps spec.nudges at maxItems 5000 and keys it by (from, to)', () => {
    const nudges = at(schema, 'spec', 'nudges');
    assert.equal(MAX_NUDGE_ENTRIES, 5000);
    assert.equal(nudges.maxItems, 5000);
    assert.equal(nudges['x-kubernetes-list-type'], 'map');
    assert.deepEqual(nudges['x-kubernetes-list-map-keys'], ['from', 'to']);
    assert.deepEqual(at(schema, 'spec', 'nudges', 'items').required, ['from', 'to']);
    assert.equal(at(schema, 'spec', 'nudges', 'items', 'mode').default, 'immediate');
  });

  it('carries each CEL rule of NUDGE_CONFIG_CEL at the node it guards', () => {
    assert.deepEqual(schema['x-kubernetes-validations'], [NUDGE_CONFIG_CEL['singleton-name']]);
    assert.deepEqual(at(schema, 'spec')['x-kubernetes-validations'], [NUDGE_CONFIG_CEL['self-nudge']]);
    assert.deepEqual(at(schema, 'spec', 'nudges', 'items')['x-kubernetes-validations'], [
      NUDGE_CONFIG_CEL['missing-gating-group'],
    ]);
  });

  it('serves v1alpha1 (storage) and upstream v1beta2 from one stored object, conversion None (D1)', () => {
    const spec = crd.spec as Json;
    assert.deepEqual(spec.conversion, { strategy: 'None' });
    const versions = spec.versions as Json[];
    assert.deepEqual(
      versions.map((v) => [v.name, v.served, v.storage]),
      [
        ['v1alpha1', true, true],
        ['v1beta2', true, false],
      ],
    );
    const [alpha, beta] = versions;
    assert.ok(alpha !== undefined && beta !== undefined);
    assert.deepEqual(beta.subresources, alpha.subresources);
    assert.deepEqual(beta.additionalPrinterColumns, alpha.additionalPrinterColumns);
    // Conversion None only rewrites apiVersion: the versions must hold the same fields.
    const v1beta2 = openApiSchemaOf(crd, 'v1beta2');
    assert.deepEqual(structuralProblems(v1beta2), []);
    assert.deepEqual(Object.keys(at(v1beta2, 'spec', 'nudges', 'items').properties as Json).sort(), [
      'from',
      'gatingGroup',
      'mode',
      'to',
    ]);
    assert.deepEqual(at(v1beta2, 'status'), at(schema, 'status'));
  });

  it('holds v1beta2 to upstream rules: 360 entries, and no missing-gating-group rule', () => {
    const v1beta2 = openApiSchemaOf(crd, 'v1beta2');
    const nudges = at(v1beta2, 'spec', 'nudges');
    assert.equal(nudges.maxItems, 360);
    assert.equal(nudges['x-kubernetes-list-type'], 'map');
    assert.deepEqual(nudges['x-kubernetes-list-map-keys'], ['from', 'to']);
    assert.equal(at(v1beta2, 'spec', 'nudges', 'items', 'mode').default, 'immediate');
    assert.equal(at(v1beta2, 'spec', 'nudges', 'items')['x-kubernetes-validations'], undefined);
    assert.ok(!JSON.stringify(v1beta2).includes(NUDGE_CONFIG_CEL['missing-gating-group'].rule));
    assert.deepEqual(v1beta2['x-kubernetes-validations'], [NUDGE_CONFIG_CEL['singleton-name']]);
    assert.deepEqual(at(v1beta2, 'spec')['x-kubernetes-validations'], [NUDGE_CONFIG_CEL['self-nudge']]);
  });

  it('keeps status conditions a list-map by type with date-time timestamps', () => {
    const conditions = at(schema, 'status', 'conditions');
    assert.equal(conditions['x-kubernetes-list-type'], 'map');
    assert.deepEqual(conditions['x-kubernetes-list-map-keys'], ['type']);
    assert.equal(at(schema, 'status', 'lastValidationTime').format, 'date-time');
  });
});

describe('deploy/crds', () => {
  it('holds exactly what the schemas generate (run `npm run gen:crds` if this fails)', async () => {
    const expected = renderCrdDirectory(CRDS);
    const present = (await readdir(CRD_DIR)).filter((name) => name.endsWith('.yaml')).sort();
    assert.deepEqual(present, [...expected.keys()].sort());
    for (const [name, text] of expected) {
      assert.equal(await readFile(new URL(name, CRD_DIR), 'utf8'), text, `deploy/crds/${name} is out of date`);
    }
  });

  it('renders deterministically and round-trips through YAML to the CRD object', () => {
    const first = renderCrdDirectory(CRDS);
    const second = renderCrdDirectory(CRDS);
    assert.deepEqual([...first], [...second]);
    const text = first.get(crdFileName(NUDGE_CONFIG_CRD)) ?? '';
    assert.ok(
      text.startsWith(
        '# Generated from src/schema/nudgeconfig.ts and src/schema/upstream-nudgeconfig.ts; do not edit.',
      ),
    );
    assert.ok(!/[&*]a\d/.test(text), 'shared schema fragments are written out, not as YAML anchors and aliases');
    assert.deepEqual(parse(text), toCustomResourceDefinition(NUDGE_CONFIG_CRD));
  });

  it('lists every CRD in the kustomization', () => {
    const kustomization = parse(renderCrdDirectory(CRDS).get('kustomization.yaml') ?? '') as Json;
    assert.deepEqual(kustomization.resources, CRDS.map(crdFileName).sort());
  });

  it('names files <group>_<plural>.yaml', () => {
    const def: CrdDefinition = { ...NUDGE_CONFIG_CRD, group: 'example.com', plural: 'widgets' };
    assert.equal(crdFileName(def), 'example.com_widgets.yaml');
  });
});
