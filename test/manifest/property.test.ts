// Generated Components and NudgeConfigs, serialised to YAML or JSON, read back to the same names
// and edges: whatever the serialiser's layout, nothing is lost or invented.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { parseManifestSet } from '../../src/manifest/parse.ts';

const name = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?$/);
const namespace = fc.option(name, { nil: undefined });
const component = fc.record({
  name,
  namespace,
  refs: fc.array(name, { maxLength: 4 }),
  image: fc.option(fc.constant('quay.io/org/x'), { nil: undefined }),
});
const entry = fc.record({ from: name, to: name, mode: fc.constantFrom(undefined, 'immediate', 'validated') });
const nudgeConfig = fc.record({ namespace, entries: fc.array(entry, { maxLength: 8 }), upstream: fc.boolean() });

type GeneratedComponent = typeof component extends fc.Arbitrary<infer T> ? T : never;
type GeneratedConfig = typeof nudgeConfig extends fc.Arbitrary<infer T> ? T : never;

function componentObject(c: GeneratedComponent): object {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name: c.name, ...(c.namespace === undefined ? {} : { namespace: c.namespace }) },
    // Empty lists are left out: yaml's stringify writes them as invalid YAML with indentSeq: false.
    spec: {
      ...(c.refs.length === 0 ? {} : { 'build-nudges-ref': c.refs }),
      ...(c.image === undefined ? {} : { containerImage: c.image }),
    },
  };
}

function nudgeConfigObject(n: GeneratedConfig): object {
  return {
    apiVersion: n.upstream ? 'appstudio.redhat.com/v1beta2' : 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', ...(n.namespace === undefined ? {} : { namespace: n.namespace }) },
    spec:
      n.entries.length === 0
        ? {}
        : {
            nudges: n.entries.map((e) => ({
              from: e.from,
              to: e.to,
              ...(e.mode === undefined ? {} : { mode: e.mode }),
              ...(e.mode === 'validated' ? { gatingGroup: 'grp' } : {}),
            })),
          },
  };
}

describe('manifest round trip', () => {
  it('reads back the names and edges that were written', () => {
    fc.assert(
      fc.property(
        fc.array(component, { maxLength: 5 }),
        fc.array(nudgeConfig, { maxLength: 2 }),
        fc.constantFrom('yaml', 'yaml-indented', 'yaml-flow', 'json', 'list'),
        (components, configs, layout) => {
          const objects = [...components.map(componentObject), ...configs.map(nudgeConfigObject)];
          const text =
            layout === 'json'
              ? JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)
              : layout === 'list'
                ? stringify({ apiVersion: 'v1', kind: 'List', items: objects }, { version: '1.1' })
                : objects
                    .map((o) =>
                      stringify(o, {
                        version: '1.1',
                        indentSeq: layout === 'yaml-indented',
                        collectionStyle: layout === 'yaml-flow' ? 'flow' : 'block',
                      }),
                    )
                    .join('---\n');
          const set = parseManifestSet([{ path: layout === 'json' ? 'x.json' : 'x.yaml', text }]);
          assert.deepEqual(set.issues, []);
          assert.deepEqual(
            set.components.map((c) => [
              c.ref.namespace,
              c.ref.name,
              c.buildNudgesRef.map((r) => r.name),
              c.containerImage,
            ]),
            components.map((c) => [c.namespace ?? '', c.name, c.refs, c.image]),
          );
          assert.deepEqual(
            set.nudgeConfigs.map((n) => [n.ref.namespace, n.flavour, n.entries.map((e) => [e.from, e.to, e.mode])]),
            configs.map((n) => [
              n.namespace ?? '',
              n.upstream ? 'upstream-v1beta2' : 'nudger',
              n.entries.map((e) => [e.from, e.to, e.mode]),
            ]),
          );
          for (const c of set.components) for (const r of c.buildNudgesRef) assert.ok((r.location.line ?? 0) >= 1);
        },
      ),
      { numRuns: 200 },
    );
  });
});
