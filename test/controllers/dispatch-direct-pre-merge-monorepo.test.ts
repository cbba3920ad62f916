// The `direct` executor's pre-merge nudges in a monorepo, against the local forge with real git
// (docs/decisions.md D11, N33, N36): components `operator` and `bundle` in one repository, bundle's
// `.tekton/bundle-pull-request.yaml` reacting to `"bundle/***".pathChanged()`. The nudge PR's first
// commit copies what operator's PR changed under bundle/ (and nothing else), the digest commit sits
// on it; a PR changing only operator/ gets no copy; an expression nudger does not understand copies
// everything and says so; and files that start operator's own push build are a nudge-loop warning:
// a notice every fire, a PR comment once.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { NudgeRequest, PreMergeNudgeRequest } from '../../src/controllers/dispatch/executor.ts';
import { MONOREPO_NOTICE_REASONS } from '../../src/controllers/dispatch/direct/monorepo.ts';
import { git, removeTempDirs } from '../adapters/git/helpers.ts';
import { BATCH_FILES, PASS_1, VALIDATED_BRANCH, batchRequest, imageOf } from './dispatch-direct-batch-fixture.ts';
import {
  BRANCH,
  BUILD_1,
  BUILD_2,
  BUNDLE_FILES,
  NUDGING,
  OLD_DIGEST,
  digestOf,
  nudgeRequest,
  type BuildInput,
} from './dispatch-direct-fixture.ts';
import { detailOf, localDirectRig } from './dispatch-direct-harness.ts';
import * as f from './dispatch-direct-pre-merge-fixture.ts';

after(removeTempDirs);

const CSV = 'bundle/manifests/csv.yaml';
const csvText = (digest: string, extra = ''): string => `spec:\n  image: ${imageOf('operator')}@${digest}\n${extra}`;

function pipelineRun(name: string, component: string, cel: string): string {
  return [
    'apiVersion: tekton.dev/v1',
    'kind: PipelineRun',
    'metadata:',
    `  name: ${name}`,
    '  labels:',
    `    appstudio.openshift.io/component: ${component}`,
    '  annotations:',
    `    pipelinesascode.tekton.dev/on-cel-expression: ${JSON.stringify(cel)}`,
    'spec: {}',
    '',
  ].join('\n');
}

const BUNDLE_PR_CEL = 'event == "pull_request" && target_branch == "main" && "bundle/***".pathChanged()';
const OPERATOR_PUSH_CEL = 'event == "push" && target_branch == "main" && "operator/***".pathChanged()';
const OPERATOR_PUSH_LOOP_CEL =
  'event == "push" && target_branch == "main" && ("operator/***".pathChanged() || "bundle/manifests/***".pathChanged())';

function monorepoFiles(options: { bundlePr?: string; operatorPush?: string } = {}): Record<string, string> {
  return {
    '.tekton/bundle-pull-request.yaml': pipelineRun(
      'bundle-on-pull-request',
      'bundle',
      options.bundlePr ?? BUNDLE_PR_CEL,
    ),
    '.tekton/operator-push.yaml': pipelineRun(
      'operator-on-push',
      'operator',
      options.operatorPush ?? OPERATOR_PUSH_CEL,
    ),
    [CSV]: csvText(OLD_DIGEST),
    'operator/main.go': 'package main\n',
    'README.md': 'monorepo\n',
  };
}

/** operator's PR: `changes` (null deletes) on branch feature-1234, pushed by a human; its head. */
function openOperatorPullRequest(dir: string, url: string, changes: Record<string, string | null>): string {
  const clone = mkdtempSync(join(dir, 'operator-pr-'));
  git(clone, 'clone', '--quiet', url, '.');
  git(clone, 'checkout', '--quiet', '-b', f.GROUP);
  for (const [path, text] of Object.entries(changes)) {
    if (text === null) rmSync(join(clone, path));
    else {
      mkdirSync(dirname(join(clone, path)), { recursive: true });
      writeFileSync(join(clone, path), text);
    }
  }
  git(clone, 'add', '--all');
  git(clone, 'commit', '--quiet', '-m', 'operator change');
  git(clone, 'push', '--quiet', 'origin', f.GROUP);
  return git(clone, 'rev-parse', 'HEAD').trim();
}

/** operator's PR #12 (built as `trigger`) in the group, from the nudged repository itself. */
function monorepoRequest(url: string, head: string, trigger: f.Trigger): PreMergeNudgeRequest {
  const request = f.preMergeRequest(url, [trigger]);
  return {
    ...request,
    triggers: request.triggers.map((t) => ({ ...t, repoUrl: url, head: { branch: f.GROUP, sha: head } })),
  };
}

