// docs/decisions.md D5 end to end: the pull request is derived state, so a controller killed at any point
// converges on restart to what an uninterrupted run produces. The manager is stopped and started
// again after every step of a 5-operand scenario, sometimes right after a build before anything
// settled (mid-reconcile, mid-push), sometimes after the system settled; the end state is compared
// with a run of the same scenario that was never interrupted.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { localGitRun } from '../../src/adapters/git/plumbing.ts';
import { hasSkipMarker } from '../../src/domain/pr-description/index.ts';
import type { SandboxEnvironment } from '../../src/sandbox/environment.ts';
import { ScenarioPlayer } from '../../src/sandbox/play.ts';
import { buildSteps, syntheticScenario } from '../../src/sandbox/scenario/default.ts';
import type { Scenario, ScenarioStep } from '../../src/sandbox/scenario/schema.ts';
import {
  filesAt,
  latestDigests,
  pacBuilds,
  parentsOf,
  pinnedDigests,
  readChangeGroup,
  repoOf,
  startEnvironment,
} from './helpers.ts';

const SEED = 42;
const BUNDLE = 'bundle';
const CHANGE_GROUP = 'bundle-update';

let env: SandboxEnvironment;

before(async () => {
  env = await startEnvironment();
});

after(async () => {
  await env.close();
});

function scenario(namespace: string): Scenario {
  const base = syntheticScenario(5, SEED);
  const operands = base.components.filter((c) => c.nudges.includes(BUNDLE)).map((c) => c.name);
  return { ...base, namespace, steps: buildSteps(operands, SEED, 2) };
}

interface EndState {
  readonly phase: string | undefined;
  readonly pullRequests: number;
  readonly draft: boolean;
  readonly state: string;
  readonly commitsOnBase: number;
  readonly tree: string;
  readonly message: string;
  readonly bundleBuilds: number;
  readonly buildOfHead: boolean;
  readonly components: [string, string, string | undefined][];
  readonly pins: Record<string, string[]>;
  readonly manualChanges: string | undefined;
}

async function endState(namespace: string, base: string): Promise<EndState> {
  const repo = repoOf(env, namespace, BUNDLE);
  const prs = await env.forge.listPullRequests(repo);
  const pr = prs[0];
  assert.ok(pr !== undefined, 'a pull request');
  const cg = await readChangeGroup(env, namespace, CHANGE_GROUP);
  const git = localGitRun(env.forge.gitDirectory(repo));
  const parents = await parentsOf(env, repo, pr.headSha);
  const files = await filesAt(env, repo, pr.headSha);
  const builds = pacBuilds(env, namespace, BUNDLE);
  const images = scenario(namespace).components.filter((c) => c.name !== BUNDLE);
  return {
    phase: cg.status?.phase,
    pullRequests: prs.length,
    draft: pr.draft,
    state: pr.state,
    commitsOnBase: parents.length === 1 && parents[0] === base ? 1 : -1,
    tree: (await git('rev-parse', ['rev-parse', `${pr.headSha}^{tree}`])).trim(),
    message: (await git('log', ['log', '-1', '--format=%B', pr.headSha])).trim(),
    bundleBuilds: builds.length,
    buildOfHead: builds.every((b) => b.headSha === pr.headSha && b.pullRequest === pr.number),
    components: (cg.status?.components ?? []).map((c) => [c.name, c.state, c.newBuild]),
    pins: Object.fromEntries(images.map((c) => [c.name, pinnedDigests(files, c.image)])),
    manualChanges: cg.status?.conditions?.find((c) => c.type === 'ManualChangesDetected')?.status,
  };
}

async function play(
  namespace: string,
  afterStep?: (step: ScenarioStep, index: number, player: ScenarioPlayer) => Promise<void>,
): Promise<EndState> {
  const holder: { player?: ScenarioPlayer } = {};
  const player = new ScenarioPlayer(env, scenario(namespace), {
    ...(afterStep === undefined
      ? {}
      : {
          afterStep: async (step, index) => {
            if (holder.player !== undefined) await afterStep(step, index, holder.player);
          },
        }),
  });
  holder.player = player;
  await player.setUp();
  const base = await env.forge.branchHead(repoOf(env, namespace, BUNDLE), 'main');
  assert.ok(base !== undefined);
  await player.play();
  return endState(namespace, base);
}

/** What any run of the scenario must end with. */
function assertConverged(state: EndState, namespace: string): void {
  const latest = latestDigests(scenario(namespace).steps);
  assert.equal(state.phase, 'Ready');
  assert.equal(state.pullRequests, 1, 'one pull request, never a second');
  assert.equal(state.state, 'open');
  assert.equal(state.draft, false);
  assert.equal(state.commitsOnBase, 1, 'one commit on the base');
  assert.equal(hasSkipMarker(state.message), false);
  assert.equal(state.bundleBuilds, 1, 'exactly one bundle build');
  assert.ok(state.buildOfHead, 'the build is of the final head');
  assert.deepEqual(
    state.components,
    [...latest.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, digest]) => [name, 'Ready', digest]),
  );
  assert.deepEqual(state.pins, Object.fromEntries([...latest.entries()].map(([name, digest]) => [name, [digest]])));
  assert.equal(state.manualChanges, 'False', 'nudger does not mistake its own pushes for manual changes');
}

describe('a controller killed at every step converges on the uninterrupted result', () => {
  let reference: EndState;

  it('uninterrupted run', async () => {
    reference = await play('crash-reference');
    assertConverged(reference, 'crash-reference');
  });

  it('manager restarted after every step, mid-reconcile after builds, settled after others', async () => {
    const namespace = 'crash-restarts';
    let restarts = 0;
    const state = await play(namespace, async (step, index, player) => {
      if ('build' in step && index % 2 === 0) {
        // Right after the build: the hold, the status write or the push may be under way.
        await sleep((index * 37) % 200);
      } else {
        await player.settle();
      }
      await env.stopManager();
      await env.startManager();
      restarts += 1;
    });
    assert.equal(restarts, scenario(namespace).steps.length);
    assertConverged(state, namespace);
    assert.deepEqual(
      { ...state, message: state.message.replace(/ChangeGroup: .*/, '') },
      { ...reference, message: reference.message.replace(/ChangeGroup: .*/, '') },
      'the same tree, message, builds and status as the uninterrupted run',
    );
  });

  it('manager killed during the final push, then restarted', async () => {
    const namespace = 'crash-final';
    const steps = scenario(namespace).steps;
    const state = await play(namespace, async (_step, index) => {
      if (index !== steps.length - 1) return;
      // The last build is in: stop the manager as soon as the branch moves (the final push made,
      // its status perhaps not yet written), or after a short while if it has not moved yet.
      const repo = repoOf(env, namespace, BUNDLE);
      const before = (await env.forge.listPullRequests(repo))[0]?.headSha;
      for (let i = 0; i < 40; i += 1) {
        if ((await env.forge.listPullRequests(repo))[0]?.headSha !== before) break;
        await sleep(10);
      }
      await env.stopManager();
      await env.startManager();
    });
    assertConverged(state, namespace);
    assert.equal(state.tree, reference.tree);
  });
});
