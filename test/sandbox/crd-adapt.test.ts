import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { adaptCrdForV120 } from '../../src/sandbox/control-plane/crd-adapt.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS } from '../../src/sandbox/control-plane/paths.ts';

type Schema = Record<string, unknown>;

function crdWith(schema: Schema, versionExtras: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Thing', plural: 'things' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...versionExtras }],
    },
  };
}

function schemaOf(crd: Record<string, unknown>): Schema {
  const spec = crd.spec as { versions: { schema: { openAPIV3Schema: Schema } }[] };
  return spec.versions[0]!.schema.openAPIV3Schema;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const cel = [{ rule: 'self.a != self.b', message: 'differ' }];

describe('adaptCrdForV120', () => {
  it('strips x-kubernetes-validations at every schema position and keeps everything else', () => {
    const input = deepFreeze(
      crdWith({
        type: 'object',
        'x-kubernetes-validations': cel,
        properties: {
          spec: {
            type: 'object',
            'x-kubernetes-validations': cel,
            properties: {
              list: {
                type: 'array',
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['a'],
                items: { type: 'object', 'x-kubernetes-validations': cel, required: ['a'] },
              },
              map: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': cel } },
              either: { anyOf: [{ type: 'integer', 'x-kubernetes-validations': cel }, { type: 'string' }] },
              atomic: { type: 'object', 'x-kubernetes-map-type': 'atomic' },
            },
          },
        },
      }),
    );
    const output = adaptCrdForV120(input);
    assert.deepEqual(
      schemaOf(output),
      {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              list: {
                type: 'array',
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['a'],
                items: { type: 'object', required: ['a'] },
              },
              map: { type: 'object', additionalProperties: { type: 'string' } },
              either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
              atomic: { type: 'object', 'x-kubernetes-map-type': 'atomic' },
            },
          },
        },
      },
      'the frozen input was copied, not modified',
    );
  });

  it('drops empty-string defaults only, and never touches a property that is merely named like a keyword', () => {
    const output = adaptCrdForV120(
      crdWith({
        type: 'object',
        properties: {
          name: { type: 'string', default: '' },
          mode: { type: 'string', default: 'immediate' },
          optional: { type: 'boolean', default: false },
          count: { type: 'integer', default: 0 },
          default: { type: 'string' },
          'x-kubernetes-validations': { type: 'string' },
        },
      }),
    );
    assert.deepEqual(schemaOf(output).properties, {
      name: { type: 'string' },
      mode: { type: 'string', default: 'immediate' },
      optional: { type: 'boolean', default: false },
      count: { type: 'integer', default: 0 },
      default: { type: 'string' },
      'x-kubernetes-validations': { type: 'string' },
    });
  });

  it('drops version fields v1.20 does not have', () => {
    const output = adaptCrdForV120(crdWith({ type: 'object' }, { selectableFields: [{ jsonPath: '.spec.a' }] }));
    const version = (output.spec as { versions: Record<string, unknown>[] }).versions[0]!;
    assert.equal('selectableFields' in version, false);
    assert.equal(version.name, 'v1');
  });

  it('is idempotent and leaves no CEL anywhere, for arbitrary schema trees', () => {
    const leaf = fc.record({
      type: fc.constantFrom('string', 'integer', 'boolean'),
      default: fc.option(fc.constantFrom('', 'x', 0)),
    });
    const { schema } = fc.letrec<{ schema: Schema }>((tie) => ({
      schema: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.record(
          {
            type: fc.constant('object'),
            properties: fc.dictionary(fc.constantFrom('a', 'b', 'default', 'x-kubernetes-validations'), tie('schema'), {
              maxKeys: 3,
            }),
            'x-kubernetes-validations': fc.constant(cel),
          },
          { requiredKeys: ['type'] },
        ),
        fc.record({ type: fc.constant('array'), items: tie('schema'), 'x-kubernetes-validations': fc.constant(cel) }),
        fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
      ),
    }));
    const celAtSchemaPosition = (node: unknown): boolean => {
      if (typeof node !== 'object' || node === null) return false;
      const s = node as Schema;
      const children = [
        ...Object.values((s.properties as Schema | undefined) ?? {}),
        s.items,
        ...((s.anyOf as unknown[] | undefined) ?? []),
      ];
      return 'x-kubernetes-validations' in s || s.default === '' || children.some(celAtSchemaPosition);
    };
    fc.assert(
      fc.property(schema, (s) => {
        const once = adaptCrdForV120(crdWith(s));
        assert.equal(celAtSchemaPosition(schemaOf(once)), false);
        assert.deepEqual(adaptCrdForV120(once), once);
      }),
    );
  });

  it('on the real upstream and nudger CRDs: removes only CEL and empty defaults', () => {
    for (const file of [...Object.values(UPSTREAM_CRDS), ...NUDGER_CRDS]) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        const crd = doc.toJS() as Record<string, unknown> | null;
        if (crd === null) continue;
        const before = JSON.stringify(crd);
        const after = JSON.stringify(adaptCrdForV120(crd));
        const count = (text: string, needle: string): number => text.split(needle).length - 1;
        assert.equal(count(after, '"x-kubernetes-validations"'), 0, file);
        assert.equal(count(after, '"default":""'), 0, file);
        for (const kept of [
          '"x-kubernetes-list-map-keys"',
          '"x-kubernetes-map-type"',
          '"default":',
          '"required"',
          '"pattern"',
        ]) {
          const removed = kept === '"default":' ? count(before, '"default":""') : 0;
          assert.equal(count(after, kept), count(before, kept) - removed, `${file}: ${kept}`);
        }
      }
    }
  });
});
