// The `direct` executor against the GitLab emulator (docs/decisions.md D7, D12, N32): the manager's
// HostedForgeResolver picks the gitlab provider for a configured GitLab host and reads the token
// from the tenant's SCM Secret for that host, git pushes over authenticated smart HTTP, and every
// REST request and answer is checked against GitLab's official OpenAPI subset.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { HostedForgeResolver } from '../../src/adapters/forges/hosted-resolver.ts';
import {
  SCM_CREDENTIALS_LABEL,
  SCM_CREDENTIALS_VALUE,
  SCM_HOST_LABEL,
} from '../../src/adapters/forges/scm-credentials.ts';
import { GitWorkspaces } from '../../src/adapters/git/workspace.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { DirectNudgeExecutor } from '../../src/controllers/dispatch/direct/direct-executor.ts';
import type { FireOutcome } from '../../src/controllers/dispatch/executor.ts';
import { startGitLabEmulator } from '../../src/sandbox/forges/gitlab-emulator/emulator.ts';
import { git, removeTempDirs, tempDir } from '../adapters/git/helpers.ts';
import { FakeObjectClient } from '../runtime/fakes.ts';
import {
  BRANCH,
  BUILD_1,
  BUILD_2,
  BUNDLE_FILES,
  IMAGE,
  NS,
  digestOf,
  nudgeRequest,
} from './dispatch-direct-fixture.ts';

const TOKEN = 'glpat-directExecutorTokenThatMustNeverLeak';
const SETTINGS = { configMap: 'cm', labels: ['team-a'], automerge: true, platformAutomerge: true };
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

after(removeTempDirs);

/** A tenant's SCM Secret for `host` (Konflux's labels), holding `token`. */
function scmSecret(name: string, host: string, token: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      namespace: NS,
      name,
      labels: { [SCM_CREDENTIALS_LABEL]: SCM_CREDENTIALS_VALUE, [SCM_HOST_LABEL]: host },
    },
    data: { password: b64(token) },
  } as KubeObject;
}

describe('direct executor on GitLab (emulated)', () => {
  it('opens a merge request with the SCM Secret’s token, then puts a newer build into it as one commit', async () => {
    const emulator = await startGitLabEmulator({ token: TOKEN });
    const outcomes: FireOutcome[] = [];
    try {
      await emulator.createRepository('acme', 'bundle', BUNDLE_FILES);
      const client = new FakeObjectClient();
      // The host label carries no port (docs/decisions.md N9); a Secret for another host is not used.
      client.objects.set(`secrets/${NS}/github`, scmSecret('github', 'github.com', 'ghp_notForGitLab'));
      client.objects.set(`secrets/${NS}/gitlab`, scmSecret('gitlab', '127.0.0.1', TOKEN));
      const host = new URL(emulator.gitBaseUrl).host;
      const resolver = new HostedForgeResolver(
        client,
        new Map([[host, { kind: 'gitlab' as const, apiUrl: emulator.apiUrl, gitBaseUrl: emulator.gitBaseUrl }]]),
      );
      const dir = tempDir('direct-gitlab');
      const executor = new DirectNudgeExecutor({
        resolver,
        workspaces: new GitWorkspaces({ cacheDir: join(dir, 'cache') }),
      });
      const url = `${emulator.gitBaseUrl}/acme/bundle`;
      const fire = async (build: typeof BUILD_1): Promise<FireOutcome> => {
        const outcome = await executor.fire(nudgeRequest(url, build, { settings: SETTINGS }));
        outcomes.push(outcome);
        return outcome;
      };

      const first = await fire(BUILD_1);
      assert.equal(first.result.ok, true, JSON.stringify(first));
      assert.equal(first.result.detail, `${emulator.gitBaseUrl}/acme/bundle/-/merge_requests/1`);
      const [opened, ...others] = emulator.mergeRequests('acme', 'bundle');
      assert.ok(opened !== undefined && others.length === 0, 'one merge request');
      assert.deepEqual(
        [opened.sourceBranch, opened.targetBranch, opened.state, opened.draft, opened.title],
        [BRANCH, 'main', 'opened', false, 'Update operand to aaaaaaa'],
      );
      assert.deepEqual(opened.labels, ['konflux-nudge', 'team-a']);
      assert.deepEqual(opened.autoMerge, { squash: false }, 'merge when the pipeline succeeds');

      const second = await fire(BUILD_2);
      assert.equal(second.result.ok, true, JSON.stringify(second));
      const mrs = emulator.mergeRequests('acme', 'bundle');
      assert.deepEqual(
        mrs.map((mr) => [mr.iid, mr.title]),
        [[1, 'Update operand to bbbbbbb']],
      );
      // Read from the bare repository directly: a synchronous git over HTTP would block the emulator.
      const gitDir = join(emulator.projectRoot, 'acme', 'bundle.git');
      assert.equal(git(dir, '--git-dir', gitDir, 'rev-list', '--count', `main..${BRANCH}`).trim(), '1', 'one commit');
      assert.equal(git(dir, '--git-dir', gitDir, 'show', `${BRANCH}:Dockerfile`), `FROM ${IMAGE}@${digestOf('b')}\n`);
      assert.ok(
        emulator.requests.some((request) => request.operationId === 'git' && request.path.includes('git-receive-pack')),
      );
    } finally {
      const violations = [...emulator.contractViolations];
      await emulator.close();
      assert.deepEqual(violations, [], 'every request and answer follows GitLab’s official OpenAPI subset');
      for (const outcome of outcomes) assert.ok(!JSON.stringify(outcome).includes(TOKEN), 'no token in any outcome');
    }
  });
});
