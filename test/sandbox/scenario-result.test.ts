// The `--output json` contract and its text rendering.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderResultText, sandboxResultProblems, type SandboxResult } from '../../src/sandbox/scenario/result.ts';

const DIGEST = `sha256:${'c'.repeat(64)}`;

const RESULT: SandboxResult = {
  changeGroups: [
    {
      name: 'bundle-x-update',
      phase: 'Waiting',
      pullRequest: {
        url: 'http://127.0.0.1:4000/org/bundle-x/pull/1',
        state: 'open',
        draft: true,
        headCommitMessage: 'chore(deps): update 1 of 2 images [skip ci]\n\nbody text',
      },
      components: [
        { name: 'operand-a', state: 'Ready', newBuild: DIGEST },
        { name: 'operand-b', state: 'Waiting', newBuild: null },
      ],
    },
    { name: 'other', phase: null, pullRequest: null, components: [] },
  ],
  builds: { 'operand-a': 1, 'bundle-x': 0 },
  files: { 'bundle-x': { 'manifests/csv.yaml': `image: quay.io/org/operand-a@${DIGEST}\n` } },
  pullRequests: [
    {
      repository: 'bundle-x',
      url: 'http://127.0.0.1:4000/org/bundle-x/pull/1',
      branch: 'konflux/changegroup/bundle-x-update',
      title: 'chore(deps): update 1 of 2 images',
      state: 'open',
      draft: true,
      labels: [],
      group: null,
      headCommitMessage: 'chore(deps): update 1 of 2 images [skip ci]\n\nbody text',
      commits: 1,
    },
  ],
  nudges: [],
};

const NUDGES: SandboxResult['nudges'] = [
  {
    build: 'operand-a-on-push-abcde',
    from: 'operand-a',
    to: 'bundle-x',
    digest: DIGEST,
    executor: 'direct',
    mode: 'immediate',
    event: 'push',
    snapshot: null,
    outcome: 'pullRequest',
    pullRequest: 'http://127.0.0.1:4000/org/bundle-x/pull/2',
    heldBy: null,
  },
  {
    build: 'operand-b-on-push-fghij',
    from: 'operand-b',
    to: 'bundle-x',
    digest: DIGEST,
    executor: 'direct',
    mode: 'immediate',
    event: 'push',
    snapshot: null,
    outcome: 'held',
    pullRequest: null,
    heldBy: 'bundle-x-update',
  },
  {
    build: 'operand-b-on-push-klmno',
    from: 'operand-b',
    to: 'bundle-x',
    digest: null,
    executor: 'direct',
    mode: 'immediate',
    event: 'push',
    snapshot: null,
    outcome: 'skipped',
    reason: 'not-succeeded',
    pullRequest: null,
    heldBy: null,
  },
  {
    build: 'operand-c-on-push-pqrst',
    from: 'operand-c',
    to: 'bundle-x',
    digest: DIGEST,
    executor: 'renovate',
    mode: 'immediate',
    event: 'push',
    snapshot: null,
    outcome: 'failed',
    reason: 'forge-unavailable',
    pullRequest: null,
    heldBy: null,
  },
];

describe('SandboxResult', () => {
  it('accepts the documented shape, with null for absent values', () => {
    assert.deepEqual(sandboxResultProblems(RESULT), []);
    assert.deepEqual(sandboxResultProblems(JSON.parse(JSON.stringify(RESULT))), []);
  });

  it('refuses missing keys, unknown keys and wrong values', () => {
    const { files: _files, ...withoutFiles } = RESULT;
    assert.deepEqual(sandboxResultProblems(withoutFiles), ["/: must have required property 'files'"]);
    assert.notDeepEqual(sandboxResultProblems({ ...RESULT, extra: 1 }), []);
    assert.notDeepEqual(sandboxResultProblems({ ...RESULT, builds: { a: -1 } }), []);
    const badGroup = { ...RESULT.changeGroups[1], phase: 'Done' };
    assert.notDeepEqual(sandboxResultProblems({ ...RESULT, changeGroups: [badGroup] }), []);
    const badComponent = { name: 'a', state: 'Ready' }; // newBuild must be present, if null
    assert.notDeepEqual(
      sandboxResultProblems({ ...RESULT, changeGroups: [{ ...RESULT.changeGroups[1], components: [badComponent] }] }),
      [],
    );
  });

  it('accepts the comparison of the default run', () => {
    const withComparison = {
      ...RESULT,
      comparison: {
        nudgedComponent: 'bundle-x',
        withChangeGroups: { builds: 1 },
        withoutChangeGroups: { builds: 30 },
        nudgerDirect: { builds: 1, pullRequests: 1 },
      },
    };
    assert.deepEqual(sandboxResultProblems(withComparison), []);
    const { nudgerDirect: _direct, ...withoutThird } = withComparison.comparison;
    assert.deepEqual(sandboxResultProblems({ ...RESULT, comparison: withoutThird }), [
      "/comparison: must have required property 'nudgerDirect'",
    ]);
  });

  it('accepts every pull request and nudge outcome, and refuses what breaks the contract', () => {
    assert.deepEqual(sandboxResultProblems({ ...RESULT, nudges: NUDGES }), []);
    const { pullRequests: _prs, ...withoutPullRequests } = RESULT;
    assert.deepEqual(sandboxResultProblems(withoutPullRequests), ["/: must have required property 'pullRequests'"]);
    const pr = RESULT.pullRequests[0]!;
    const { labels: _labels, ...unlabelled } = pr;
    for (const bad of [
      unlabelled,
      { ...pr, state: 'draft' },
      { ...pr, commits: -1 },
      { ...pr, repository: 'Bundle' },
    ]) {
      assert.notDeepEqual(sandboxResultProblems({ ...RESULT, pullRequests: [bad] }), [], JSON.stringify(bad));
    }
    const nudge = NUDGES[0]!;
    const { heldBy: _heldBy, ...withoutHeldBy } = nudge;
    for (const bad of [
      withoutHeldBy,
      { ...nudge, outcome: 'holding' },
      { ...nudge, executor: 'tekton' },
      { ...nudge, digest: 'sha256:short' },
      { ...nudge, pullRequest: undefined },
    ]) {
      assert.notDeepEqual(sandboxResultProblems({ ...RESULT, nudges: [bad] }), [], JSON.stringify(bad));
    }
  });
});

