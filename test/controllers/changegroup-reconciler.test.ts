// The ChangeGroup controller end to end on one machine: in-memory caches, a recording ObjectClient
// that serves the build PipelineRuns (D3), and the real local forge with real git (D5); the set-up
// is in changegroup-env.ts.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Credentials } from '../../src/adapters/credentials/credentials.ts';
import { GitHubForge } from '../../src/adapters/forges/github/index.ts';
import { parseRepositoryUrl } from '../../src/adapters/forges/repository-url.ts';
import { closedPort } from '../adapters/forges/closed-port.ts';
import { PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import { hasSkipMarker } from '../../src/domain/pr-description/index.ts';
import { DIGEST } from '../domain/changegroup/fixtures.ts';
import { git, removeTempDirs } from '../adapters/git/helpers.ts';
import { BRANCH, COMPONENTS, setup } from './changegroup-env.ts';

describe('ChangeGroupReconciler', () => {
  after(removeTempDirs);

  it('collects three held nudges one reconcile at a time into one PR, then makes the final push', async () => {
    const env = await setup('reconciler-flow');
    const { forge, repo } = env;

    env.nudge('operand-a', '1', 1);
    await env.reconcile(2);
    assert.equal(env.status().phase, 'Waiting');
    assert.equal(env.status().summary, '1/3');
    assert.ok(hasSkipMarker(env.headMessage()), env.headMessage());
    assert.equal((await forge.getPullRequest(repo, 1)).draft, true);

    env.nudge('operand-b', '2', 3);
    await env.reconcile(4);
    assert.equal(env.status().summary, '2/3');
    assert.ok(hasSkipMarker(env.headMessage()), env.headMessage());

    env.nudge('operator', '3', 5);
    const result = await env.reconcile(6);
    const final = env.status();
    assert.equal(final.phase, 'Ready');
    assert.equal(final.summary, '3/3');
    assert.equal(final.pullRequest?.final, true);
    assert.equal(final.pullRequest.draft, false);
    assert.equal(final.pullRequest.number, 1);
    assert.deepEqual(result, { requeueAfterMs: 60_000 });

    // One PR, ready for review, whose single commit writes all three digests without [skip ci].
    const pr = await forge.getPullRequest(repo, 1);
    assert.equal(pr.draft, false);
    assert.equal(pr.state, 'open');
    await assert.rejects(forge.getPullRequest(repo, 2), /no pull request #2/);
    assert.equal(hasSkipMarker(env.headMessage()), false, env.headMessage());
    assert.equal(pr.headSha, final.pullRequest.lastPushedCommit);
    const commits = await forge.listCommits(repo, 1);
    assert.equal(commits.length, 1);
    const manifest = git(env.dir, '--git-dir', forge.gitDirectory(repo), 'show', `${BRANCH}:manifests/csv.yaml`);
    assert.equal(
      manifest,
      ['1', '2', '3']
        .map((c, i) => `${COMPONENTS[i] ?? ''}: quay.io/org/${COMPONENTS[i] ?? ''}@${DIGEST(c)}\n`)
        .join(''),
    );

    // Ready for review came before the final push, so the final push is the one build.
    const types = (await env.forgeEvents()).map((e) => (e.type === 'push' ? `push ${e.ref}` : e.type));
    const readyAt = types.indexOf('ready_for_review');
    const pushes = types.map((t, i) => [t, i] as const).filter(([t]) => t === `push refs/heads/${BRANCH}`);
    assert.equal(pushes.length, 3);
    assert.ok(readyAt >= 0 && readyAt < (pushes.at(-1)?.[1] ?? -1), types.join(', '));
    assert.equal(types.filter((t) => t === 'opened').length, 1);
    assert.ok(env.events.some((e) => e.reason === 'FinalPush'));
  });

  it('converges: re-running with the status it wrote makes no forge or API writes', async () => {
    const env = await setup('reconciler-idempotent');
    env.nudge('operand-a', '1', 1);
    await env.reconcile(2);
    env.nudge('operand-b', '2', 3);
    env.nudge('operator', '3', 3);
    await env.reconcile(4);
    assert.equal(env.status().phase, 'Ready');

    const forgeBefore = (await env.forgeEvents()).length;
    const writesBefore = env.client.writes().length;
    await env.reconcile(10);
    await env.reconcile(20);
    assert.equal((await env.forgeEvents()).length, forgeBefore, 'no push and no PR change');
    assert.deepEqual(env.client.writes().slice(writesBefore), [], 'no status write, patch or create');
  });

  it('leaves the PR untouched for a forged nudge and reports BuildsVerified False', async () => {
    const env = await setup('reconciler-forged');
    env.nudge('operand-a', '1', 1);
    await env.reconcile(2);
    const before = await env.forgeEvents();
    const head = await env.forge.branchHead(env.repo, BRANCH);
    const body = (await env.forge.getPullRequest(env.repo, 1)).body;

    env.nudge('operand-b', '9', 3, true); // its build PipelineRun does not exist: GET is a 404
    await env.reconcile(4);

    assert.deepEqual(await env.forgeEvents(), before);
    assert.equal(await env.forge.branchHead(env.repo, BRANCH), head);
    assert.equal((await env.forge.getPullRequest(env.repo, 1)).body, body);
    const status = env.status();
    assert.equal(status.summary, '1/3');
    assert.equal(status.components?.find((c) => c.name === 'operand-b')?.newBuild, undefined);
    const verified = status.conditions?.find((c) => c.type === 'BuildsVerified');
    assert.equal(verified?.status, 'False');
    assert.equal(verified.reason, 'UnverifiedBuild');
    assert.match(verified.message, /nudge-operand-b-9 \(operand-b\): build-not-found/);
    assert.ok(!JSON.stringify(status).includes(DIGEST('9')));
    assert.ok(
      env.client.calls.some((c) => c.verb === 'get' && c.ref === PIPELINE_RUNS && c.name === 'operand-b-on-push-9'),
      'the build was looked up live',
    );
  });

  it('collects the genuine nudge when a forged one names a build the API server cannot look up', async () => {
    const env = await setup('reconciler-forged-name');
    // Before: the GET answered 400, only 404 was tolerated, and every reconcile failed for ever.
    env.nudge('operand-b', '8', 1, true, 'operand-b-on-push-%2e%2e');
    env.nudge('operand-a', '1', 2);
    await env.reconcile(3);
    const status = env.status();
    assert.equal(status.components?.find((c) => c.name === 'operand-a')?.state, 'Ready');
    assert.equal(status.pullRequest?.number, 1);
    const verified = status.conditions?.find((c) => c.type === 'BuildsVerified');
    assert.equal(verified?.status, 'False');
    assert.match(verified.message, /nudge-operand-b-8 \(operand-b\): invalid-build-name/);
    assert.ok(!env.client.calls.some((c) => c.verb === 'get' && c.name.includes('%')), 'never asked');
  });

  it('says in ForgeAvailable that the forge is unreachable, naming the host and never the token, and clears it', async () => {
    const token = 'ghp_reconcilerToken0123456789abcdefABCDEF';
    const port = await closedPort();
    let down = true;
    const env = await setup('reconciler-forge-down', {
      forges: (local) => ({
        resolve: (url, namespace, signal) =>
          down
            ? Promise.resolve({
                repo: parseRepositoryUrl('https://github.example/acme/bundle-x'),
                provider: new GitHubForge({
                  apiUrl: `http://127.0.0.1:${String(port)}/api/v3`,
                  credentials: new Credentials({ token }),
                }),
              })
            : local.resolve(url, namespace, signal),
      }),
    });
    env.nudge('operand-a', '1', 1);
    await assert.rejects(env.reconcile(2), /connection refused/);
    const failed = env.status().conditions?.find((c) => c.type === 'ForgeAvailable');
    assert.equal(failed?.status, 'False');
    assert.equal(failed.reason, 'ForgeUnreachable');
    assert.match(failed.message, new RegExp(`connection refused to 127\\.0\\.0\\.1:${String(port)}`));
    assert.match(failed.message, /^local forge: /, 'the host of the nudged repository comes first');
    assert.ok(!JSON.stringify(env.client.calls).includes(token), 'the token is in no status write');
    assert.ok(!JSON.stringify(env.events).includes(token), 'nor in any event');

    down = false;
    await env.reconcile(3);
    const cleared = env.status().conditions?.find((c) => c.type === 'ForgeAvailable');
    assert.equal(cleared?.status, 'True');
    assert.equal(cleared.reason, 'ForgeAvailable');
    assert.equal(env.status().components?.find((c) => c.name === 'operand-a')?.state, 'Ready');
  });
});
