// Property tests of the GitOps migration against the real manifest parser and graph builder: the
// migration may move edges, never lose or invent one, and a second run must change nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { buildNudgeGraphs, edgeKey } from '../../src/domain/graph.ts';
import {
  MigrationRefusedError,
  planMigration,
  type MigrationResult,
  type SourceFile,
} from '../../src/domain/migrate.ts';
import type { ManifestSet } from '../../src/domain/model.ts';
import { placeByKustomize } from '../../src/manifest/kustomize-placement.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';

const NAMES = ['a', 'b', 'c', 'd', 'e'] as const;
/** Targets also include a name no Component has: build-nudges-ref is not validated upstream. */
const TARGETS = [...NAMES, 'ghost'] as const;
const NAMESPACES = [undefined, 'team-a', 'team-b'] as const;
const DIRS = ['', 'apps', 'apps/base'] as const;

interface ComponentSpec {
  readonly kind: 'component';
  readonly name: string;
  readonly namespace: string | undefined;
  readonly refs: readonly string[] | undefined;
  readonly style: 'block' | 'indented' | 'flow' | 'quoted';
  readonly comment: boolean;
  readonly extraKey: boolean;
}

interface Entry {
  readonly from: string;
  readonly to: string;
  readonly mode?: 'immediate' | 'validated';
}

interface NudgeConfigSpec {
  readonly kind: 'nudge-config';
  readonly flavour: 'nudger' | 'upstream';
  readonly name: string;
  readonly namespace: string | undefined;
  readonly entries: readonly Entry[];
  readonly style: 'block' | 'flow';
}

interface FillerSpec {
  readonly kind: 'filler';
  readonly id: number;
}

type DocSpec = ComponentSpec | NudgeConfigSpec | FillerSpec;

interface FileSpec {
  readonly dir: (typeof DIRS)[number];
  readonly docs: readonly DocSpec[];
  readonly json: boolean;
}

const componentArb: fc.Arbitrary<ComponentSpec> = fc.record({
  kind: fc.constant('component' as const),
  name: fc.constantFrom(...NAMES),
  namespace: fc.constantFrom(...NAMESPACES),
  refs: fc.option(fc.array(fc.constantFrom(...TARGETS), { maxLength: 5 }), { nil: undefined }),
  style: fc.constantFrom('block' as const, 'indented' as const, 'flow' as const, 'quoted' as const),
  comment: fc.boolean(),
  extraKey: fc.boolean(),
});

const entryArb: fc.Arbitrary<Entry> = fc.record(
  {
    from: fc.constantFrom(...NAMES),
    to: fc.constantFrom(...TARGETS),
    mode: fc.constantFrom('immediate' as const, 'validated' as const),
  },
  { requiredKeys: ['from', 'to'] },
);

const nudgeConfigArb: fc.Arbitrary<NudgeConfigSpec> = fc.record({
  kind: fc.constant('nudge-config' as const),
  flavour: fc.constantFrom('nudger' as const, 'upstream' as const),
  name: fc.constantFrom('nudge-config', 'nudge-config', 'other'),
  namespace: fc.constantFrom(...NAMESPACES),
  entries: fc.uniqueArray(entryArb, { maxLength: 4, selector: (e) => `${e.from}>${e.to}` }),
  style: fc.constantFrom('block' as const, 'flow' as const),
});

const docArb: fc.Arbitrary<DocSpec> = fc.oneof(
  { weight: 4, arbitrary: componentArb },
  { weight: 2, arbitrary: nudgeConfigArb },
  { weight: 1, arbitrary: fc.nat(1000).map((id): FillerSpec => ({ kind: 'filler', id })) },
);

const fileArb: fc.Arbitrary<FileSpec> = fc
  .record({
    dir: fc.constantFrom(...DIRS),
    docs: fc.array(docArb, { minLength: 1, maxLength: 3 }),
    json: fc.boolean(),
  })
  .map((file) => (file.docs.length === 1 ? file : { ...file, json: false }));

interface TreeSpec {
  readonly files: readonly FileSpec[];
  readonly kustomizations: readonly string[];
  /** The `namespace:` of each directory's kustomization (by DIRS index), if it has one. */
  readonly kustomizeNamespaces: readonly (string | undefined)[];
}