describe('renderResultText', () => {
  it('summarises each ChangeGroup, its pull request and the builds', () => {
    assert.equal(
      renderResultText(RESULT),
      [
        'ChangeGroup bundle-x-update: Waiting, 1/2 ready',
        '  pull request: http://127.0.0.1:4000/org/bundle-x/pull/1 (open, draft)',
        '  head commit: chore(deps): update 1 of 2 images [skip ci]',
        '  waiting for: operand-b',
        '',
        'ChangeGroup other: (no phase yet), 0/0 ready',
        '  pull request: none',
        '',
        'Builds started by Pipelines-as-Code:',
        '  operand-a  1',
        '  (1 other component: 0)',
        '',
      ].join('\n'),
    );
  });

  it('ends the default run with the side-by-side figures', () => {
    const text = renderResultText({
      changeGroups: [],
      builds: {},
      files: {},
      pullRequests: [],
      nudges: [],
      comparison: {
        nudgedComponent: 'stellar-operator-bundle',
        withChangeGroups: { builds: 1 },
        withoutChangeGroups: { builds: 32 },
        nudgerDirect: { builds: 1, pullRequests: 1 },
      },
    });
    assert.equal(
      text,
      'No ChangeGroups.\n\nBuilds started by Pipelines-as-Code:\n  none\n\n' +
        'Builds of stellar-operator-bundle: 1 with ChangeGroups vs 32 without\n' +
        'With nudger dispatching directly (ChangeGroups on): 1 build of stellar-operator-bundle, 1 pull request\n',
    );
  });

  it('lists the pull requests no ChangeGroup shows: the nudges', () => {
    const nudge = {
      ...RESULT.pullRequests[0]!,
      url: 'http://127.0.0.1:4000/org/bundle-x/pull/2',
      branch: 'konflux/component-updates/bundle-x-component-update-operand-a',
      title: 'Update operand-a to ccccccc',
      state: 'merged' as const,
      draft: false,
      commits: 0,
    };
    const withGroupPr = {
      ...RESULT,
      changeGroups: [RESULT.changeGroups[0]!],
      pullRequests: [{ ...RESULT.pullRequests[0]!, url: RESULT.changeGroups[0]!.pullRequest!.url }, nudge],
    };
    assert.match(
      renderResultText(withGroupPr),
      /\n\nOther pull requests:\n {2}bundle-x konflux\/component-updates\/bundle-x-component-update-operand-a \(merged, 0 commits\): Update operand-a to ccccccc\n$/,
    );
    assert.doesNotMatch(
      renderResultText({ ...withGroupPr, pullRequests: withGroupPr.pullRequests.slice(0, 1) }),
      /Other/,
    );
  });

  it("counts nudger's nudges by outcome and names each failed one", () => {
    const text = renderResultText({ ...RESULT, changeGroups: [], nudges: NUDGES });
    assert.match(
      text,
      /\nNudges dispatched by nudger: 1 pullRequest, 1 held, 1 failed, 1 skipped\n {2}operand-c -> bundle-x \(build operand-c-on-push-pqrst\): failed, forge-unavailable\n$/,
    );
  });
});