const OPERATOR_OPEN: f.Trigger = { component: 'operator', number: 12, state: 'open', digest: 'a' };
const OPERATOR_PUSHED: f.Trigger = { ...OPERATOR_OPEN, digest: 'd', createdAt: '2026-01-01T11:00:00Z' };

async function setup(prefix: string, files: Record<string, string>, changes: Record<string, string | null>) {
  const rig = await localDirectRig(prefix, files, f.PRE_MERGE_BRANCH);
  const head = openOperatorPullRequest(rig.dir, rig.url, changes);
  const fire = (trigger: f.Trigger = OPERATOR_OPEN) =>
    rig.executor.firePreMerge(monorepoRequest(rig.url, head, trigger));
  const log = (ref: string): string =>
    git(rig.dir, '--git-dir', rig.gitDir, 'log', '-1', '--format=%s|%aI|%ae', ref).trim();
  const paths = (ref: string): string[] =>
    git(rig.dir, '--git-dir', rig.gitDir, 'diff', '--name-only', `${ref}^`, ref)
      .split('\n')
      .filter((line) => line !== '');
  return { ...rig, head, fire, log, paths };
}

const PR_CHANGES = { [CSV]: csvText(OLD_DIGEST, 'description: new\n'), 'operator/main.go': 'package main // v2\n' };

