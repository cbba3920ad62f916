// The pure decisions of a monorepo nudge at run time (docs/decisions.md D11, N36): which changed
// files the synthetic commit copies, its message, the nudge-loop warnings and their stamps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NudgeInputError } from '../../../src/domain/nudge/errors.ts';
import {
  nudgeLoopStampsOf,
  nudgeLoopWarnings,
  syntheticCommitMessage,
  syntheticCopy,
  withNudgeLoopStamps,
} from '../../../src/domain/monorepo/monorepo-nudge.ts';
import { readPathChanged } from '../../../src/domain/monorepo/path-changed.ts';
import type { TektonPipelineRun } from '../../../src/domain/monorepo/tekton-pipelineruns.ts';

const run = (file: string, cel: string | undefined): TektonPipelineRun => ({
  file,
  name: file.slice('.tekton/'.length, -'.yaml'.length),
  matchedBy: 'label',
  pathChanged: readPathChanged(cel),
});
const changed = [
  { path: 'operator/main.go', deleted: false },
  { path: 'bundle/old.yaml', deleted: true },
  { path: 'bundle/manifests/csv.yaml', deleted: false },
];
const AUTHOR = 'red-hat-konflux <123456+red-hat-konflux[bot]@users.noreply.github.com>';

describe('syntheticCopy', () => {
  it('keeps the changed files a pull-request PipelineRun reacts to, in path order', () => {
    const copy = syntheticCopy(changed, [run('.tekton/bundle-pull-request.yaml', '"bundle/***".pathChanged()')]);
    assert.deepEqual(
      copy.files.map((f) => f.path),
      ['bundle/manifests/csv.yaml', 'bundle/old.yaml'],
    );
    assert.deepEqual(copy.notUnderstood, []);
    assert.deepEqual(syntheticCopy(changed, [run('.tekton/b.yaml', '"docs/***".pathChanged()')]).files, []);
  });

  it('reads no PipelineRun and no expression as every file, and a not-understood one as every file, named', () => {
    assert.equal(syntheticCopy(changed, []).files.length, 3);
    assert.equal(syntheticCopy(changed, [run('.tekton/b.yaml', undefined)]).files.length, 3);
    const unknown = run('.tekton/b.yaml', '!"docs/***".pathChanged()');
    const copy = syntheticCopy(changed, [unknown]);
    assert.equal(copy.files.length, 3);
    assert.deepEqual(copy.notUnderstood, [unknown]);
  });
});

describe('syntheticCommitMessage', () => {
  const input = {
    component: 'operator',
    number: 12,
    url: 'https://github.com/acme/mono/pull/12',
    headSha: 'a'.repeat(40),
    nudged: 'bundle',
    files: changed.slice(1),
    gitAuthor: AUTHOR,
  };

  it('names the PR, its head and each file, deleted ones marked', () => {
    const message = syntheticCommitMessage(input);
    assert.ok(message.startsWith('Copy the changes of operator #12 that bundle builds from\n\n'), message);
    assert.ok(message.includes(`https://github.com/acme/mono/pull/12 at ${'a'.repeat(40)} changed`));
    assert.ok(message.includes('- bundle/old.yaml (deleted)\n- bundle/manifests/csv.yaml\n'), message);
    assert.ok(message.endsWith(`Signed-off-by: ${AUTHOR}`));
  });

  it('refuses what it cannot quote', () => {
    for (const bad of [
      { headSha: 'abc' },
      { url: 'javascript:alert(1)' },
      { number: 0 },
      { files: [] },
      { files: [{ path: 'a\nb', deleted: false }] },
      { component: 'Not A Name' },
    ]) {
      assert.throws(() => syntheticCommitMessage({ ...input, ...bad }), NudgeInputError, JSON.stringify(bad));
    }
  });
});

describe('nudge-loop warnings and stamps', () => {
  const push = run(
    '.tekton/operator-push.yaml',
    '"operator/***".pathChanged() || "bundle/manifests/***".pathChanged()',
  );

  it('warns per push PipelineRun the changed files start, naming files and expression', () => {
    const [warning, ...rest] = nudgeLoopWarnings('operator', 'bundle', [push], ['bundle/manifests/csv.yaml']);
    assert.deepEqual(rest, []);
    assert.ok(warning !== undefined);
    assert.match(warning.fingerprint, /^[0-9a-f]{16}$/);
    assert.ok(
      warning.message.startsWith(
        'operator nudges bundle in the same repository: bundle/manifests/csv.yaml matches "bundle/manifests/***".pathChanged() of operator\'s push PipelineRun .tekton/operator-push.yaml (operator-push)',
      ),
      warning.message,
    );
    assert.ok(warning.comment.includes(warning.message));
    assert.deepEqual(nudgeLoopWarnings('operator', 'bundle', [push], ['Dockerfile']), []);
    const mayLoop = nudgeLoopWarnings(
      'operator',
      'bundle',
      [run('.tekton/p.yaml', '!"x".pathChanged()')],
      ['Dockerfile'],
    );
    assert.ok(mayLoop[0]?.comment.includes('may rebuild'));
  });

  it('stamps each fingerprint once and reads them back', () => {
    const body = withNudgeLoopStamps('text', ['0123456789abcdef']);
    assert.equal(body, 'text\n\n<!-- nudger-nudge-loop warned=0123456789abcdef -->');
    assert.equal(withNudgeLoopStamps(body, ['0123456789abcdef']), body);
    const two = withNudgeLoopStamps(body, ['0123456789abcdef', 'fedcba9876543210']);
    assert.deepEqual([...nudgeLoopStampsOf(two)].sort(), ['0123456789abcdef', 'fedcba9876543210']);
    assert.deepEqual([...nudgeLoopStampsOf(undefined)], []);
    assert.throws(() => withNudgeLoopStamps('x', ['--> <b>']), NudgeInputError);
  });
});