const treeArb: fc.Arbitrary<TreeSpec> = fc
  .record({
    files: fc.array(fileArb, { minLength: 1, maxLength: 6 }),
    kustomizations: fc.subarray([...DIRS]),
    kustomizeNamespaces: fc.tuple(...DIRS.map(() => fc.constantFrom(undefined, 'team-a', 'team-k'))),
  })
  .map(migratableTree);

/** The namespace kustomize gives objects of `dir`, if its kustomization sets one (overriding theirs). */
function kustomizeNamespace(tree: Omit<TreeSpec, 'files'>, dir: string): string | undefined {
  return tree.kustomizations.includes(dir)
    ? tree.kustomizeNamespaces[DIRS.indexOf(dir as (typeof DIRS)[number])]
    : undefined;
}

/**
 * What migrate refuses is tested apart (test/domain/migrate-kustomize.test.ts): objects whose
 * namespace nothing determines get one, and copies of a Component (same namespace and name after
 * kustomize) agree on build-nudges-ref, so that these properties judge every generated tree.
 */
function migratableTree(tree: TreeSpec): TreeSpec {
  const firstRefs = new Map<string, readonly string[] | undefined>();
  const files = tree.files.map((file) => {
    const setBy = kustomizeNamespace(tree, file.dir);
    const docs = file.docs.map((doc): DocSpec => {
      if (doc.kind === 'filler') return doc;
      const namespace = setBy === undefined && doc.namespace === undefined ? 'team-a' : doc.namespace;
      if (doc.kind === 'nudge-config') return { ...doc, namespace };
      const key = `${setBy ?? namespace ?? ''}/${doc.name}`;
      if (!firstRefs.has(key)) firstRefs.set(key, doc.refs);
      return { ...doc, namespace, refs: firstRefs.get(key) };
    });
    return { ...file, docs };
  });
  return { ...tree, files };
}

/** What validate reads: the parser's objects in the namespaces kustomize gives them. */
function readSet(files: readonly SourceFile[]): ManifestSet {
  return placeByKustomize(parseManifestSet(files), files);
}

function metadataLines(name: string, namespace: string | undefined): string[] {
  return ['metadata:', `  name: ${name}`, ...(namespace === undefined ? [] : [`  namespace: ${namespace}`])];
}

function refsLines(spec: ComponentSpec): string[] {
  const refs = spec.refs;
  if (refs === undefined) return [];
  if (refs.length === 0) return ['  build-nudges-ref: []'];
  switch (spec.style) {
    case 'flow':
      return [`  build-nudges-ref: [${refs.join(', ')}]${spec.comment ? '  # flow' : ''}`];
    case 'quoted':
      return ['  build-nudges-ref:', ...refs.map((r, i) => `  - ${i % 2 === 0 ? `"${r}"` : `'${r}'`}`)];
    case 'indented':
      return ['  build-nudges-ref:', ...refs.map((r) => `    - ${r}`), ...(spec.comment ? ['    # - disabled'] : [])];
    case 'block':
      return ['  build-nudges-ref:', ...refs.map((r) => `  - ${r}${spec.comment ? ' # why' : ''}`)];
  }
}

function yamlOf(doc: DocSpec): string {
  switch (doc.kind) {
    case 'filler':
      return [
        '# untouched filler',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        `  name: filler-${String(doc.id)}`,
        'data: {k:   "v"}',
        '',
      ].join('\n');
    case 'component':
      return [
        ...(doc.comment ? ['# a Component'] : []),
        'apiVersion: appstudio.redhat.com/v1alpha1',
        'kind: Component',
        ...metadataLines(doc.name, doc.namespace),
        'spec:',
        ...(doc.extraKey || doc.refs === undefined ? [`  componentName: ${doc.name}`] : []),
        ...refsLines(doc),
        ...(doc.extraKey ? ['  application: shop   # app'] : []),
        '',
      ].join('\n');
    case 'nudge-config': {
      const entryText = (e: Entry) =>
        `{from: ${e.from}, to: ${e.to}${e.mode === undefined ? '' : `, mode: ${e.mode}`}}`;
      const entries =
        doc.entries.length === 0
          ? ['spec: {}']
          : doc.style === 'flow'
            ? ['spec:', `  nudges: [${doc.entries.map(entryText).join(', ')}]`]
            : [
                'spec:',
                '  nudges:',
                ...doc.entries.flatMap((e) => [
                  `  - from: ${e.from}`,
                  `    to: ${e.to}`,
                  ...(e.mode === undefined ? [] : [`    mode: ${e.mode}`]),
                ]),
              ];
      return [
        `apiVersion: ${doc.flavour === 'nudger' ? 'konflux-ci.dev/v1alpha1' : 'appstudio.redhat.com/v1beta2'}`,
        'kind: NudgeConfig',
        ...metadataLines(doc.name, doc.namespace),
        ...entries,
        '',
      ].join('\n');
    }
  }
}

