// The default scenario comes from examples/olm-operator as it is on disk, and the synthetic one
// scales it: both must be valid scenarios whose builds each have something to rewrite.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { rewriteDigests, splitFileMatch } from '../../src/domain/digest-rewrite/index.ts';
import {
  buildSteps,
  mulberry32,
  olmOperatorScenario,
  syntheticScenario,
  type OlmOperatorFiles,
} from '../../src/sandbox/scenario/default.ts';
import { DEFAULT_EXAMPLE_DIR, loadDefaultScenario, readOlmOperatorFiles } from '../../src/sandbox/scenario/load.ts';
import { syntheticDigest } from '../../src/sandbox/scenario/objects.ts';
import type { Scenario } from '../../src/sandbox/scenario/schema.ts';

const BUNDLE = 'stellar-operator-bundle';
const builds = (scenario: Scenario): string[] =>
  scenario.steps.flatMap((step) => ('build' in step ? [step.build] : []));
const fileMatch = splitFileMatch('bundle-hack/update_bundle.sh, .*Dockerfile.*, .*.yaml'); // renovate-config.yaml

describe('the default scenario (examples/olm-operator)', async () => {
  const files = await readOlmOperatorFiles(DEFAULT_EXAMPLE_DIR);
  const scenario = olmOperatorScenario(files);

  it('has the 31 Components of the example, 30 of them nudging the bundle', () => {
    assert.equal(scenario.namespace, 'stellar-tenant');
    assert.equal(scenario.application, 'stellar');
    assert.equal(scenario.components.length, 31);
    const nudging = scenario.components.filter((c) => c.nudges.length > 0);
    assert.equal(nudging.length, 30);
    assert.ok(nudging.every((c) => c.nudges.length === 1 && c.nudges[0] === BUNDLE));
    assert.equal(
      scenario.components.find((c) => c.name === 'stellar-api-server')?.image,
      'quay.io/redhat-user-workloads/stellar-tenant/stellar-api-server',
    );
  });

  it("gives the bundle bundle-repo/'s files and one ChangeGroup collecting every operand", () => {
    const bundle = scenario.components.find((c) => c.name === BUNDLE);
    assert.deepEqual(bundle?.files, files.bundleRepository);
    assert.ok(Object.hasOwn(files.bundleRepository, 'bundle/manifests/stellar-operator.clusterserviceversion.yaml'));
    assert.deepEqual(scenario.changeGroups, [{ name: `${BUNDLE}-update`, nudgedComponent: BUNDLE }]);
  });

  it('builds every operand once and two of them again, before the last first build', () => {
    const order = builds(scenario);
    assert.equal(order.length, 32);
    const counts = new Map<string, number>();
    for (const name of order) counts.set(name, (counts.get(name) ?? 0) + 1);
    assert.equal(counts.size, 30);
    assert.equal([...counts.values()].filter((n) => n === 2).length, 2);
    assert.equal(counts.get(order[order.length - 1]!), 1, 'the last build is a first build');
    const digests = scenario.steps.map((step) => ('digest' in step ? step.digest : undefined));
    assert.equal(new Set(digests).size, 32, 'every build has its own digest');
  });

  it('is reproducible for a seed and shuffled differently by another', async () => {
    assert.deepEqual(await loadDefaultScenario(), scenario);
    assert.notDeepEqual(builds(olmOperatorScenario(files, { seed: 2 })), builds(scenario));
    assert.equal(builds(olmOperatorScenario(files, { rebuilds: 0 })).length, 30);
  });

  it('references every operand in the bundle repository, so each nudge changes it', () => {
    const repoFiles = Object.entries(files.bundleRepository).map(([path, text]) => ({ path, text }));
    const updates = scenario.components
      .filter((c) => c.nudges.length > 0)
      .map((c) => ({ repository: c.image, digest: syntheticDigest(c.name) }));
    assert.deepEqual(rewriteDigests(repoFiles, updates, fileMatch).unreferenced, []);
  });
});

