// The scenario's pre-merge parts (docs/sandbox.md "Pre-merge nudges", docs/decisions.md D11, N33):
// `preMerge`, `forge`, a component's `repository` (monorepo) and `pathChanged`, and the four steps
// on a human's pull request; what they become (the NudgeConfig annotation, one repository for a
// monorepo with its `.tekton/` pull-request PipelineRuns, read back as N33 reads them); and every
// refusal, naming the field and its line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PRE_MERGE_ANNOTATION } from '../../src/controllers/dispatch/pre-merge-inputs.ts';
import { readPathChanged } from '../../src/domain/monorepo/path-changed.ts';
import { componentPipelineRuns } from '../../src/domain/monorepo/tekton-pipelineruns.ts';
import { ScenarioError } from '../../src/sandbox/scenario/errors.ts';
import { scenarioObjects } from '../../src/sandbox/scenario/objects.ts';
import { parseScenario } from '../../src/sandbox/scenario/parse.ts';
import { stepVerb } from '../../src/sandbox/scenario/schema.ts';
import { pullRequestCelExpression } from '../../src/sandbox/scenario/tekton-files.ts';

const MONOREPO = `namespace: olm
preMerge: true
forge: local
components:
  - name: operand
    image: quay.io/org/operand
    nudges: [bundle]
    pathChanged: ["operand/***", "go.mod"]
  - name: bundle
    image: quay.io/org/bundle
    repository: operand
    pathChanged: ["bundle/***"]
steps:
  - openPullRequest: { component: operand, branch: feature-1234 }
  - pushToPullRequest: { component: operand, branch: feature-1234, files: { operand/main.go: "package main\\n" } }
  - mergeNudgingPullRequest: { component: operand, branch: feature-1234 }
  - openPullRequest: { component: operand, branch: feature-1234 }
  - closeNudgingPullRequest: { component: operand, branch: feature-1234 }
`;

