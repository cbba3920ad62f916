// parseScenario: the documented format is accepted with its defaults filled in, and every kind of
// mistake is a ScenarioError that names file:line:column and the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { ScenarioError } from '../../src/sandbox/scenario/errors.ts';
import { checkScenarioDocument, parseScenario, resolveDefaults } from '../../src/sandbox/scenario/parse.ts';
import { repositoryPathProblem } from '../../src/sandbox/scenario/references.ts';
import { stepVerb, type ScenarioDocument } from '../../src/sandbox/scenario/schema.ts';

const HEX_A = 'a'.repeat(64);
const HEX_B = 'b'.repeat(64);

/** The issue's example, with real hex. */
const ISSUE_EXAMPLE = `namespace: my-tenant
components:
  - name: operand-a
    image: quay.io/org/operand-a        # spec.containerImage
    nudges: [bundle-x]                  # becomes NudgeConfig entries
  - name: bundle-x
    image: quay.io/org/bundle-x
    files:                              # initial repository content
      manifests/csv.yaml: |
        image: quay.io/org/operand-a@sha256:${HEX_A}
changeGroups:
  - name: bundle-x-update
    nudgedComponent: bundle-x           # nudgingComponents omitted = all
    skipCi: commitMessage
steps:                                  # played in order
  - build: operand-a
    digest: sha256:${HEX_B}
  - closePullRequest: bundle-x-update
  - wait: 2s
`;

/** Every step verb once, on a graph where all of them are valid. */
const ALL_STEPS = `namespace: t
components:
  - {name: a, image: quay.io/o/a, nudges: [x]}
  - {name: b, image: quay.io/o/b, nudges: [x]}
  - {name: x, image: quay.io/o/x}
changeGroups:
  - {name: g, nudgedComponent: x, nudgingComponents: [a, b], timeout: 1h30m, skipCi: description}
steps:
  - build: a
  - closePullRequest: g
  - mergePullRequest: g
  - humanCommit: g
    message: hand-made
    files: {NOTES.md: "hi\\n"}
  - tickRebase: g
  - tickBuildNow: g
  - removeNudgingComponent: {changeGroup: g, component: b}
  - wait: 5s
`;