function jsonOf(doc: DocSpec): string {
  const metadata = (name: string, namespace: string | undefined) => ({
    name,
    ...(namespace === undefined ? {} : { namespace }),
  });
  switch (doc.kind) {
    case 'filler':
      return `${JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `filler-${String(doc.id)}` } }, null, 2)}\n`;
    case 'component':
      return JSON.stringify(
        {
          apiVersion: 'appstudio.redhat.com/v1alpha1',
          kind: 'Component',
          metadata: metadata(doc.name, doc.namespace),
          spec: doc.refs === undefined ? { componentName: doc.name } : { 'build-nudges-ref': doc.refs },
        },
        null,
        doc.comment ? '\t' : 4,
      );
    case 'nudge-config':
      return `${JSON.stringify({
        apiVersion: doc.flavour === 'nudger' ? 'konflux-ci.dev/v1alpha1' : 'appstudio.redhat.com/v1beta2',
        kind: 'NudgeConfig',
        metadata: metadata(doc.name, doc.namespace),
        spec: { nudges: doc.entries },
      })}\n`;
  }
}

function render(tree: TreeSpec): SourceFile[] {
  const files = tree.files.map((file, index) => {
    const path = `${file.dir === '' ? '' : `${file.dir}/`}f${String(index)}.${file.json ? 'json' : 'yaml'}`;
    const text = file.json && file.docs[0] !== undefined ? jsonOf(file.docs[0]) : file.docs.map(yamlOf).join('---\n');
    return { path, text };
  });
  for (const dir of tree.kustomizations) {
    const listed = files.filter((f) => f.path.slice(0, f.path.lastIndexOf('/') + 1) === (dir === '' ? '' : `${dir}/`));
    files.push({
      path: `${dir === '' ? '' : `${dir}/`}kustomization.yaml`,
      text: `# kustomize\n${kustomizeNamespace(tree, dir) === undefined ? '' : `namespace: ${kustomizeNamespace(tree, dir) ?? ''}\n`}resources:\n${listed.map((f) => `- ${f.path.slice(f.path.lastIndexOf('/') + 1)}`).join('\n')}${listed.length > 0 ? '\n' : ''}`.replace(
        'resources:\n#',
        '#',
      ),
    });
  }
  return files;
}

function edgeKeys(
  set: ManifestSet,
  keep: (via: 'NudgeConfig' | 'build-nudges-ref', flavour: string | undefined) => boolean,
): Set<string> {
  const flavourOf = new Map(set.nudgeConfigs.map((config) => [config.ref, config.flavour]));
  const keys = new Set<string>();
  for (const graph of buildNudgeGraphs(set).values()) {
    for (const edge of graph.edges) {
      if (keep(edge.origin.via, flavourOf.get(edge.origin.object))) keys.add(edgeKey(edge));
    }
  }
  return keys;
}

function applied(files: readonly SourceFile[], changes: readonly { path: string; after: string }[]): SourceFile[] {
  const byPath = new Map(files.map((f) => [f.path, f.text]));
  for (const change of changes) byPath.set(change.path, change.after);
  return [...byPath].map(([path, text]) => ({ path, text }));
}

/**
 * The plan, with `--drop-invalid` when the plain run refuses (generated trees name unknown
 * components, nudge themselves and form cycles); undefined when even that refuses, which must
 * then be for a problem dropping cannot fix.
 */
