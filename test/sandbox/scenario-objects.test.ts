// scenarioObjects: the objects and repositories a scenario becomes pass the project's own schema
// checks, carry what the scenario says, and give every nudge something to rewrite.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { DEFAULT_NUDGE_FILES, rewriteDigests } from '../../src/domain/digest-rewrite/index.ts';
import { CHANGE_GROUP_API_VERSION, ChangeGroup } from '../../src/schema/changegroup.ts';
import { KUBERNETES_SCHEMA_EXTENSIONS } from '../../src/schema/common.ts';
import { validateComponentManifest, validateNudgeConfigManifest } from '../../src/domain/schema-validation.ts';
import {
  generatedFiles,
  initialDigest,
  scenarioObjects,
  syntheticDigest,
  withoutChangeGroups,
} from '../../src/sandbox/scenario/objects.ts';
import { parseScenario } from '../../src/sandbox/scenario/parse.ts';

const SCENARIO = parseScenario(
  `namespace: my-tenant
application: app
components:
  - {name: operand-a, image: quay.io/org/operand-a, nudges: [bundle-x]}
  - {name: operand-b, image: quay.io/org/operand-b, nudges: [bundle-x], gitRevision: devel}
  - name: bundle-x
    image: quay.io/org/bundle-x
  - name: docs
    image: quay.io/org/docs
    files: {README.md: "hand-written\\n"}
changeGroups:
  - {name: all, nudgedComponent: bundle-x}
  - {name: some, nudgedComponent: bundle-x, nudgingComponents: [operand-b], timeout: 2h, skipCi: description}
steps:
  - build: operand-a
  - tickBuildNow: all
  - wait: 1s
  - closePullRequest: some
  - build: operand-b
`,
  'objects.yaml',
);
const repoUrl = (component: string): string => `http://127.0.0.1:9999/git/${component}.git`;
const objects = scenarioObjects(SCENARIO, { repoUrl });

describe('scenarioObjects', () => {
  it('makes one Component per scenario component, valid for the reader and pointing at its repository', () => {
    assert.equal(objects.components.length, 4);
    for (const component of objects.components) assert.deepEqual(validateComponentManifest(component), []);
    assert.deepEqual(objects.components[1], {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'Component',
      metadata: { name: 'operand-b', namespace: 'my-tenant' },
      spec: {
        componentName: 'operand-b',
        application: 'app',
        containerImage: 'quay.io/org/operand-b',
        source: { git: { url: 'http://127.0.0.1:9999/git/operand-b.git', revision: 'devel' } },
      },
    });
  });

  it('puts every nudge into the namespace NudgeConfig singleton', () => {
    assert.deepEqual(validateNudgeConfigManifest(objects.nudgeConfig, 'nudger'), []);
    assert.equal(objects.nudgeConfig.metadata.name, 'nudge-config');
    assert.equal(objects.nudgeConfig.metadata.namespace, 'my-tenant');
    assert.deepEqual(objects.nudgeConfig.spec?.nudges, [
      { from: 'operand-a', to: 'bundle-x', mode: 'immediate' },
      { from: 'operand-b', to: 'bundle-x', mode: 'immediate' },
    ]);
  });

  it('makes ChangeGroups that the CRD schema accepts, with only the fields the scenario set', () => {
    const ajv = new Ajv({ strict: true, validateFormats: false });
    ajv.addVocabulary([...KUBERNETES_SCHEMA_EXTENSIONS]);
    const validate = ajv.compile(ChangeGroup);
    for (const group of objects.changeGroups) assert.ok(validate(group), JSON.stringify(validate.errors));
    assert.deepEqual(
      objects.changeGroups.map((g) => [g.apiVersion, g.metadata.name, g.metadata.namespace, g.spec]),
      [
        [CHANGE_GROUP_API_VERSION, 'all', 'my-tenant', { nudgedComponent: 'bundle-x' }],
        [
          CHANGE_GROUP_API_VERSION,
          'some',
          'my-tenant',
          {
            nudgedComponent: 'bundle-x',
            nudgingComponents: [{ name: 'operand-b' }],
            timeout: '2h',
            skipCi: 'description',
          },
        ],
      ],
    );
  });

  it('seeds each repository on its branch, with the given files or generated ones', () => {
    assert.deepEqual(
      objects.repositories.map((r) => [r.component, r.url, r.branch]),
      SCENARIO.components.map((c) => [c.name, repoUrl(c.name), c.name === 'operand-b' ? 'devel' : 'main']),
    );
    assert.deepEqual(objects.repositories[3]?.files, { 'README.md': 'hand-written\n' });
    assert.deepEqual(Object.keys(objects.repositories[0]?.files ?? {}).sort(), ['Dockerfile', 'README.md']);
  });

  it('gives a nudged component without files a Dockerfile each nudge rewrites', () => {
    const bundle = objects.repositories.find((r) => r.component === 'bundle-x')!;
    const files = Object.entries(bundle.files).map(([path, text]) => ({ path, text }));
    const updates = ['operand-a', 'operand-b'].map((name) => ({
      repository: `quay.io/org/${name}`,
      digest: syntheticDigest(`test ${name}`),
    }));
    const result = rewriteDigests(files, updates, DEFAULT_NUDGE_FILES.split(', '));
    assert.deepEqual(result.unreferenced, []);
    assert.equal(result.changes[0]?.replacements.length, 2);
    assert.ok(bundle.files.Dockerfile?.includes(`quay.io/org/operand-a@${initialDigest('quay.io/org/operand-a')}`));
  });

  it('generates a plain Dockerfile for a component nothing nudges', () => {
    const files = generatedFiles(
      { name: 'solo', image: 'quay.io/o/solo', nudges: [], gitRevision: 'main', simpleBranch: false },
      [],
    );
    assert.doesNotMatch(files.Dockerfile ?? '', /@sha256:/);
    assert.match(files['README.md'] ?? '', /quay\.io\/o\/solo/);
  });
});

describe('syntheticDigest', () => {
  it('is a valid digest, stable for a seed and different across seeds', () => {
    assert.match(syntheticDigest('x'), /^sha256:[0-9a-f]{64}$/);
    assert.equal(syntheticDigest('x'), syntheticDigest('x'));
    assert.notEqual(syntheticDigest('x'), syntheticDigest('y'));
  });
});

describe('withoutChangeGroups', () => {
  it('drops ChangeGroups and the steps acting on them, keeping builds and waits in order', () => {
    const plain = withoutChangeGroups(SCENARIO);
    assert.deepEqual(plain.changeGroups, []);
    assert.deepEqual(plain.steps, [{ build: 'operand-a' }, { wait: '1s' }, { build: 'operand-b' }]);
    assert.deepEqual(plain.components, SCENARIO.components);
    assert.equal(scenarioObjects(plain, { repoUrl }).changeGroups.length, 0);
  });
});
