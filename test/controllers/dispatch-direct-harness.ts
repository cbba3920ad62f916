// The `direct` executor's test rigs, shared by its single-nudge and validated-batch tests: a local
// forge repository with real git, and the GitHub emulator behind the provider the manager builds
// (docs/decisions.md D7).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Credentials } from '../../src/adapters/credentials/credentials.ts';
import { ForgeError } from '../../src/adapters/forges/errors.ts';
import { FORGE_REGISTRY } from '../../src/adapters/forges/registry.ts';
import { parseRepositoryUrl } from '../../src/adapters/forges/repository-url.ts';
import { LocalForge, readForgeEvents } from '../../src/adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../../src/adapters/forges/local/local-resolver.ts';
import type { ForgeResolver } from '../../src/adapters/forges/resolver.ts';
import type { ForgeProvider } from '../../src/adapters/forges/types.ts';
import { GitWorkspaces } from '../../src/adapters/git/workspace.ts';
import { DirectNudgeExecutor } from '../../src/controllers/dispatch/direct/direct-executor.ts';
import type { FireOutcome } from '../../src/controllers/dispatch/executor.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../../src/sandbox/forges/github-emulator/emulator.ts';
import { git, removeTempDirs, tempDir } from '../adapters/git/helpers.ts';

/** build-service's gitAuthor for an SCM token without a username, on the local forge. */
export const LOCAL_AUTHOR = 'red-hat-konflux <123456+red-hat-konflux[bot]@users.noreply.localhost>';

/** The detail of an ok outcome, or the failure's reason (so a mismatch shows what happened). */
export function detailOf(outcome: FireOutcome): string {
  return outcome.result.ok ? (outcome.result.detail ?? '') : `failed: ${outcome.result.reason}`;
}

/** The local forge, except that createPullRequest's answer is lost when `lose()` says so. */
export function lossyCreate(local: LocalForge, lose: () => boolean): ForgeProvider {
  return {
    kind: local.kind,
    credentials: undefined,
    cloneUrl: (repo) => local.cloneUrl(repo),
    findPullRequestByHeadBranch: (repo, branch) => local.findPullRequestByHeadBranch(repo, branch),
    getPullRequest: (repo, number) => local.getPullRequest(repo, number),
    updatePullRequest: (repo, number, update) => local.updatePullRequest(repo, number, update),
    markReadyForReview: (repo, number) => local.markReadyForReview(repo, number),
    listCommits: (repo, number) => local.listCommits(repo, number),
    addLabels: (repo, number, labels) => local.addLabels(repo, number, labels),
    enableAutoMerge: (repo, number, method) => local.enableAutoMerge(repo, number, method),
    createPullRequest: async (input) => {
      const created = await local.createPullRequest(input);
      if (!lose()) return created;
      throw new ForgeError({
        forge: 'local',
        operation: 'createPullRequest',
        repo: 'acme/bundle',
        reason: 'connection reset',
        transport: { code: 'ECONNRESET', host: 'local' },
      });
    },
  };
}

/** A resolver handing out lossyCreate over the local forge's `acme/bundle`, losing the first answer only. */
export function losingFirstCreate(local: LocalForge): ForgeResolver {
  let lose = true;
  return {
    resolve: () =>
      Promise.resolve({
        repo: local.repository('acme', 'bundle'),
        provider: lossyCreate(local, () => {
          const now = lose;
          lose = false;
          return now;
        }),
      }),
  };
}

/** `acme/bundle` on a fresh local forge holding `files`, and an executor over it; `branch` is the one pushes count. */
export async function localDirectRig(
  prefix: string,
  files: Readonly<Record<string, string>>,
  branch: string,
  resolver?: (forge: LocalForge) => ForgeResolver,
) {
  const dir = tempDir(prefix);
  const forge = new LocalForge({ root: join(dir, 'forge') });
  const repo = await forge.createRepository('acme', 'bundle', files);
  const url = forge.repositoryUrl('acme', 'bundle');
  const executor = new DirectNudgeExecutor({
    resolver: resolver?.(forge) ?? new LocalForgeResolver(forge),
    workspaces: new GitWorkspaces({ cacheDir: join(dir, 'cache') }),
  });
  const gitDir = forge.gitDirectory(repo);
  const show = (ref: string, path: string): string => git(dir, '--git-dir', gitDir, 'show', `${ref}:${path}`);
  const pushes = async (): Promise<number> => {
    const { events } = await readForgeEvents(forge, repo, 0);
    return events.filter((event) => event.type === 'push' && event.ref === `refs/heads/${branch}`).length;
  };
  const commitsOnBranch = (): number => Number(git(dir, '--git-dir', gitDir, 'rev-list', '--count', `main..${branch}`));
  return { dir, forge, repo, url, executor, gitDir, show, pushes, commitsOnBranch };
}

export interface GitHubDirectRig {
  readonly emulator: GitHubEmulator;
  readonly executor: DirectNudgeExecutor;
  /** The nudged repository `acme/bundle`. */
  readonly url: string;
  readonly dir: string;
  /** Every outcome a test records, checked for the token at the end. */
  readonly outcomes: FireOutcome[];
}

/**
 * The GitHub emulator with `acme/bundle` holding `files` (auto-merge allowed), and an executor
 * whose resolver reads `token` as the manager's reads the tenant's SCM Secret; the provider is
 * built by the same registry factory.
 */
export async function startGitHubDirectRig(
  token: string,
  files: Readonly<Record<string, string>>,
  prefix: string,
): Promise<GitHubDirectRig> {
  const emulator = await startGitHubEmulator({ token });
  await emulator.createRepository('acme', 'bundle', files, 'main', { autoMergeAllowed: true });
  const dir = tempDir(prefix);
  const resolver: ForgeResolver = {
    resolve: (gitUrl) =>
      Promise.resolve({
        repo: parseRepositoryUrl(gitUrl),
        provider: FORGE_REGISTRY.github.create({
          apiUrl: emulator.apiUrl,
          gitBaseUrl: emulator.gitBaseUrl,
          credentials: new Credentials({ token }),
        }),
      }),
  };
  const executor = new DirectNudgeExecutor({
    resolver,
    workspaces: new GitWorkspaces({ cacheDir: join(dir, 'cache') }),
  });
  return { emulator, executor, url: `${emulator.gitBaseUrl}/acme/bundle`, dir, outcomes: [] };
}

/** Closes the rig: every request followed GitHub's descriptions, and no outcome carried the token. */
export async function stopGitHubDirectRig(rig: GitHubDirectRig, token: string): Promise<void> {
  const violations = [...rig.emulator.contractViolations];
  await rig.emulator.close();
  removeTempDirs();
  assert.deepEqual(violations, [], 'every request and answer follows GitHub’s descriptions');
  for (const outcome of rig.outcomes) assert.ok(!JSON.stringify(outcome).includes(token), 'no token in any outcome');
}