function planOrRefusal(files: readonly SourceFile[]): MigrationResult | undefined {
  try {
    const result = planMigration(files);
    assert.deepEqual(result.dropped, [], 'nothing is dropped without dropInvalid');
    return result;
  } catch (error) {
    assert.ok(error instanceof MigrationRefusedError, String(error));
    assert.ok(error.offences.length > 0);
  }
  try {
    const result = planMigration(files, { dropInvalid: true });
    assert.ok(result.dropped.length > 0, 'a refusal that dropping fixes drops something');
    return result;
  } catch (error) {
    assert.ok(error instanceof MigrationRefusedError, String(error));
    assert.ok(
      error.offences.some((offence) => !offence.droppable),
      'with dropInvalid, only what cannot be dropped refuses',
    );
    return undefined;
  }
}

describe('planMigration properties (real parser and graph)', () => {
  it('loses no edge, invents none, leaves no source behind, and is idempotent', () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        const files = render(tree);
        const before = readSet(files);
        const result = planOrRefusal(files);
        if (result === undefined) return;
        const afterFiles = applied(files, result.changes);
        const after = readSet(afterFiles);

        // Every edge survives, except those dropInvalid dropped (each listed; a copy of one in a
        // NudgeConfig the migration does not write stays there), and none is invented.
        const dropped = new Set(result.dropped.map((edge) => edgeKey(edge)));
        const all = edgeKeys(before, () => true);
        const keysAfter = edgeKeys(after, (via) => via === 'NudgeConfig');
        for (const key of all) if (!dropped.has(key)) assert.ok(keysAfter.has(key), `${key} lost`);
        for (const key of keysAfter) assert.ok(all.has(key), `${key} invented`);

        // Every source is gone: no build-nudges-ref edges and no v1beta2 NudgeConfig left.
        assert.deepEqual(
          edgeKeys(after, (via) => via === 'build-nudges-ref'),
          new Set(),
        );
        assert.ok(after.nudgeConfigs.every((config) => config.flavour === 'nudger'));
        for (const file of afterFiles) assert.doesNotMatch(file.text, /^\s*-?\s*"?build-nudges-ref"?:/m, file.path);

        // `edges` counts the distinct edges that came from the sources being migrated.
        const migrated = edgeKeys(
          before,
          (via, flavour) => via === 'build-nudges-ref' || flavour === 'upstream-v1beta2',
        );
        assert.equal(result.edges, [...migrated].filter((key) => !dropped.has(key)).length);

        // No NudgeConfig ends up with a duplicate pair (the generated inputs have none).
        for (const config of after.nudgeConfigs) {
          const pairs = config.entries.map((e) => `${e.from}>${e.to}`);
          assert.equal(new Set(pairs).size, pairs.length, `duplicate entry in ${config.location.file}`);
        }

        // Documents the migration has no business with survive byte for byte.
        for (const file of files) {
          const fillers = file.text.split('---\n').filter((doc) => doc.startsWith('# untouched filler'));
          const now = afterFiles.find((f) => f.path === file.path)?.text ?? '';
          for (const filler of fillers) assert.ok(now.includes(filler), `${file.path} lost a filler document`);
        }

        const again = planMigration(afterFiles);
        assert.deepEqual(again.changes, []);
        assert.deepEqual(again.dropped, []);
        assert.equal(again.edges, 0);
      }),
      { numRuns: 200 },
    );
  });

  it('reports each rewritten Component once, sorted, and only files whose text changes', () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        const files = render(tree);
        const result = planOrRefusal(files);
        if (result === undefined) return;
        assert.deepEqual(result.componentsUpdated, [...new Set(result.componentsUpdated)].sort());
        const expected = tree.files.flatMap((file) =>
          file.docs
            .filter((doc): doc is ComponentSpec => doc.kind === 'component' && doc.refs !== undefined)
            .map((doc) => {
              const namespace = kustomizeNamespace(tree, file.dir) ?? doc.namespace;
              return namespace === undefined ? doc.name : `${namespace}/${doc.name}`;
            }),
        );
        assert.deepEqual(result.componentsUpdated, [...new Set(expected)].sort());
        const original = new Map(files.map((f) => [f.path, f.text]));
        for (const change of result.changes) {
          assert.equal(change.before, original.get(change.path));
          assert.notEqual(change.after, change.before);
        }
      }),
      { numRuns: 200 },
    );
  });
});
