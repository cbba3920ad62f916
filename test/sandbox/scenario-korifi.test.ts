// Korifi scenarios (src/sandbox/scenario/korifi.ts, docs/sandbox.md "Korifi scenarios"): the
// documented form is accepted with its defaults, needs no components, and every mistake is one
// ScenarioError naming file:line:column and the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScenarioError } from '../../src/sandbox/scenario/errors.ts';
import { parseScenario } from '../../src/sandbox/scenario/parse.ts';
import { updateBothBuildpack } from '../../src/sandbox/scenario/korifi.ts';

const VALID = `namespace: cf-space
korifi:
  clusterBuilder:
    stack: io.buildpacks.stacks.jammy
    buildpacks: [paketo-buildpacks/nodejs, paketo-buildpacks/go]
  apps:
    - name: app_a
    - name: app-b
      lifecycle: {buildpacks: [paketo-buildpacks/go]}
steps:
  - stage: {app: app_a}
  - stage: {app: app-b, lifecycle: {buildpacks: [paketo-buildpacks/java], stack: io.buildpacks.stacks.noble}}
  - updateStack: {id: io.buildpacks.stacks.noble}
  - updateBuildpack: {name: paketo-buildpacks/go}
  - updateBoth: {}
  - wait: 1s
`;

function errorOf(text: string): ScenarioError {
  try {
    parseScenario(text, 'cf.yaml');
  } catch (error) {
    assert.ok(error instanceof ScenarioError, String(error));
    return error;
  }
  assert.fail('the scenario was accepted');
}

/** VALID with `from` replaced by `to`: one mistake each. */
const mistake = (from: string, to: string): string => {
  assert.ok(VALID.includes(from), from);
  return VALID.replace(from, to);
};

describe('Korifi scenarios', () => {
  it('accepts the documented form without components, its steps kept apart', () => {
    const scenario = parseScenario(VALID, 'cf.yaml');
    assert.equal(scenario.namespace, 'cf-space');
    assert.deepEqual(scenario.components, []);
    assert.deepEqual(scenario.steps, []);
    const { korifi } = scenario;
    assert.ok(korifi !== undefined);
    assert.equal(korifi.apps.length, 2);
    assert.deepEqual(korifi.apps[1]?.lifecycle, { buildpacks: ['paketo-buildpacks/go'] });
    assert.equal(korifi.steps.length, 6);
    assert.deepEqual(korifi.steps[0], { stage: { app: 'app_a' } });
    // updateBoth without a buildpack updates the ClusterBuilder's first.
    assert.equal(updateBothBuildpack(korifi, {}), 'paketo-buildpacks/nodejs');
    assert.equal(updateBothBuildpack(korifi, { buildpack: 'x' }), 'x');
  });

  const cases: [string, string, string, RegExp][] = [
    [
      'components beside korifi',
      'steps:\n',
      'components: [{name: a, image: quay.io/o/a}]\nsteps:\n',
      /^cf\.yaml:\d+:1: components: unknown field \(known: namespace, korifi, steps\)$/,
    ],
    [
      'a stage of an app not declared',
      'stage: {app: app_a}',
      'stage: {app: app-z}',
      /^cf\.yaml:11:13: steps\[0\]\.stage\.app: app "app-z" is not declared$/,
    ],
    [
      'an app declared twice',
      '    - name: app-b\n',
      '    - name: app_a\n',
      /^cf\.yaml:8:7: korifi\.apps\[1\]\.name: app "app_a" is declared twice \(first as korifi\.apps\[0\]\)$/,
    ],
    ['an app name CF refuses', 'name: app_a', 'name: app.a', /korifi\.apps\[0\]\.name: "app\.a" must be a CF app name/],
    [
      'a buildpack update the store cannot take',
      '{name: paketo-buildpacks/go}',
      '{name: paketo-buildpacks/ruby}',
      /steps\[3\]\.updateBuildpack\.name: buildpack "paketo-buildpacks\/ruby" is not in korifi\.clusterBuilder\.buildpacks/,
    ],
    [
      'updateBoth naming a buildpack the store lacks',
      'updateBoth: {}',
      'updateBoth: {buildpack: nope}',
      /steps\[4\]\.updateBoth\.buildpack: buildpack "nope" is not in/,
    ],
    [
      'a misspelt step',
      'updateStack: {id',
      'updateStak: {id',
      /steps\[2\]\.updateStak: unknown step; did you mean `updateStack`\?$/,
    ],
    [
      'a Konflux step',
      '  - wait: 1s\n',
      '  - build: a\n',
      /steps\[5\]: must be a mapping with one of stage, updateStack, updateBuildpack, updateBoth, wait$/,
    ],
    [
      'an unknown step field',
      'stage: {app: app_a}',
      'stage: {app: app_a, buildpacks: []}',
      /steps\[0\]\.stage\.buildpacks: unknown field; did you mean `lifecycle`\?|steps\[0\]\.stage\.buildpacks: unknown field/,
    ],
    [
      'a missing clusterBuilder',
      '  clusterBuilder:\n    stack: io.buildpacks.stacks.jammy\n    buildpacks: [paketo-buildpacks/nodejs, paketo-buildpacks/go]\n',
      '',
      /korifi\.clusterBuilder: required field is missing$/,
    ],
    [
      'no apps',
      '  apps:\n    - name: app_a\n    - name: app-b\n      lifecycle: {buildpacks: [paketo-buildpacks/go]}\n',
      '  apps: []\n',
      /korifi\.apps: must not be empty$/,
    ],
    [
      'an empty lifecycle buildpack list',
      'lifecycle: {buildpacks: [paketo-buildpacks/go]}',
      'lifecycle: {buildpacks: []}',
      /korifi\.apps\[1\]\.lifecycle\.buildpacks: must not be empty$/,
    ],
    [
      'a buildpack id with a blank',
      '[paketo-buildpacks/java]',
      '["paketo buildpacks/java"]',
      /steps\[1\]\.stage\.lifecycle\.buildpacks\[0\]: "paketo buildpacks\/java" must be an id without blanks/,
    ],
    ['a zero wait', 'wait: 1s', 'wait: 0s', /steps\[5\]\.wait: must be longer than zero$/],
    [
      'a buildpack listed twice in the store',
      '[paketo-buildpacks/nodejs, paketo-buildpacks/go]',
      '[paketo-buildpacks/go, paketo-buildpacks/go]',
      /korifi\.clusterBuilder\.buildpacks\[1\]: "paketo-buildpacks\/go" is listed twice$/,
    ],
  ];
  for (const [name, from, to, expected] of cases) {
    it(`refuses ${name}, naming the field`, () => {
      assert.match(errorOf(mistake(from, to)).message, expected);
    });
  }

  it('refuses a korifi key that is not a mapping', () => {
    assert.match(
      errorOf('namespace: s\nkorifi: yes\n').message,
      /^cf\.yaml:2:\d+: korifi: must be a mapping, found boolean true$/,
    );
  });
});