function errorOf(text: string): string {
  try {
    parseScenario(text, 's.yaml');
  } catch (error) {
    assert.ok(error instanceof ScenarioError, `expected a ScenarioError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('expected the scenario to be refused');
}

const repoUrl = (component: string): string => `file:///forge/olm/${component}`;

describe('scenario: pre-merge nudges and monorepos', () => {
  it('reads preMerge, forge, repository, pathChanged and the pull-request steps', () => {
    const scenario = parseScenario(MONOREPO, 's.yaml');
    assert.equal(scenario.preMerge, true);
    assert.equal(scenario.forge, 'local');
    assert.deepEqual(
      scenario.components.map((c) => [c.name, c.repository, c.pathChanged]),
      [
        ['operand', undefined, ['operand/***', 'go.mod']],
        ['bundle', 'operand', ['bundle/***']],
      ],
    );
    assert.deepEqual(scenario.steps.map(stepVerb), [
      'openPullRequest',
      'pushToPullRequest',
      'mergeNudgingPullRequest',
      'openPullRequest',
      'closeNudgingPullRequest',
    ]);
    const defaults = parseScenario('namespace: ns\ncomponents: [{name: a, image: quay.io/o/a}]\n', 's.yaml');
    assert.equal(defaults.preMerge, false);
    assert.equal(defaults.forge, 'local');
  });

  it('opts the NudgeConfig in, and makes one repository of a monorepo with its .tekton/ PipelineRuns', () => {
    const objects = scenarioObjects(parseScenario(MONOREPO, 's.yaml'), { repoUrl });
    assert.equal(objects.nudgeConfig.metadata.annotations?.[PRE_MERGE_ANNOTATION], 'true');
    assert.deepEqual(
      objects.components.map((c) => [c.metadata.name, c.spec.source.git.url]),
      [
        ['operand', repoUrl('operand')],
        ['bundle', repoUrl('operand')],
      ],
    );
    assert.equal(objects.repositories.length, 1);
    const repository = objects.repositories[0];
    assert.ok(repository !== undefined);
    assert.deepEqual(repository.components, ['operand', 'bundle']);
    const files = repository.files;
    assert.deepEqual(Object.keys(files).sort(), [
      '.tekton/bundle-pull-request.yaml',
      '.tekton/operand-pull-request.yaml',
      'Dockerfile',
      'README.md',
      'bundle/Dockerfile',
      'bundle/README.md',
    ]);
    assert.match(files['bundle/Dockerfile'] ?? '', /^FROM quay\.io\/org\/operand@sha256:/);
    // Read back as nudger reads a repository's .tekton/ directory (N33).
    const tekton = new Map(Object.entries(files).filter(([path]) => path.startsWith('.tekton/')));
    const operand = componentPipelineRuns(tekton, 'operand', 'pull_request');
    assert.deepEqual(operand.problems, []);
    assert.deepEqual(
      operand.pipelineRuns.map((run) => [run.file, run.matchedBy, run.pathChanged]),
      [['.tekton/operand-pull-request.yaml', 'label', { globs: ['operand/***', 'go.mod'], understood: true }]],
    );
    assert.deepEqual(componentPipelineRuns(tekton, 'bundle', 'pull_request').pipelineRuns[0]?.pathChanged.globs, [
      'bundle/***',
    ]);
  });

  it('writes the on-cel-expression as Konflux does', () => {
    const expression = pullRequestCelExpression('main', ['a/***', 'b']);
    assert.equal(
      expression,
      'event == "pull_request" && target_branch == "main" && ("a/***".pathChanged() || "b".pathChanged())',
    );
    assert.deepEqual(readPathChanged(expression), { globs: ['a/***', 'b'], understood: true });
  });

  it('leaves the NudgeConfig without the annotation when preMerge is off', () => {
    const objects = scenarioObjects(
      parseScenario('namespace: ns\ncomponents: [{name: a, image: quay.io/o/a}]\n', 's.yaml'),
      { repoUrl },
    );
    assert.equal(objects.nudgeConfig.metadata.annotations, undefined);
  });
});

const COMPONENTS = `components:
  - { name: operand, image: quay.io/org/operand, nudges: [bundle] }
  - { name: bundle, image: quay.io/org/bundle }
`;

describe('scenario: forge', () => {
  it('plays github and gitlab (the emulators, docs/decisions.md N37) as well as local', () => {
    for (const forge of ['github', 'gitlab'] as const) {
      const scenario = parseScenario(MONOREPO.replace('forge: local', `forge: ${forge}`), 's.yaml');
      assert.equal(scenario.forge, forge);
    }
    assert.equal(parseScenario(`namespace: ns\n${COMPONENTS}`, 's.yaml').forge, 'local');
  });
});

describe('scenario: pre-merge refusals', () => {
  const cases: [string, string, string][] = [
    [
      "build-service's Renovate on the GitLab emulator (Renovate's stand-in plays the local forge only)",
      `namespace: ns\nforge: gitlab\nnudgedBy: build-service\n${COMPONENTS}`,
      "s.yaml:3:1: nudgedBy: build-service's Renovate runs are played on forge: local only, not on forge: gitlab",
    ],
    [
      'the renovate executor on the GitHub emulator',
      `namespace: ns\nforge: github\nexecutor: renovate\n${COMPONENTS}`,
      "s.yaml:3:1: executor: the renovate executor's runs are played on forge: local only, not on forge: github; use executor: direct",
    ],
    [
      'an unknown forge',
      `namespace: ns\nforge: gitea\n${COMPONENTS}`,
      's.yaml:2:1: forge: "gitea" must be one of local, github, gitlab',
    ],
    [
      'preMerge with build-service',
      `namespace: ns\nnudgedBy: build-service\npreMerge: true\n${COMPONENTS}`,
      's.yaml:3:1: preMerge: applies to nudgedBy: nudger only; build-service makes no pre-merge nudges',
    ],
    [
      'a repository naming an undeclared component',
      'namespace: ns\ncomponents:\n  - { name: a, image: quay.io/o/a, repository: b }\n',
      's.yaml:3:36: components[0].repository: component "b" is not declared',
    ],
    [
      'a repository naming the component itself',
      'namespace: ns\ncomponents:\n  - { name: a, image: quay.io/o/a, repository: a }\n',
      's.yaml:3:36: components[0].repository: names the component itself; leave it out',
    ],
    [
      'a repository chain',
      'namespace: ns\ncomponents:\n  - { name: a, image: quay.io/o/a }\n  - { name: b, image: quay.io/o/b, repository: a }\n  - { name: c, image: quay.io/o/c, repository: b }\n',
      's.yaml:5:36: components[2].repository: "b" lives in the repository of "a" itself; name "a"',
    ],
    [
      'components of one repository tracking two branches',
      'namespace: ns\ncomponents:\n  - { name: a, image: quay.io/o/a }\n  - { name: b, image: quay.io/o/b, repository: a, gitRevision: release }\n',
      's.yaml:4:51: components[1].gitRevision: "release" differs from "a"\'s "main": components of one repository track one branch here',
    ],
    [
      'two components of one repository writing the same file',
      'namespace: ns\ncomponents:\n  - { name: a, image: quay.io/o/a, files: { x: "1" } }\n  - { name: b, image: quay.io/o/b, repository: a, files: { x: "2" } }\n',
      's.yaml:4:60: components[1].files.x: "a" writes this file into the same repository too',
    ],
    [
      'a glob with a quote',
      "namespace: ns\ncomponents:\n  - { name: a, image: quay.io/o/a, pathChanged: ['a\"b'] }\n",
      's.yaml:3:50: components[0].pathChanged[0]: "a\\"b" must be a glob without `"`, `\\` or line breaks (it is quoted into CEL)',
    ],
    [
      'a glob PaC would not compile',
      'namespace: ns\ncomponents:\n  - { name: a, image: quay.io/o/a, pathChanged: ["a/[b"] }\n',
      's.yaml:3:50: components[0].pathChanged[0]: glob "a/[b": unclosed [; Pipelines-as-Code would not compile it',
    ],
    [
      'an empty pathChanged',
      'namespace: ns\ncomponents:\n  - { name: a, image: quay.io/o/a, pathChanged: [] }\n',
      's.yaml:3:36: components[0].pathChanged: must not be empty',
    ],
    [
      'a pull-request step without preMerge',
      `namespace: ns\n${COMPONENTS}steps:\n  - openPullRequest: { component: operand, branch: f }\n`,
      's.yaml:6:5: steps[0].openPullRequest: pre-merge nudges are off: set `preMerge: true` at the top of the scenario',
    ],
    [
      'a pull-request step on an undeclared component',
      `namespace: ns\npreMerge: true\n${COMPONENTS}steps:\n  - openPullRequest: { component: x, branch: f }\n`,
      's.yaml:7:24: steps[0].openPullRequest.component: component "x" is not declared',
    ],
    [
      'a pull request of a component that nudges nothing',
      `namespace: ns\npreMerge: true\n${COMPONENTS}steps:\n  - openPullRequest: { component: bundle, branch: f }\n`,
      's.yaml:7:24: steps[0].openPullRequest.component: "bundle" nudges nothing immediately: its pull request would make no pre-merge nudge',
    ],
    [
      'a pull request from main',
      `namespace: ns\npreMerge: true\n${COMPONENTS}steps:\n  - openPullRequest: { component: operand, branch: main }\n`,
      's.yaml:7:44: steps[0].openPullRequest.branch: "main" makes no PR group: use a feature branch such as feature-1234 (the group is the branch up to its first @; never main or master)',
    ],
    [
      'a push before the pull request is opened',
      `namespace: ns\npreMerge: true\n${COMPONENTS}steps:\n  - pushToPullRequest: { component: operand, branch: f }\n`,
      "s.yaml:7:46: steps[0].pushToPullRequest.branch: no step before opens a pull request from f on operand's repository; open it with openPullRequest first",
    ],
    [
      'a merge of a closed pull request',
      `namespace: ns\npreMerge: true\n${COMPONENTS}steps:\n  - openPullRequest: { component: operand, branch: f }\n  - closeNudgingPullRequest: { component: operand, branch: f }\n  - mergeNudgingPullRequest: { component: operand, branch: f }\n`,
      "s.yaml:9:52: steps[2].mergeNudgingPullRequest.branch: a pull request from f on operand's repository is closed by an earlier step",
    ],
    [
      'a second open of an open pull request',
      `namespace: ns\npreMerge: true\n${COMPONENTS}steps:\n  - openPullRequest: { component: operand, branch: f }\n  - openPullRequest: { component: operand, branch: f }\n`,
      "s.yaml:8:44: steps[1].openPullRequest.branch: a pull request from f on operand's repository is open already",
    ],
    [
      'a step file outside the repository',
      `namespace: ns\npreMerge: true\n${COMPONENTS}steps:\n  - openPullRequest: { component: operand, branch: f, files: { ../x: "z" } }\n`,
      's.yaml:7:64: steps[0].openPullRequest.files["../x"]: must not contain empty, "." or ".." path segments',
    ],
    [
      'an unknown field of a pull-request step',
      `namespace: ns\npreMerge: true\n${COMPONENTS}steps:\n  - mergeNudgingPullRequest: { component: operand, branch: f, files: {} }\n`,
      's.yaml:7:63: steps[0].mergeNudgingPullRequest.files: unknown field (known: component, branch)',
    ],
  ];
  for (const [what, text, expected] of cases) {
    it(`refuses ${what}`, () => {
      assert.equal(errorOf(text), expected);
    });
  }
});
