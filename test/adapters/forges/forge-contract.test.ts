import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after } from 'node:test';
import { Credentials } from '../../../src/adapters/credentials/credentials.ts';
import { FORGE_REGISTRY, HOSTED_FORGE_KINDS, type HostedForgeKind } from '../../../src/adapters/forges/registry.ts';
import { LocalForge } from '../../../src/adapters/forges/local/local-forge.ts';
import { parseRepositoryUrl, type RepositoryRef } from '../../../src/adapters/forges/repository-url.ts';
import type { ForgeProvider } from '../../../src/adapters/forges/types.ts';
import { GitWorkspaces } from '../../../src/adapters/git/workspace.ts';
import { startGitHubEmulator } from '../../../src/sandbox/forges/github-emulator/emulator.ts';
import { removeTempDirs, tempDir } from '../git/helpers.ts';
import { CONTRACT_AUTHOR, CONTRACT_MESSAGE, runForgeContract } from './forge-contract.ts';
import { gitLabContractSetup } from './gitlab-contract-setup.ts';

type ContractSetup = Parameters<typeof runForgeContract>[1];

after(removeTempDirs);

function pusher(provider: ForgeProvider, repo: RepositoryRef, cacheDir: string) {
  const workspaces = new GitWorkspaces({ cacheDir });
  return async (branch: string, text: string, expected: string | undefined): Promise<string> => {
    const base = await workspaces.prepareBase(provider.cloneUrl(repo), 'main', provider.credentials);
    const sha = await base.commitOnBase({
      files: [{ path: 'manifests/csv.yaml', text }],
      message: CONTRACT_MESSAGE,
      author: CONTRACT_AUTHOR,
    });
    await base.pushWithLease(branch, expected);
    return sha;
  };
}

runForgeContract('local', async () => {
  const dir = tempDir('contract-local');
  const forge = new LocalForge({ root: join(dir, 'forge') });
  const repo = await forge.createRepository('acme', 'bundle', { 'manifests/csv.yaml': 'image: old\n' });
  return {
    provider: forge,
    repo,
    pushBranch: pusher(forge, repo, join(dir, 'cache')),
    merge: async (number) => {
      await forge.merge(repo, number);
    },
    close: async (number) => {
      await forge.close(repo, number);
    },
    inspect: async (number) => {
      const extras = await forge.pullRequestExtras(repo, number);
      return {
        labels: extras.labels ?? [],
        autoMerge: extras.autoMerge?.method ?? null,
        comments: extras.comments ?? [],
      };
    },
    teardown: () => Promise.resolve(),
  };
});

const TOKEN = 'ghs_contractToken0123456789abcdef';

/**
 * One emulator per forge kind of the registry: the Record type makes a new registry entry without
 * an emulator a type error, and each provider is built by its registry factory, so the factory
 * the manager uses is what the contract checks.
 */
const EMULATED: Readonly<Record<HostedForgeKind, () => ReturnType<ContractSetup>>> = {
  github: async () => {
    const emulator = await startGitHubEmulator({ token: TOKEN });
    await emulator.createRepository('acme', 'bundle', { 'manifests/csv.yaml': 'image: old\n' }, 'main', {
      autoMergeAllowed: true,
    });
    const forge = FORGE_REGISTRY.github.create({
      apiUrl: emulator.apiUrl,
      gitBaseUrl: emulator.gitBaseUrl,
      credentials: new Credentials({ token: TOKEN }),
    });
    const repo = parseRepositoryUrl('https://github.com/acme/bundle');
    return {
      provider: forge,
      repo,
      pushBranch: pusher(forge, repo, join(tempDir('contract-github'), 'cache')),
      merge: (number) => emulator.mergePullRequest('acme', 'bundle', number),
      close: (number) => emulator.closePullRequest('acme', 'bundle', number),
      inspect: (number) => {
        const pull = emulator.pullRequests('acme', 'bundle').find((candidate) => candidate.number === number);
        return Promise.resolve({
          labels: pull?.labels ?? [],
          autoMerge: pull?.autoMerge?.method ?? null,
          comments: pull?.comments ?? [],
        });
      },
      teardown: async () => {
        const violations = [...emulator.contractViolations];
        await emulator.close();
        assert.deepEqual(violations, [], 'requests and responses follow GitHub’s OpenAPI description');
      },
    };
  },
  gitlab: () => gitLabContractSetup(pusher),
};

for (const kind of HOSTED_FORGE_KINDS) runForgeContract(`${kind} (emulated)`, EMULATED[kind]);
