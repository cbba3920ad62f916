// The forge contract's fixture for GitLab (run by forge-contract.test.ts with the other hosted
// forges): a fresh GitLab emulator and project, the provider built by the registry's factory, and
// the human actions done through the emulator's handle. Every test ends by asserting that every
// request and response followed GitLab's official OpenAPI subset (docs/decisions.md D12, N32).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Credentials } from '../../../src/adapters/credentials/credentials.ts';
import { FORGE_REGISTRY } from '../../../src/adapters/forges/registry.ts';
import { parseRepositoryUrl, type RepositoryRef } from '../../../src/adapters/forges/repository-url.ts';
import type { ForgeProvider } from '../../../src/adapters/forges/types.ts';
import { startGitLabEmulator } from '../../../src/sandbox/forges/gitlab-emulator/emulator.ts';
import { tempDir } from '../git/helpers.ts';
import type { ForgeContractFixture } from './forge-contract.ts';

export const GITLAB_CONTRACT_TOKEN = 'glpat-contractToken0123456789ab';

type Pusher = (provider: ForgeProvider, repo: RepositoryRef, cacheDir: string) => ForgeContractFixture['pushBranch'];

export async function gitLabContractSetup(pusher: Pusher): Promise<ForgeContractFixture> {
  const emulator = await startGitLabEmulator({ token: GITLAB_CONTRACT_TOKEN });
  await emulator.createRepository('acme', 'bundle', { 'manifests/csv.yaml': 'image: old\n' }, 'main');
  const forge = FORGE_REGISTRY.gitlab.create({
    apiUrl: emulator.apiUrl,
    gitBaseUrl: emulator.gitBaseUrl,
    credentials: new Credentials({ token: GITLAB_CONTRACT_TOKEN }),
  });
  const repo = parseRepositoryUrl('https://gitlab.com/acme/bundle');
  const mr = (number: number) => emulator.mergeRequests('acme', 'bundle').find((m) => m.iid === number);
  return {
    provider: forge,
    repo,
    pushBranch: pusher(forge, repo, join(tempDir('contract-gitlab'), 'cache')),
    merge: (number) => emulator.mergeMergeRequest('acme', 'bundle', number),
    close: (number) => emulator.closeMergeRequest('acme', 'bundle', number),
    inspect: (number) => {
      const found = mr(number);
      const autoMerge =
        found?.autoMerge === null || found === undefined ? null : found.autoMerge.squash ? 'SQUASH' : 'MERGE';
      return Promise.resolve({ labels: found?.labels ?? [], autoMerge, comments: found?.notes ?? [] });
    },
    teardown: async () => {
      const violations = [...emulator.contractViolations];
      await emulator.close();
      assert.deepEqual(violations, [], 'requests and responses follow GitLab’s official OpenAPI subset');
    },
  };
}
