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
};

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
      comparison: { nudgedComponent: 'bundle-x', withChangeGroups: { builds: 1 }, withoutChangeGroups: { builds: 30 } },
    };
    assert.deepEqual(sandboxResultProblems(withComparison), []);
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

  it('ends the default run with the side-by-side figure', () => {
    const text = renderResultText({
      changeGroups: [],
      builds: {},
      files: {},
      comparison: {
        nudgedComponent: 'stellar-operator-bundle',
        withChangeGroups: { builds: 1 },
        withoutChangeGroups: { builds: 32 },
      },
    });
    assert.equal(
      text,
      'No ChangeGroups.\n\nBuilds started by Pipelines-as-Code:\n  none\n\nBuilds of stellar-operator-bundle: 1 with ChangeGroups vs 32 without\n',
    );
  });
});
