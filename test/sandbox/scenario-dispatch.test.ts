// The scenario additions for nudger's dispatcher (issue 10, docs/sandbox.md): who nudges, the
// executor, Renovate ConfigMaps, simple branches, build-nudge-files, failed builds and the steps on
// nudge pull requests are read with their defaults, refused with an error naming the field, and
// become the objects the dispatcher reads; the dispatcher's done-marker becomes `nudges`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateComponentManifest, validateNudgeConfigManifest } from '../../src/domain/schema-validation.ts';
import { nudgeBranch } from '../../src/domain/nudge/pull-request-text.ts';
import { ScenarioError } from '../../src/sandbox/scenario/errors.ts';
import {
  dispatchSettled,
  MarkerReadError,
  nudgesOfBuild,
  type ObservedBuild,
} from '../../src/sandbox/scenario/nudges.ts';
import { EXECUTOR_ANNOTATION } from '../../src/controllers/dispatch/inputs.ts';
import {
  componentRenovateConfigMapName,
  scenarioObjects,
  withoutChangeGroups,
} from '../../src/sandbox/scenario/objects.ts';
import { parseScenario } from '../../src/sandbox/scenario/parse.ts';
import { sandboxResultProblems } from '../../src/sandbox/scenario/result.ts';
import { stepVerb } from '../../src/sandbox/scenario/schema.ts';

const DIGEST = `sha256:${'d'.repeat(64)}`;

const DISPATCH = `namespace: tenant
executor: renovate
renovateConfig:
  labels: "deps, nudge"
  fileMatch: ".*Dockerfile.*"
components:
  - {name: op-a, image: quay.io/o/op-a, nudges: [bundle], simpleBranch: true}
  - {name: op-b, image: quay.io/o/op-b, nudges: [bundle]}
  - name: bundle
    image: quay.io/o/bundle
    renovateConfig: {automerge: "true", commitMessagePrefix: "chore(deps):"}
steps:
  - build: op-a
    nudgeFiles: ".*Dockerfile.*, manifests/.*\\\\.yaml"
  - {build: op-b, succeeded: false}
  - mergeNudgePullRequest: {from: op-a, to: bundle}
  - humanCommitOnNudge: {from: op-b, to: bundle}
    files: {NOTES.md: "by hand\\n"}
    message: a human was here
`;

function errorOf(text: string): string {
  try {
    parseScenario(text, 's.yaml');
  } catch (error) {
    assert.ok(error instanceof ScenarioError, String(error));
    return error.message;
  }
  return assert.fail('expected the scenario to be refused');
}