describe('direct executor: pre-merge nudges in a monorepo', () => {
  it("copies only the files the bundle's pathChanged() selects as the first commit, and pins the digest on top", async () => {
    const rig = await setup('pre-merge-mono', monorepoFiles(), PR_CHANGES);
    const outcome = await rig.fire();
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    assert.deepEqual(outcome.notices, [], 'no loop: operator builds from operator/ only');
    assert.equal(rig.commitsOnBranch(), 2);
    const first = `${f.PRE_MERGE_BRANCH}~1`;
    assert.deepEqual(rig.paths(first), [CSV], 'the synthetic commit copies only the bundle file');
    assert.equal(rig.show(first, CSV), csvText(OLD_DIGEST, 'description: new\n'), "the PR head's version");
    assert.equal(rig.show(first, 'operator/main.go'), 'package main\n', "operator/ is the base's");
    assert.match(
      rig.log(first),
      /^Copy the changes of operator #12 that bundle builds from\|2026-01-01T10:00:00\+00:00\|/,
    );
    const message = git(rig.dir, '--git-dir', rig.gitDir, 'log', '-1', '--format=%B', first);
    assert.ok(message.includes(`at ${rig.head} changed these files`), message);
    assert.ok(message.includes(`- ${CSV}\n`), message);

    assert.deepEqual(rig.paths(f.PRE_MERGE_BRANCH), [CSV], 'the digest commit');
    assert.equal(rig.show(f.PRE_MERGE_BRANCH, CSV), csvText(digestOf('a'), 'description: new\n'), 'pinned on the copy');
    assert.match(rig.log(f.PRE_MERGE_BRANCH), /^Update bundle with pre-merge images of feature-1234\|/);

    // Deterministic: a repeat (same content, another attempt) finds the branch as it is.
    const pushes = await rig.pushes();
    const request = monorepoRequest(rig.url, rig.head, OPERATOR_OPEN);
    const again = await rig.executor.firePreMerge({ ...request, attempt: 2 });
    assert.equal(again.result.ok, true);
    assert.equal(await rig.pushes(), pushes, 'no second push');
    // A newer build: the same copy under a new digest commit.
    const newer = await rig.fire(OPERATOR_PUSHED);
    assert.equal(newer.result.ok, true, JSON.stringify(newer));
    assert.equal(rig.commitsOnBranch(), 2);
    assert.equal(rig.show(f.PRE_MERGE_BRANCH, CSV), csvText(digestOf('d'), 'description: new\n'));
  });

  it('makes no synthetic commit for a PR that changed nothing the bundle builds from', async () => {
    const rig = await setup('pre-merge-mono-operator', monorepoFiles(), { 'operator/main.go': 'package main // v2\n' });
    const outcome = await rig.fire();
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    assert.equal(rig.commitsOnBranch(), 1);
    assert.equal(rig.show(f.PRE_MERGE_BRANCH, CSV), csvText(digestOf('a')));
    assert.equal(rig.show(f.PRE_MERGE_BRANCH, 'operator/main.go'), 'package main\n');
  });

  it('copies every changed file, and says why, when the expression is not understood', async () => {
    const files = monorepoFiles({ bundlePr: 'event == "pull_request" && !"docs/***".pathChanged()' });
    const rig = await setup('pre-merge-mono-unknown', files, { ...PR_CHANGES, 'README.md': null });
    const outcome = await rig.fire();
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    assert.equal(rig.commitsOnBranch(), 2);
    const first = `${f.PRE_MERGE_BRANCH}~1`;
    assert.deepEqual(rig.paths(first), ['README.md', CSV, 'operator/main.go']);
    assert.equal(rig.show(first, 'operator/main.go'), 'package main // v2\n');
    const listed = git(rig.dir, '--git-dir', rig.gitDir, 'ls-tree', '--name-only', first, '--', 'README.md');
    assert.equal(listed, '', 'the deleted file is deleted');
    const notices = outcome.notices ?? [];
    assert.equal(notices.length, 1, JSON.stringify(notices));
    const [notice] = notices;
    assert.equal(notice?.reason, MONOREPO_NOTICE_REASONS.pathChangedNotUnderstood);
    assert.equal(notice.type, 'Warning');
    assert.equal(notice.once, true);
    assert.ok(notice.message.includes('.tekton/bundle-pull-request.yaml'), notice.message);
    assert.ok(notice.message.includes('pipelinesascode.tekton.dev/on-cel-expression'), notice.message);
    assert.ok(notice.message.includes('every file operator #12 changed is copied'), notice.message);
  });

  it('goes on without a copy, and says so, when the PR head is not served (a fork)', async () => {
    const rig = await setup('pre-merge-mono-fork', monorepoFiles(), PR_CHANGES);
    const request = monorepoRequest(rig.url, rig.head, OPERATOR_OPEN);
    const gone = { branch: 'someone/feature-1234', sha: 'e'.repeat(40) };
    const outcome = await rig.executor.firePreMerge({
      ...request,
      triggers: request.triggers.map((t) => ({ ...t, head: gone })),
    });
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    assert.equal(rig.commitsOnBranch(), 1, 'the digest commit only');
    assert.deepEqual(
      (outcome.notices ?? []).map((n) => [n.type, n.reason, n.once]),
      [['Warning', MONOREPO_NOTICE_REASONS.headUnavailable, true]],
    );
  });

  it("warns of a nudge loop when the digest commit's files start operator's push build: a notice, one comment", async () => {
    const rig = await setup('pre-merge-mono-loop', monorepoFiles({ operatorPush: OPERATOR_PUSH_LOOP_CEL }), PR_CHANGES);
    const outcome = await rig.fire();
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    const loops = (outcome.notices ?? []).filter((n) => n.reason === MONOREPO_NOTICE_REASONS.nudgeLoop);
    assert.equal(loops.length, 1, JSON.stringify(outcome.notices));
    const [loop] = loops;
    assert.equal(loop?.type, 'Warning');
    assert.equal(loop.once, true);
    assert.ok(loop.message.includes(`${CSV} matches "bundle/manifests/***".pathChanged()`), loop.message);
    assert.ok(loop.message.includes('.tekton/operator-push.yaml (operator-on-push)'), loop.message);
    const [pull] = await rig.forge.listPullRequests(rig.repo);
    assert.ok(pull !== undefined);
    const comments = (await rig.forge.pullRequestExtras(rig.repo, pull.number)).comments ?? [];
    assert.equal(comments.length, 1);
    assert.ok(comments[0]?.includes('**Nudge loop.**'), comments[0]);
    assert.ok(comments[0]?.includes(`${CSV} matches "bundle/manifests/***".pathChanged()`), comments[0]);
    assert.match(pull.body, /<!-- nudger-nudge-loop warned=[0-9a-f]{16} -->/);

    // The next fire (a newer build) tells the notice again, but does not comment twice.
    const next = await rig.fire(OPERATOR_PUSHED);
    assert.equal(next.result.ok, true, JSON.stringify(next));
    assert.equal(detailOf(next), pull.url);
    assert.ok((next.notices ?? []).some((n) => n.reason === MONOREPO_NOTICE_REASONS.nudgeLoop));
    assert.deepEqual((await rig.forge.pullRequestExtras(rig.repo, pull.number)).comments, comments, 'once per PR');
    const now = await rig.forge.getPullRequest(rig.repo, pull.number);
    assert.equal(now.body.split('nudger-nudge-loop').length, 2, 'one stamp');
  });
});