function errorOf(text: string, file = 'scenario.yaml'): ScenarioError {
  try {
    parseScenario(text, file);
  } catch (error) {
    assert.ok(error instanceof ScenarioError, `expected a ScenarioError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the scenario to be refused');
}

describe('parseScenario: accepted scenarios', () => {
  it('reads the issue example and fills in the defaults', () => {
    const scenario = parseScenario(ISSUE_EXAMPLE, 'issue.yaml');
    assert.equal(scenario.namespace, 'my-tenant');
    assert.equal(scenario.application, 'my-tenant');
    assert.deepEqual(scenario.components[0], {
      name: 'operand-a',
      image: 'quay.io/org/operand-a',
      nudges: ['bundle-x'],
      gitRevision: 'main',
      simpleBranch: false,
    });
    assert.deepEqual(scenario.components[1]?.files, {
      'manifests/csv.yaml': `image: quay.io/org/operand-a@sha256:${HEX_A}\n`,
    });
    assert.deepEqual(scenario.components[1].nudges, []);
    assert.deepEqual(scenario.changeGroups, [
      { name: 'bundle-x-update', nudgedComponent: 'bundle-x', skipCi: 'commitMessage' },
    ]);
    assert.deepEqual(scenario.steps, [
      { build: 'operand-a', digest: `sha256:${HEX_B}` },
      { closePullRequest: 'bundle-x-update' },
      { wait: '2s' },
    ]);
  });

  it('accepts every step verb', () => {
    const scenario = parseScenario(ALL_STEPS, 'all.yaml');
    assert.deepEqual(scenario.steps.map(stepVerb), [
      'build',
      'closePullRequest',
      'mergePullRequest',
      'humanCommit',
      'tickRebase',
      'tickBuildNow',
      'removeNudgingComponent',
      'wait',
    ]);
  });

  it('reads JSON as well as YAML', () => {
    const json = JSON.stringify({ namespace: 'ns', components: [{ name: 'a', image: 'localhost:5000/a' }] });
    const scenario = parseScenario(json, 's.json');
    assert.deepEqual(scenario, {
      namespace: 'ns',
      application: 'ns',
      nudgedBy: 'nudger',
      components: [{ name: 'a', image: 'localhost:5000/a', nudges: [], gitRevision: 'main', simpleBranch: false }],
      changeGroups: [],
      componentGroups: [],
      steps: [],
      preMerge: false,
      forge: 'local',
    });
  });

  it('accepts image repositories the distribution grammar allows', () => {
    for (const image of ['a', 'quay.io/org/a', 'registry:5000/a/b', 'ghcr.io/o/a_b__c-d.e', 'x.y.z/a---b']) {
      const text = `namespace: ns\ncomponents:\n  - {name: a, image: "${image}"}\n`;
      assert.equal(parseScenario(text, 's.yaml').components[0]?.image, image);
    }
  });
});

describe('parseScenario: refused scenarios', () => {
  // [what, text, expected message (exact)]
  const base = `namespace: ns\ncomponents:\n  - name: a\n    image: quay.io/o/a\n    nudges: [x]\n  - name: x\n    image: quay.io/o/x\n`;
  const cases: [string, string, string][] = [
    [
      'a build of an undeclared component',
      `${base}steps:\n  - build: a\n  - build: nope\n`,
      's.yaml:10:5: steps[1].build: component "nope" is not declared',
    ],
    [
      'an image with a tag',
      'namespace: ns\ncomponents:\n  - name: a\n    image: quay.io/o/a:v1\n',
      's.yaml:4:5: components[0].image: "quay.io/o/a:v1" must be an image repository without tag or digest, e.g. quay.io/org/app',
    ],
    [
      'an image with a digest',
      `namespace: ns\ncomponents:\n  - name: a\n    image: quay.io/o/a@sha256:${HEX_A}\n`,
      `s.yaml:4:5: components[0].image: "quay.io/o/a@sha256:${HEX_A}" must be an image repository without tag or digest, e.g. quay.io/org/app`,
    ],
    [
      'a short digest',
      `${base}steps:\n  - build: a\n    digest: sha256:abc\n`,
      's.yaml:10:5: steps[0].digest: "sha256:abc" must be a digest sha256:<64 lower-case hex digits>',
    ],
    [
      'an upper-case namespace',
      'namespace: My-Tenant\ncomponents:\n  - {name: a, image: quay.io/o/a}\n',
      's.yaml:1:1: namespace: "My-Tenant" must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character',
    ],
    [
      'a misspelt field',
      'namespace: ns\ncomponents:\n  - name: a\n    image: quay.io/o/a\n    nudge: [b]\n',
      's.yaml:5:5: components[0].nudge: unknown field; did you mean `nudges`?',
    ],
    [
      'a misspelt step verb',
      `${base}steps:\n  - biuld: a\n`,
      's.yaml:9:5: steps[0].biuld: unknown step; did you mean `build`?',
    ],
    [
      'a step with two verbs',
      `${base}changeGroups:\n  - {name: g, nudgedComponent: x}\nsteps:\n  - build: a\n    tickRebase: g\n`,
      's.yaml:12:5: steps[0].tickRebase: a step does one thing: it has both build and tickRebase',
    ],
    [
      'a step that is not a mapping',
      `${base}steps:\n  - build\n`,
      's.yaml:9:5: steps[0]: must be a mapping with one of build, closePullRequest, mergePullRequest, humanCommit, tickRebase, tickBuildNow, removeNudgingComponent, wait, mergeNudgePullRequest, humanCommitOnNudge, snapshot, openPullRequest, pushToPullRequest, mergeNudgingPullRequest, closeNudgingPullRequest',
    ],
    [
      'removeNudgingComponent without its component',
      `${base}changeGroups:\n  - {name: g, nudgedComponent: x}\nsteps:\n  - removeNudgingComponent: {changeGroup: g}\n`,
      's.yaml:11:5: steps[0].removeNudgingComponent.component: required field is missing',
    ],
    [
      'a missing image',
      'namespace: ns\ncomponents:\n  - name: a\n',
      's.yaml:3:5: components[0].image: required field is missing',
    ],
    ['an empty component list', 'namespace: ns\ncomponents: []\n', 's.yaml:2:1: components: must not be empty'],
    [
      'a self-nudge',
      'namespace: ns\ncomponents:\n  - {name: a, image: i/a, nudges: [a]}\n',
      's.yaml:3:36: components[0].nudges[0]: a component cannot nudge itself',
    ],
    [
      'a nudge to an undeclared component',
      'namespace: ns\ncomponents:\n  - name: a\n    image: i/a\n    nudges:\n      - b\n',
      's.yaml:6:9: components[0].nudges[0]: component "b" is not declared',
    ],
    [
      'a nudge cycle',
      'namespace: ns\ncomponents:\n  - {name: a, image: i/a, nudges: [b]}\n  - {name: b, image: i/b, nudges: [c]}\n  - {name: c, image: i/c, nudges: [a]}\n',
      's.yaml:3:27: components[0].nudges: nudge cycle a -> b -> c -> a: builds would nudge each other for ever',
    ],
    [
      'a component declared twice',
      'namespace: ns\ncomponents:\n  - {name: a, image: i/a}\n  - {name: a, image: i/b}\n',
      's.yaml:4:6: components[1].name: component "a" is declared twice (first as components[0])',
    ],
    [
      'a ChangeGroup declared twice',
      `${base}changeGroups:\n  - {name: g, nudgedComponent: x}\n  - {name: g, nudgedComponent: x}\n`,
      's.yaml:10:6: changeGroups[1].name: ChangeGroup "g" is declared twice',
    ],
    [
      'a ChangeGroup on a component nobody nudges',
      `${base}changeGroups:\n  - name: g\n    nudgedComponent: a\n`,
      's.yaml:10:5: changeGroups[0].nudgedComponent: no component nudges "a": a ChangeGroup needs at least one nudging component',
    ],
    [
      'a ChangeGroup on an undeclared component',
      `${base}changeGroups:\n  - name: g\n    nudgedComponent: zz\n`,
      's.yaml:10:5: changeGroups[0].nudgedComponent: component "zz" is not declared',
    ],
    [
      'a nudging component that does not nudge the target',
      `namespace: ns\ncomponents:\n  - {name: a, image: i/a, nudges: [x]}\n  - {name: b, image: i/b}\n  - {name: x, image: i/x}\nchangeGroups:\n  - name: g\n    nudgedComponent: x\n    nudgingComponents: [a, b]\n`,
      's.yaml:9:28: changeGroups[0].nudgingComponents[1]: component "b" does not nudge "x"',
    ],
    [
      'the nudged component among the nudging ones',
      `${base}changeGroups:\n  - name: g\n    nudgedComponent: x\n    nudgingComponents: [x]\n`,
      's.yaml:11:25: changeGroups[0].nudgingComponents[0]: nudgedComponent cannot also be a nudging component',
    ],
    [
      'a step naming an undeclared ChangeGroup',
      `${base}steps:\n  - tickBuildNow: nope\n`,
      's.yaml:9:5: steps[0].tickBuildNow: ChangeGroup "nope" is not declared',
    ],
    [
      'removing a component the ChangeGroup does not collect',
      `namespace: ns\ncomponents:\n  - {name: a, image: i/a, nudges: [x]}\n  - {name: b, image: i/b, nudges: [x]}\n  - {name: x, image: i/x}\nchangeGroups:\n  - {name: g, nudgedComponent: x, nudgingComponents: [a]}\nsteps:\n  - removeNudgingComponent: {changeGroup: g, component: b}\n`,
      's.yaml:9:46: steps[0].removeNudgingComponent.component: "b" is not a nudging component of ChangeGroup "g"',
    ],
    ['a zero wait', `${base}steps:\n  - wait: 0s\n`, 's.yaml:9:5: steps[0].wait: must be longer than zero'],
    [
      'a wait without a unit',
      `${base}steps:\n  - wait: 2\n`,
      's.yaml:9:5: steps[0].wait: must be a string, found number 2',
    ],
    [
      'a wait in milliseconds',
      `${base}steps:\n  - wait: 500ms\n`,
      's.yaml:9:5: steps[0].wait: "500ms" must be a duration such as 30s, 2m or 1h30m',
    ],
    [
      'a zero timeout',
      `${base}changeGroups:\n  - name: g\n    nudgedComponent: x\n    timeout: 0h\n`,
      's.yaml:11:5: changeGroups[0].timeout: must be longer than zero',
    ],
    [
      'an unknown skipCi mode',
      `${base}changeGroups:\n  - name: g\n    nudgedComponent: x\n    skipCi: title\n`,
      's.yaml:11:5: changeGroups[0].skipCi: "title" must be one of commitMessage, description',
    ],
    [
      'a file path that climbs out of the repository',
      'namespace: ns\ncomponents:\n  - name: a\n    image: i/a\n    files:\n      ../etc/passwd: x\n',
      's.yaml:6:7: components[0].files["../etc/passwd"]: must not contain empty, "." or ".." path segments',
    ],
    [
      'a human commit writing into .git',
      `${base}changeGroups:\n  - {name: g, nudgedComponent: x}\nsteps:\n  - humanCommit: g\n    files: {.git/config: x}\n`,
      's.yaml:12:13: steps[0].files[".git/config"]: must not point into .git',
    ],
    [
      'an unquoted YAML 1.1 boolean where a name belongs',
      'namespace: no\ncomponents:\n  - {name: a, image: i/a}\n',
      's.yaml:1:1: namespace: must be a string, found boolean false',
    ],
    ['a top-level list', '- a\n- b\n', 's.yaml:1:1: (scenario): must be a mapping, found a list'],
    [
      'a second document',
      `${base}---\nnamespace: m\n`,
      's.yaml:9:1: (scenario): a scenario file holds one YAML document; found a second',
    ],
  ];
  for (const [what, text, expected] of cases) {
    it(`refuses ${what}`, () => {
      assert.equal(errorOf(text, 's.yaml').message, expected);
    });
  }

  it('reports malformed YAML with its position', () => {
    const error = errorOf('namespace: ns\ncomponents:\n  - name: [a\n', 'bad.yaml');
    assert.equal(error.file, 'bad.yaml');
    assert.equal(error.field, '(scenario)');
    assert.ok(error.line !== undefined && error.line >= 3, error.message);
    assert.match(error.message, /^bad\.yaml:\d+:\d+: \(scenario\): malformed YAML: /);
  });

  it('refuses an empty file without a line', () => {
    const error = errorOf('# nothing here\n', 'empty.yaml');
    assert.equal(error.message, 'empty.yaml: (scenario): the file holds no scenario');
    assert.equal(error.line, undefined);
  });

  it('carries the parts of the message as fields', () => {
    const error = errorOf(`namespace: ns\ncomponents:\n  - {name: a, image: i/a}\nsteps:\n  - build: b\n`, 'f.yaml');
    assert.deepEqual(
      { file: error.file, line: error.line, column: error.column, field: error.field, reason: error.reason },
      { file: 'f.yaml', line: 5, column: 5, field: 'steps[0].build', reason: 'component "b" is not declared' },
    );
  });
});

describe('checkScenarioDocument', () => {
  it('applies the same checks to a scenario built in code, naming its origin', () => {
    const doc = { namespace: 'ns', components: [{ name: 'a', image: 'i/a', nudges: ['b'] }] };
    assert.throws(
      () => checkScenarioDocument(doc, 'built-in'),
      (error: unknown) =>
        error instanceof ScenarioError &&
        error.message === 'built-in: components[0].nudges[0]: component "b" is not declared',
    );
  });
});

describe('repositoryPathProblem', () => {
  it('accepts ordinary relative paths and refuses escapes', () => {
    for (const ok of ['Dockerfile', 'a/b/c.yaml', '.tekton/push.yaml', 'a..b'])
      assert.equal(repositoryPathProblem(ok), undefined, ok);
    for (const bad of ['/etc', 'a//b', './a', 'a/../b', '..', '.git', '.git/hooks/x', 'a\\b'])
      assert.notEqual(repositoryPathProblem(bad), undefined, bad);
  });
});

describe('parseScenario: properties', () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
  /** Random DAGs (edges only from lower to higher index), every one a valid scenario. */
  const dagScenario = fc.uniqueArray(name, { minLength: 1, maxLength: 12 }).chain((names) =>
    fc
      .array(fc.tuple(fc.nat(names.length - 1), fc.nat(names.length - 1)), { maxLength: 30 })
      .map((pairs): ScenarioDocument => {
        const nudges = new Map<string, Set<string>>();
        for (const [i, j] of pairs) {
          if (i === j) continue;
          const [from, to] = [names[Math.min(i, j)]!, names[Math.max(i, j)]!];
          nudges.set(from, (nudges.get(from) ?? new Set()).add(to));
        }
        return {
          namespace: 'ns',
          components: names.map((n) => ({ name: n, image: `quay.io/org/${n}`, nudges: [...(nudges.get(n) ?? [])] })),
          steps: names.map((n) => ({ build: n })),
        };
      }),
  );

  it('reads back what was written, as YAML and as JSON', () => {
    fc.assert(
      fc.property(dagScenario, (doc) => {
        const expected = resolveDefaults(doc);
        assert.deepEqual(parseScenario(stringify(doc, { version: '1.1' }), 'p.yaml'), expected);
        assert.deepEqual(parseScenario(JSON.stringify(doc), 'p.json'), expected);
      }),
    );
  });

  it('finds a cycle as soon as one edge points back', () => {
    fc.assert(
      fc.property(
        dagScenario.filter((doc) => doc.components.some((c) => (c.nudges ?? []).length > 0)),
        (doc) => {
          const from = doc.components.find((c) => (c.nudges ?? []).length > 0)!;
          const to = doc.components.find((c) => c.name === from.nudges![0])!;
          const cyclic = {
            ...doc,
            components: doc.components.map((c) => (c === to ? { ...c, nudges: [...(c.nudges ?? []), from.name] } : c)),
          };
          assert.throws(() => parseScenario(JSON.stringify(cyclic), 'c.json'), /nudge cycle/);
        },
      ),
    );
  });
});