describe('parseScenario: dispatch additions', () => {
  it('reads who nudges, the executor, ConfigMaps, simple branches and the new step fields', () => {
    const scenario = parseScenario(DISPATCH, 'dispatch.yaml');
    assert.equal(scenario.nudgedBy, 'nudger');
    assert.equal(scenario.executor, 'renovate');
    assert.deepEqual(scenario.renovateConfig, { labels: 'deps, nudge', fileMatch: '.*Dockerfile.*' });
    assert.deepEqual(
      scenario.components.map((c) => [c.name, c.simpleBranch, c.renovateConfig]),
      [
        ['op-a', true, undefined],
        ['op-b', false, undefined],
        ['bundle', false, { automerge: 'true', commitMessagePrefix: 'chore(deps):' }],
      ],
    );
    assert.deepEqual(scenario.steps.map(stepVerb), ['build', 'build', 'mergeNudgePullRequest', 'humanCommitOnNudge']);
    assert.deepEqual(scenario.steps[0], { build: 'op-a', nudgeFiles: '.*Dockerfile.*, manifests/.*\\.yaml' });
    assert.deepEqual(scenario.steps[1], { build: 'op-b', succeeded: false });
  });

  it('defaults to nudger dispatching, with no executor annotation and no ConfigMap', () => {
    const scenario = parseScenario('namespace: t\ncomponents: [{name: a, image: quay.io/o/a}]\n', 's.yaml');
    assert.equal(scenario.nudgedBy, 'nudger');
    assert.equal(scenario.executor, undefined);
    assert.equal(scenario.renovateConfig, undefined);
    const asBuildService = parseScenario(
      'namespace: t\nnudgedBy: build-service\ncomponents: [{name: a, image: quay.io/o/a}]\n',
      's.yaml',
    );
    assert.equal(asBuildService.nudgedBy, 'build-service');
  });

  const base =
    'namespace: ns\ncomponents:\n  - {name: a, image: quay.io/o/a, nudges: [x]}\n  - {name: x, image: quay.io/o/x}\n';
  const cases: [string, string, string][] = [
    [
      'an unknown nudgedBy',
      `nudgedBy: tekton\n${base}`,
      's.yaml:1:1: nudgedBy: "tekton" must be one of nudger, build-service',
    ],
    ['an unknown executor', `executor: argo\n${base}`, 's.yaml:1:1: executor: "argo" must be one of direct, renovate'],
    [
      'an executor while build-service nudges',
      `nudgedBy: build-service\nexecutor: direct\n${base}`,
      's.yaml:2:1: executor: applies to nudgedBy: nudger only; with build-service, its own Renovate PipelineRun nudges',
    ],
    [
      'a ConfigMap value that is not a string',
      `renovateConfig: {automerge: true}\n${base}`,
      's.yaml:1:18: renovateConfig.automerge: must be a string, found boolean true',
    ],
    [
      'a ConfigMap key the API server refuses',
      `renovateConfig: {"file match": ".*"}\n${base}`,
      's.yaml:1:18: renovateConfig["file match"]: must be a ConfigMap key: at most 253 letters, digits, "-", "_" and "."',
    ],
    [
      'a per-component ConfigMap on a component nothing nudges',
      'namespace: ns\ncomponents:\n  - {name: a, image: quay.io/o/a, renovateConfig: {labels: x}}\n',
      's.yaml:3:35: components[0].renovateConfig: no component nudges "a": a nudge reads the ConfigMap of the nudged component',
    ],
    [
      'a simple branch on a component that nudges nothing',
      `${base}  - {name: z, image: quay.io/o/z, simpleBranch: true}\n`,
      's.yaml:5:35: components[2].simpleBranch: "z" nudges nothing: a nudge reads simpleBranch on the nudging component',
    ],
    [
      'simpleBranch that is not a boolean',
      'namespace: ns\ncomponents:\n  - {name: a, image: quay.io/o/a, simpleBranch: "true"}\n',
      's.yaml:3:35: components[0].simpleBranch: must be a boolean, found the string "true"',
    ],
    [
      'nudgeFiles with a bad regex',
      `${base}steps:\n  - build: a\n    nudgeFiles: ".*Dockerfile.*, ([a-z"\n`,
      's.yaml:7:5: steps[0].nudgeFiles: fileMatch pattern "([a-z" is not a valid regular expression: Invalid regular expression: /([a-z/: Unterminated character class',
    ],
    [
      'nudgeFiles naming no regex',
      `${base}steps:\n  - build: a\n    nudgeFiles: " , "\n`,
      's.yaml:7:5: steps[0].nudgeFiles: must name at least one regex, e.g. ".*Dockerfile.*, .*.yaml"',
    ],
    [
      'succeeded that is not a boolean',
      `${base}steps:\n  - {build: a, succeeded: "no"}\n`,
      's.yaml:6:16: steps[0].succeeded: must be a boolean, found the string "no"',
    ],
    [
      'a nudge step without its target',
      `${base}steps:\n  - mergeNudgePullRequest: {from: a}\n`,
      's.yaml:6:5: steps[0].mergeNudgePullRequest.to: required field is missing',
    ],
    [
      'a nudge step naming an undeclared component',
      `${base}steps:\n  - humanCommitOnNudge: {from: b, to: x}\n`,
      's.yaml:6:26: steps[0].humanCommitOnNudge.from: component "b" is not declared',
    ],
    [
      'a nudge step on an edge the scenario does not have',
      `${base}steps:\n  - mergeNudgePullRequest: {from: x, to: a}\n`,
      's.yaml:6:38: steps[0].mergeNudgePullRequest.to: component "x" does not nudge "a": there is no nudge pull request to act on',
    ],
    [
      'a human commit on a nudge with a file outside the repository',
      `${base}steps:\n  - humanCommitOnNudge: {from: a, to: x}\n    files: {../x: "y"}\n`,
      's.yaml:7:13: steps[0].files["../x"]: must not contain empty, "." or ".." path segments',
    ],
    [
      'a misspelt nudge step',
      `${base}steps:\n  - mergeNudgePullReqest: {from: a, to: x}\n`,
      's.yaml:6:5: steps[0].mergeNudgePullReqest: unknown step; did you mean `mergeNudgePullRequest`?',
    ],
  ];
  for (const [what, text, expected] of cases) {
    it(`refuses ${what}`, () => {
      assert.equal(errorOf(text), expected);
    });
  }
});

