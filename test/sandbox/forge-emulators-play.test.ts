// `forge: github` and `forge: gitlab` played end to end (docs/decisions.md N37, D12): the shipped
// ChangeGroup example and two of ADR 29's pre-merge use cases (a common parent image whose PR is
// merged, an operator whose operand's PR is closed), each on a sandbox whose repositories are on
// the GitHub or the GitLab emulator. The manager reaches the emulator as a configured forge host
// with the token from the tenant's SCM Secret; the emulator checks every request nudger sends
// against the official descriptions, and no violation may be left at the end. The pull requests
// (merge requests) are read on the emulator: a draft while the ChangeGroup waits (on GitLab the
// `Draft: ` title prefix), not at the end, one build of the bundle.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../src/runtime/logger.ts';
import { startSandboxEnvironment, type SandboxEnvironment } from '../../src/sandbox/environment.ts';
import type { EmulatedSandboxForge } from '../../src/sandbox/forges/emulated-forge.ts';
import { pullRequestByHeadBranch } from '../../src/sandbox/forges/sandbox-forge.ts';
import { SandboxContractError } from '../../src/sandbox/play.ts';
import { playInEnvironment } from '../../src/sandbox/run.ts';
import { loadScenarioFile } from '../../src/sandbox/scenario/load.ts';
import { sandboxResultProblems } from '../../src/sandbox/scenario/result.ts';
import type { Scenario, ScenarioStep } from '../../src/sandbox/scenario/schema.ts';
import { changeGroupBranch } from '../../src/domain/changegroup/model.ts';
import { parseRepositoryUrl, type RepositoryRef } from '../../src/adapters/forges/repository-url.ts';
import { readChangeGroup } from '../e2e/helpers.ts';
import { eventually } from '../integration/wait.ts';

const example = (name: string): string =>
  fileURLToPath(new URL(`../../examples/sandbox/${name}.yaml`, import.meta.url));

