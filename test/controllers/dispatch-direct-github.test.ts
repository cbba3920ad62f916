// The `direct` executor against the GitHub emulator (docs/decisions.md D7, D9, N20): the GitHub
// provider the manager builds, real git over authenticated smart HTTP, and every REST and GraphQL
// request checked against GitHub's published descriptions. One repository lives through a whole
// nudge history: first nudge with labels and auto-merge, a newer build, a late older one, a human
// commit until the rebase box is ticked, a moved base and repeated fires.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GITHUB_APP_ID_KEY, GITHUB_PRIVATE_KEY_KEY } from '../../src/adapters/forges/github/app-secret.ts';
import { GitHubAppTokens } from '../../src/adapters/forges/github/app-tokens.ts';
import { HostedForgeResolver } from '../../src/adapters/forges/hosted-resolver.ts';
import { GitWorkspaces } from '../../src/adapters/git/workspace.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { DirectNudgeExecutor } from '../../src/controllers/dispatch/direct/direct-executor.ts';
import type { FireOutcome } from '../../src/controllers/dispatch/executor.ts';
import type { GitHubEmulator } from '../../src/sandbox/forges/github-emulator/emulator.ts';
import { foreignPush, git } from '../adapters/git/helpers.ts';
import { startGitHubDirectRig, stopGitHubDirectRig, type GitHubDirectRig } from './dispatch-direct-harness.ts';
import { FakeObjectClient } from '../runtime/fakes.ts';
import {
  BRANCH,
  BUILD_1,
  BUILD_2,
  BUILD_3,
  BUNDLE_FILES,
  IMAGE,
  digestOf,
  nudgeRequest,
  tickRebase,
} from './dispatch-direct-fixture.ts';

const TOKEN = 'ghs_directExecutorTokenThatMustNeverLeak0123';
const SETTINGS = { configMap: 'cm', labels: ['team-a'], automerge: true, platformAutomerge: true };

let rig: GitHubDirectRig;
let emulator: GitHubEmulator;
let executor: DirectNudgeExecutor;
let url: string;
let dir: string;
let outcomes: FireOutcome[];

before(async () => {
  rig = await startGitHubDirectRig(TOKEN, BUNDLE_FILES, 'direct-github');
  ({ emulator, executor, url, dir, outcomes } = rig);
});

after(() => stopGitHubDirectRig(rig, TOKEN));

async function fire(build: typeof BUILD_1): Promise<FireOutcome> {
  const outcome = await executor.fire(nudgeRequest(url, build, { settings: SETTINGS }));
  outcomes.push(outcome);
  return outcome;
}

function pulls() {
  return emulator.pullRequests('acme', 'bundle');
}

function only() {
  const [pull, ...rest] = pulls();
  assert.ok(pull !== undefined && rest.length === 0, 'exactly one pull request');
  return pull;
}

const gitDir = (): string => join(emulator.projectRoot, 'acme', 'bundle.git');
/** The emulator's bare repository, where a human pushes as if from their clone. */
const bare = (): string => `file://${gitDir()}`;
const commitsOnBranch = (): number => Number(git(dir, '--git-dir', gitDir(), 'rev-list', '--count', `main..${BRANCH}`));