describe('scenarioObjects: dispatch additions', () => {
  const scenario = parseScenario(DISPATCH, 'dispatch.yaml');
  const objects = scenarioObjects(scenario, { repoUrl: (c) => `http://127.0.0.1:9/${c}.git` });

  it('writes the executor as the NudgeConfig annotation, and none when the scenario names none', () => {
    assert.deepEqual(objects.nudgeConfig.metadata.annotations, { [EXECUTOR_ANNOTATION]: 'renovate' });
    assert.deepEqual(validateNudgeConfigManifest(objects.nudgeConfig, 'nudger'), []);
    const plain = scenarioObjects({ ...scenario, executor: undefined }, { repoUrl: () => 'x' });
    assert.equal(plain.nudgeConfig.metadata.annotations, undefined);
  });

  it('makes the namespace-wide ConfigMap and a per-component one named by the nudged Component', () => {
    assert.deepEqual(objects.configMaps, [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'namespace-wide-nudging-renovate-config', namespace: 'tenant' },
        data: { labels: 'deps, nudge', fileMatch: '.*Dockerfile.*' },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'bundle-nudge-renovate-config', namespace: 'tenant' },
        data: { automerge: 'true', commitMessagePrefix: 'chore(deps):' },
      },
    ]);
    assert.equal(componentRenovateConfigMapName('bundle'), 'bundle-nudge-renovate-config');
  });

  it('annotates only the Components the scenario asks for', () => {
    for (const component of objects.components) assert.deepEqual(validateComponentManifest(component), []);
    assert.deepEqual(
      objects.components.map((c) => [c.metadata.name, c.metadata.annotations]),
      [
        ['op-a', { 'build.appstudio.openshift.io/build-nudge-simple-branch': 'true' }],
        ['op-b', undefined],
        ['bundle', { 'build.appstudio.openshift.io/nudge_renovate_config_map': 'bundle-nudge-renovate-config' }],
      ],
    );
  });

  it('keeps the steps on nudge pull requests when ChangeGroups are left out', () => {
    assert.deepEqual(withoutChangeGroups(scenario).steps.map(stepVerb), [
      'build',
      'build',
      'mergeNudgePullRequest',
      'humanCommitOnNudge',
    ]);
  });
});

describe('nudges from the done-marker', () => {
  const observed = (marker: string | undefined, overrides: Partial<ObservedBuild> = {}): ObservedBuild => ({
    build: 'op-a-on-push-x1',
    component: 'op-a',
    digest: DIGEST,
    targets: ['bundle', 'docs', 'other', 'tool'],
    marker,
    ...overrides,
  });
  const url = (from: string, to: string): string | null =>
    to === 'bundle' ? `file:///forge/${to}/${nudgeBranch(to, from, false)}` : null;

  it('gives one nudge per final entry, with the pull request, the ChangeGroup or the reason', () => {
    const nudges = nudgesOfBuild(
      observed(
        'v1 bundle=pullRequest docs=held:docs-update other=failed:forge-unavailable tool=skipped:target-not-found',
      ),
      'direct',
      url,
    );
    assert.deepEqual(sandboxResultProblems({ changeGroups: [], builds: {}, files: {}, pullRequests: [], nudges }), []);
    const common = {
      build: 'op-a-on-push-x1',
      from: 'op-a',
      digest: DIGEST,
      executor: 'direct',
      mode: 'immediate',
      event: 'push',
      snapshot: null,
    };
    assert.deepEqual(nudges, [
      {
        ...common,
        to: 'bundle',
        outcome: 'pullRequest',
        pullRequest: 'file:///forge/bundle/konflux/component-updates/bundle-component-update-op-a',
        heldBy: null,
      },
      { ...common, to: 'docs', outcome: 'held', pullRequest: null, heldBy: 'docs-update' },
      { ...common, to: 'other', outcome: 'failed', reason: 'forge-unavailable', pullRequest: null, heldBy: null },
      { ...common, to: 'tool', outcome: 'skipped', reason: 'target-not-found', pullRequest: null, heldBy: null },
    ]);
  });

  it('spreads a skipped build over every target, and reports nothing without a marker', () => {
    const nudges = nudgesOfBuild(
      observed('v1 *=skipped:not-succeeded', { digest: null, targets: ['b', 'a'] }),
      'renovate',
      url,
    );
    assert.deepEqual(
      nudges.map((n) => [n.to, n.outcome, n.reason, n.digest, n.executor]),
      [
        ['a', 'skipped', 'not-succeeded', null, 'renovate'],
        ['b', 'skipped', 'not-succeeded', null, 'renovate'],
      ],
    );
    assert.deepEqual(nudgesOfBuild(observed(undefined), 'direct', url), []);
  });

  it('leaves out entries still in flight, and refuses a marker the dispatcher cannot read', () => {
    const nudges = nudgesOfBuild(observed('v1 bundle=firing:1:20260101T000000Z docs=pullRequest'), 'direct', url);
    assert.deepEqual(
      nudges.map((n) => n.to),
      ['docs'],
    );
    assert.throws(
      () => nudgesOfBuild(observed('v2 bundle=pullRequest'), 'direct', url),
      (error: unknown) =>
        error instanceof MarkerReadError && error.message.includes('op-a-on-push-x1: starts with "v2"'),
    );
  });

  it('calls a build settled only when every target is final or the build is skipped as a whole', () => {
    const targets = ['bundle', 'docs'];
    assert.equal(dispatchSettled('b', targets, undefined), false);
    assert.equal(dispatchSettled('b', targets, 'v1 bundle=pullRequest'), false, 'docs not named yet');
    assert.equal(dispatchSettled('b', targets, 'v1 bundle=pullRequest docs=retry:1:20260101T000100Z:x'), false);
    assert.equal(dispatchSettled('b', targets, 'v1 bundle=pullRequest docs=held:g'), true);
    assert.equal(dispatchSettled('b', targets, 'v1 *=skipped:not-succeeded'), true);
    assert.throws(() => dispatchSettled('b', targets, 'v1 bundle=opened'), MarkerReadError);
  });
});