for (const kind of ['github', 'gitlab'] as const) {
  describe(`the sandbox on forge: ${kind}`, () => {
    let env: SandboxEnvironment;

    before(async () => {
      env = await startSandboxEnvironment({ logger: createLogger({ level: 'silent' }), forge: kind });
    });

    after(async () => {
      await env.close();
    });

    const violations = (): readonly string[] => (env.sandboxForge as EmulatedSandboxForge).contractViolations;

    const repoOf = (namespace: string, name: string): RepositoryRef =>
      parseRepositoryUrl(env.sandboxForge.repositoryUrl(namespace, name));

    async function load(name: string, namespace: string): Promise<Scenario> {
      const scenario = await loadScenarioFile(example(name));
      return { ...scenario, forge: kind, namespace };
    }

    it('plays the ChangeGroup example: one draft PR while waiting, ready and merged at the end, one bundle build', async () => {
      const scenario = await load('happy-path', `happy-${kind}`);
      const drafts: boolean[] = [];
      const repo = repoOf(scenario.namespace, 'bundle-x');
      const result = await playInEnvironment(env, scenario, {
        afterStep: async (step: ScenarioStep, index: number) => {
          if (!('build' in step)) return;
          // Builds are played back to back: wait until the ChangeGroup has pushed this one.
          await eventually(`operand ${String(index + 1)} to be pushed`, async () => {
            const cg = await readChangeGroup(env, scenario.namespace, 'bundle-x-update');
            assert.equal(cg.status?.pullRequest?.pushedBuilds.length, index + 1);
            const pr = await pullRequestByHeadBranch(env.sandboxForge, repo, changeGroupBranch('bundle-x-update'));
            assert.ok(pr !== undefined);
            if (index === 2) assert.equal(pr.draft, false);
            drafts.push(pr.draft);
            return true;
          });
        },
      });
      assert.deepEqual(sandboxResultProblems(result), []);
      const [group] = result.changeGroups;
      assert.equal(group?.phase, 'Completed');
      assert.equal(group.pullRequest?.state, 'merged');
      assert.equal(group.pullRequest.draft, false, kind === 'gitlab' ? 'no Draft: prefix at the end' : 'ready');
      const prefix = kind === 'github' ? '/pull/' : '/-/merge_requests/';
      assert.ok(group.pullRequest.url.includes(`/${scenario.namespace}/bundle-x${prefix}`), group.pullRequest.url);
      // A draft after the first two operands (on GitLab: its title starts with `Draft: `), ready
      // once the third is in.
      assert.deepEqual(drafts, [true, true, false]);
      assert.equal(result.builds['bundle-x'], 1, 'the bundle is built once');
      assert.equal(result.pullRequests.filter((pr) => pr.repository === 'bundle-x').length, 1);
      assert.deepEqual(violations(), []);
    });

    it('plays a common parent image whose PR merges: draft nudge PRs, then ready ones pinning the push build', async () => {
      const scenario = await load('pre-merge-parent-image', `parent-${kind}`);
      const drafts: boolean[][] = [];
      const result = await playInEnvironment(env, scenario, {
        afterStep: async () => {
          const seen: boolean[] = [];
          for (const child of ['child-a', 'child-b']) {
            const repo = repoOf(scenario.namespace, child);
            seen.push((await pullRequestByHeadBranch(env.sandboxForge, repo, `feature-1234@${child}`))?.draft ?? true);
          }
          drafts.push(seen);
        },
      });
      assert.deepEqual(sandboxResultProblems(result), []);
      assert.deepEqual(drafts, [
        [true, true],
        [true, true],
        [false, false],
      ]);
      const trigger = result.pullRequests.find((pr) => pr.repository === 'parent');
      assert.equal(trigger?.state, 'merged');
      for (const child of ['child-a', 'child-b']) {
        const nudge = result.pullRequests.find(
          (pr) => pr.repository === child && pr.branch === `feature-1234@${child}`,
        );
        assert.equal(nudge?.state, 'open', child);
        assert.equal(nudge.draft, false, child);
        assert.equal(nudge.group, 'feature-1234');
      }
      const preMerge = result.nudges.filter((n) => n.event === 'pull_request' || n.mode === 'immediate');
      assert.ok(preMerge.length > 0);
      assert.ok(
        result.nudges.every((n) => n.outcome !== 'failed'),
        JSON.stringify(result.nudges),
      );
      assert.deepEqual(violations(), []);
    });

    it('fails the run when the emulator found a request outside the official description', async () => {
      const scenario = await load('failed-build', `contract-${kind}`);
      await assert.rejects(
        playInEnvironment(env, scenario, {
          afterStep: (_step, index) => {
            // As the emulator records one: the sandbox must not report a run it cannot vouch for.
            if (index === 0) (violations() as string[]).push('client request: an injected finding');
            return Promise.resolve();
          },
        }),
        (error: unknown) =>
          error instanceof SandboxContractError &&
          error.violations.length === 1 &&
          error.message.includes('an injected finding'),
      );
      (violations() as string[]).length = 0;
    });

    it("plays an operator whose operand's PR is closed: the bundle's nudge PR is closed too", async () => {
      const scenario = await load('pre-merge-operator-closed', `closed-${kind}`);
      const result = await playInEnvironment(env, scenario);
      assert.deepEqual(sandboxResultProblems(result), []);
      const trigger = result.pullRequests.find((pr) => pr.repository === 'operand');
      assert.equal(trigger?.state, 'closed');
      const nudge = result.pullRequests.find((pr) => pr.repository === 'bundle' && pr.branch === 'feature-1234@bundle');
      assert.equal(nudge?.state, 'closed');
      assert.ok(
        result.nudges.every((n) => n.outcome !== 'failed'),
        JSON.stringify(result.nudges),
      );
      assert.deepEqual(violations(), []);
    });
  });
}