describe('olmOperatorScenario on in-memory files', () => {
  const component = (name: string): string =>
    `apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata: {name: ${name}}\nspec: {application: demo, containerImage: quay.io/d/${name}}\n`;
  const files: OlmOperatorFiles = {
    kustomization: {
      path: 'kustomization.yaml',
      text: 'namespace: demo-tenant\nresources: [c.yaml, nudge-config.yaml]\n',
    },
    manifests: [
      { path: 'c.yaml', text: `${component('op')}---\n${component('bundle')}---\nkind: ConfigMap\napiVersion: v1\n` },
      {
        path: 'nudge-config.yaml',
        text: 'apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata: {name: nudge-config}\nspec:\n  nudges:\n    - {from: op, to: bundle}\n',
      },
    ],
    bundleRepository: { Dockerfile: 'FROM quay.io/d/op@sha256:' + '0'.repeat(64) + '\n' },
  };

  it('reads the namespace, components, edges and bundle files from the texts alone', () => {
    const scenario = olmOperatorScenario(files);
    assert.equal(scenario.namespace, 'demo-tenant');
    assert.deepEqual(
      scenario.components.map((c) => [c.name, c.nudges, c.files]),
      [
        ['bundle', [], files.bundleRepository],
        ['op', ['bundle'], undefined],
      ],
    );
    assert.deepEqual(builds(scenario), ['op']);
  });
});

describe('syntheticScenario', () => {
  it('makes n operands nudging one bundle whose CSV pins all of them', () => {
    const scenario = syntheticScenario(12, 7);
    assert.equal(scenario.components.length, 13);
    const bundle = scenario.components.find((c) => c.name === 'bundle')!;
    const operands = scenario.components.filter((c) => c.name !== 'bundle');
    assert.ok(operands.every((c) => c.nudges[0] === 'bundle'));
    const csv = bundle.files?.['manifests/csv.yaml'] ?? '';
    const result = rewriteDigests(
      [{ path: 'manifests/csv.yaml', text: csv }],
      operands.map((c) => ({ repository: c.image, digest: syntheticDigest(c.name) })),
      ['.*.yaml'],
    );
    assert.deepEqual(result.unreferenced, []);
    assert.deepEqual(builds(scenario).sort(), operands.map((c) => c.name).sort());
    assert.deepEqual(scenario.changeGroups, [{ name: 'bundle-update', nudgedComponent: 'bundle' }]);
  });

  it('is a function of (n, seed)', () => {
    assert.deepEqual(syntheticScenario(20, 3), syntheticScenario(20, 3));
    assert.notDeepEqual(builds(syntheticScenario(20, 3)), builds(syntheticScenario(20, 4)));
  });

  it('refuses sizes a ChangeGroup cannot hold', () => {
    for (const n of [0, -1, 1.5, 251]) assert.throws(() => syntheticScenario(n, 1), RangeError);
    assert.equal(syntheticScenario(250, 1).components.length, 251);
  });
});

describe('buildSteps', () => {
  it('builds every name once plus `rebuilds` distinct earlier ones, never after the last first build', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 20 }),
        fc.integer(),
        fc.nat(5),
        (names, seed, rebuilds) => {
          const order = buildSteps(names, seed, rebuilds).map((s) => s.build);
          assert.deepEqual([...new Set(order)].sort(), [...names].sort());
          assert.equal(order.length, names.length + Math.min(rebuilds, names.length - 1));
          const last = order[order.length - 1]!;
          assert.equal(order.indexOf(last), order.length - 1);
        },
      ),
    );
  });

  it('mulberry32 yields numbers in [0, 1), the same for the same seed', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    for (let i = 0; i < 100; i += 1) {
      const x = a();
      assert.ok(x >= 0 && x < 1);
      assert.equal(x, b());
    }
  });
});