describe('direct executor on GitHub (emulated)', () => {
  it('opens the pull request with title, body, labels and auto-merge', async () => {
    const outcome = await fire(BUILD_1);
    assert.deepEqual(outcome.notices, []);
    const pull = only();
    assert.equal(outcome.result.ok && outcome.result.detail, `${emulator.gitBaseUrl}/acme/bundle/pull/1`);
    assert.deepEqual([pull.headRef, pull.baseRef, pull.state, pull.draft], [BRANCH, 'main', 'open', false]);
    assert.equal(pull.title, 'Update operand to aaaaaaa');
    assert.match(pull.body ?? '', /^Image created from 'https:\/\/github\.com\/acme\/operand\?rev=f{40}'/);
    assert.match(pull.body ?? '', /🚦 \*\*Automerge\*\*: Enabled\./);
    assert.match(pull.body ?? '', /pipelineRun=operand-on-push-1 digest=sha256:a{64} -->$/);
    assert.deepEqual(pull.labels, ['konflux-nudge', 'team-a']);
    // Renovate's choice on a repository that allows every method: rebase.
    assert.deepEqual(pull.autoMerge, { method: 'REBASE', enabledBy: 'nudger-bot' });
    const operations = emulator.requests.map((request) => request.operationId);
    assert.ok(operations.includes('issues/add-labels'));
    assert.ok(operations.includes('graphql:enablePullRequestAutoMerge'));
  });

  it('puts a newer build into the same pull request as one commit', async () => {
    const outcome = await fire(BUILD_2);
    assert.equal(outcome.result.ok, true);
    const pull = only();
    assert.equal(pull.title, 'Update operand to bbbbbbb');
    assert.equal(commitsOnBranch(), 1);
    assert.equal(git(dir, '--git-dir', gitDir(), 'show', `${BRANCH}:Dockerfile`), `FROM ${IMAGE}@${digestOf('b')}\n`);
  });

  it('changes nothing for a late older build', async () => {
    const before = only();
    const writes = emulator.requests.length;
    const outcome = await fire(BUILD_1);
    assert.match(outcome.result.ok ? (outcome.result.detail ?? '') : '', /^superseded/);
    assert.deepEqual(only(), before);
    const since = emulator.requests.slice(writes).map((request) => `${request.method} ${request.operationId ?? ''}`);
    assert.deepEqual(since, ['GET pulls/list', 'GET pulls/list-commits'], 'it only looked');
  });

  it('leaves a human commit alone until the rebase box is ticked', async () => {
    const human = foreignPush(dir, bare(), BRANCH, 'NOTES.md', 'mine\n');
    const refused = await fire(BUILD_3);
    assert.ok(!refused.result.ok);
    assert.equal(refused.result.reason, 'branch-edited');
    assert.equal(await emulator.branchHead('acme', 'bundle', BRANCH), human);

    const pull = only();
    await emulator.editPullRequestBody('acme', 'bundle', pull.number, tickRebase(pull.body ?? ''));
    const rebased = await fire(BUILD_3);
    assert.equal(rebased.result.ok, true);
    assert.equal(commitsOnBranch(), 1, 'the human commit is gone');
    assert.equal(only().title, 'Update operand to ccccccc');
    assert.match(only().body ?? '', /- \[ \] <!-- rebase-check -->/);
  });

  it('asks GitHub for the default branch when the Component names no revision', async () => {
    await emulator.createRepository('acme', 'develop-first', BUNDLE_FILES, 'develop');
    const request = nudgeRequest(`${emulator.gitBaseUrl}/acme/develop-first`, BUILD_1);
    const outcome = await executor.fire({
      ...request,
      nudged: { ...request.nudged, spec: { source: { git: { url: `${emulator.gitBaseUrl}/acme/develop-first` } } } },
    });
    outcomes.push(outcome);
    assert.equal(outcome.result.ok, true);
    assert.deepEqual(
      emulator.pullRequests('acme', 'develop-first').map((pull) => [pull.baseRef, pull.headRef]),
      [['develop', BRANCH]],
    );
  });

  it('rebases onto a moved base, and a repeated fire pushes and opens nothing', async () => {
    const moved = foreignPush(dir, bare(), 'main', 'README.md', 'moved\n');
    const outcome = await fire(BUILD_3);
    assert.equal(outcome.result.ok, true);
    assert.equal(git(dir, '--git-dir', gitDir(), 'rev-parse', `${BRANCH}^`).trim(), moved);

    const pushes = (): number =>
      emulator.requests.filter((request) => request.path.includes('git-receive-pack')).length;
    const before = pushes();
    const again = await fire(BUILD_3);
    assert.equal(again.result.ok, true);
    assert.equal(pushes(), before, 'no second push');
    assert.equal(pulls().length, 1, 'no second pull request');
  });
});

describe('direct executor for a GitHub App tenant (emulated)', () => {
  const REF = { namespace: 'build-service', name: 'pipelines-as-code-secret' };
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

  it('commits as the App’s bot, and counts its own commits as its own', async () => {
    await emulator.createRepository('acme', 'app-bundle', BUNDLE_FILES);
    const app = emulator.apps.registerApp({ slug: 'konflux-test', publicKey: key.publicKey, botId: 4242 });
    emulator.apps.install(app.id, 'acme', ['app-bundle']);
    // The cluster's Pipelines-as-Code Secret, as the manager's resolver reads it.
    const client = new FakeObjectClient();
    client.objects.set(`secrets/${REF.namespace}/${REF.name}`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: REF.namespace, name: REF.name },
      data: {
        [GITHUB_APP_ID_KEY]: b64(String(app.id)),
        [GITHUB_PRIVATE_KEY_KEY]: b64(key.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
      },
    } as KubeObject);
    const host = new URL(emulator.gitBaseUrl).host;
    const resolver = new HostedForgeResolver(
      client,
      new Map([[host, { kind: 'github' as const, apiUrl: emulator.apiUrl, gitBaseUrl: emulator.gitBaseUrl }]]),
      { githubApp: { secret: REF, tokens: new GitHubAppTokens() } },
    );
    const appExecutor = new DirectNudgeExecutor({
      resolver,
      workspaces: new GitWorkspaces({ cacheDir: join(dir, 'app-cache') }),
    });
    const appUrl = `${emulator.gitBaseUrl}/acme/app-bundle`;
    const first = await appExecutor.fire(nudgeRequest(appUrl, BUILD_1, { settings: SETTINGS }));
    outcomes.push(first);
    assert.equal(first.result.ok, true, JSON.stringify(first));
    // A new repository does not allow auto-merge: the pull request stays, and the Event says why.
    assert.deepEqual(
      first.notices?.map((notice) => [notice.reason, notice.message.includes('auto-merge is not allowed')]),
      [['NudgeAutoMergeFailed', true]],
    );
    const author = 'konflux-test <4242+konflux-test[bot]@users.noreply.github.com>';
    const appGitDir = join(emulator.projectRoot, 'acme', 'app-bundle.git');
    assert.equal(git(dir, '--git-dir', appGitDir, 'log', '-1', '--format=%an <%ae>', BRANCH).trim(), author);
    assert.match(
      git(dir, '--git-dir', appGitDir, 'log', '-1', '--format=%B', BRANCH),
      new RegExp(`Signed-off-by: ${author.replace(/[[\]+]/g, '\\$&')}`),
    );
    const [pull] = emulator.pullRequests('acme', 'app-bundle');
    assert.equal(pull?.author, 'konflux-test[bot]');

    const second = await appExecutor.fire(nudgeRequest(appUrl, BUILD_2, { settings: SETTINGS }));
    outcomes.push(second);
    assert.equal(second.result.ok, true, 'its own commit is not someone else’s');
    assert.equal(emulator.pullRequests('acme', 'app-bundle')[0]?.title, 'Update operand to bbbbbbb');
  });
});