describe('direct executor: the single nudge in a monorepo', () => {
  const files = {
    ...BUNDLE_FILES,
    '.tekton/operand-push.yaml': pipelineRun(
      'operand-on-push',
      NUDGING,
      'event == "push" && "manifests/***".pathChanged()',
    ),
  };
  const request = (url: string, build: BuildInput, nudgingUrl: string): NudgeRequest => {
    const plain = nudgeRequest(url, build);
    return {
      ...plain,
      nudging: { ...plain.nudging, spec: { ...plain.nudging.spec, source: { git: { url: nudgingUrl } } } },
    };
  };

  it('warns of the loop with a notice every fire and one PR comment, carrying the stamp over rewrites', async () => {
    const rig = await localDirectRig('direct-mono-loop', files, BRANCH);
    const first = await rig.executor.fire(request(rig.url, BUILD_1, rig.url));
    assert.equal(first.result.ok, true, JSON.stringify(first));
    const loops = (first.notices ?? []).filter((n) => n.reason === MONOREPO_NOTICE_REASONS.nudgeLoop);
    assert.equal(loops.length, 1, JSON.stringify(first.notices));
    assert.ok(
      loops[0]?.message.includes('manifests/csv.yaml matches "manifests/***".pathChanged()'),
      loops[0]?.message,
    );
    assert.ok(!loops[0]?.message.includes('Dockerfile'), 'the Dockerfile starts no push build');
    const [pull] = await rig.forge.listPullRequests(rig.repo);
    assert.ok(pull !== undefined);
    assert.equal((await rig.forge.pullRequestExtras(rig.repo, pull.number)).comments?.length, 1);

    const second = await rig.executor.fire(request(rig.url, BUILD_2, rig.url));
    assert.equal(detailOf(second), pull.url);
    assert.ok((second.notices ?? []).some((n) => n.reason === MONOREPO_NOTICE_REASONS.nudgeLoop));
    assert.equal((await rig.forge.pullRequestExtras(rig.repo, pull.number)).comments?.length, 1, 'once per PR');
    const body = (await rig.forge.getPullRequest(rig.repo, pull.number)).body;
    assert.equal(body.split('nudger-nudge-loop').length, 2, 'the stamp carried over the rewritten body');
    assert.ok(body.includes(digestOf('b')), 'the body is the new build’s');
  });

  it('does not warn when the nudging component is built from another repository', async () => {
    const rig = await localDirectRig('direct-mono-other', files, BRANCH);
    const outcome = await rig.executor.fire(request(rig.url, BUILD_1, 'https://github.com/acme/operand'));
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    assert.deepEqual(outcome.notices, []);
  });
});

describe('direct executor: the validated batch in a monorepo', () => {
  it('warns of the loop of the one entry built from the nudged repository whose push build the files start', async () => {
    const files = {
      ...BATCH_FILES,
      '.tekton/operand-c-push.yaml': pipelineRun(
        'operand-c-on-push',
        'operand-c',
        'event == "push" && "config/***".pathChanged()',
      ),
      '.tekton/operand-a-push.yaml': pipelineRun(
        'operand-a-on-push',
        'operand-a',
        'event == "push" && "src/***".pathChanged()',
      ),
    };
    const rig = await localDirectRig('batch-mono-loop', files, VALIDATED_BRANCH);
    const plain = batchRequest(rig.url, PASS_1);
    const request = {
      ...plain,
      entries: plain.entries.map((entry) =>
        entry.build.component === 'operand-b'
          ? entry
          : {
              ...entry,
              nudging: { ...entry.nudging, spec: { ...entry.nudging.spec, source: { git: { url: rig.url } } } },
            },
      ),
    };
    const outcome = await rig.executor.fireBatch(request);
    assert.equal(outcome.result.ok, true, JSON.stringify(outcome));
    const loops = (outcome.notices ?? []).filter((n) => n.reason === MONOREPO_NOTICE_REASONS.nudgeLoop);
    assert.deepEqual(
      loops.map((n) => n.message.slice(0, n.message.indexOf(':'))),
      ['operand-c nudges bundle in the same repository'],
    );
    assert.ok(loops[0]?.message.includes('config/params.env matches "config/***".pathChanged()'), loops[0]?.message);
    const [pull] = await rig.forge.listPullRequests(rig.repo);
    assert.ok(pull !== undefined);
    assert.equal((await rig.forge.pullRequestExtras(rig.repo, pull.number)).comments?.length, 1);
  });
});
