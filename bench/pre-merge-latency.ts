// Issue 12, "pre-merge nudges" (docs/decisions.md D11, N34, N35): triggering PR build succeeded →
// nudge PR `<group>@<target>` updated, p50/p99, beside its baseline measured in the same run: a
// push build succeeded → immediate nudge PR updated (issue 10's figure, bench/dispatch-latency.ts).
// Prints figures; asserts nothing.
//
//   node bench/run.ts --only pre-merge-latency           # 30 samples per lane after 5 warm-up
//   node bench/run.ts --only pre-merge-latency --quick   # 10 samples after 2 warm-up
//   node bench/pre-merge-latency.ts [--quick]            # the same, alone
// (Node 24; KUBEBUILDER_ASSETS from scripts/provision-control-plane.sh, docs/control-plane.md.)
//
// WHICH PATH IS MEASURED ON WHICH FORGE. Two parts:
//
// 1. End to end, local forge only: one sandbox (real kube-apiserver and etcd, the manager in process
//    with its dispatcher and pre-merge reconciler, the local forge with real git). Two namespaces,
//    each `operand` → `bundle` (a generated Dockerfile pins the operand): `preMerge: true`, where one
//    triggering PR from branch `feature-1234` is opened and then pushed to N times (each push a new
//    pull-request build, played by the sandbox's own pull-request steps); and the baseline, where
//    the operand's push builds nudge `bundle` immediately. Lanes alternate sample by sample.
//      t0: the moment the build's Succeeded=True status write is sent (StatusWriteClock);
//      t1: the first poll of the bundle repository's forge event log (every 5 ms) after which the
//          open PR on `feature-1234@bundle` (baseline: the immediate nudge branch) holds the build's
//          digest in its head's Dockerfile.
//    The pre-merge reconciler learns of a pull-request build from its watch, but asks the forge for
//    each trigger's state on every reconcile and polls it every `dispatch.preMergePollMs`; the
//    manager's default is 60 s, the sandbox's 1 s, and this benchmark sets PRE_MERGE_POLL_MS.
//
// 2. Executor level, all three forges side by side: the `direct` executor's firePreMerge, from the
//    call to the nudge branch's ref moving in the forge's bare repository (the PR's head carries
//    the digest: part 1's t1) and to its ok outcome (the PR's text, draft state and labels updated
//    too), for one open trigger whose digest changes each sample, on the local forge, the GitHub emulator
//    (src/sandbox/forges/github-emulator/, the provider the manager's registry builds, real git over
//    smart HTTP) and the GitLab emulator (src/sandbox/forges/gitlab-emulator/, likewise). After the last
//    sample each forge's nudge branch is checked to hold the last digest.
//
// Why not the end-to-end path on the emulators: the sandbox plays `forge: local` only (the
// scenario parser refuses `github` and `gitlab`), its environment hands the manager a
// LocalForgeResolver, and the player, the pull-request steps and the Pipelines-as-Code stand-in
// create repositories and PRs on the local forge; pointing all of that at an emulator (a
// HostedForgeResolver with SCM Secrets, repositories and human PRs on the emulator, its URLs in
// the Components and builds) is a change of the sandbox, not of a benchmark. What the manager adds
// before the executor is forge-independent but for one getPullRequest per trigger (the trigger
// reader), which part 1 measures on the local forge.
//
// The issue gives no target for this figure; the dispatch target (issue 10: p99 <= 1 s, build
// succeeded → PR updated) is printed as the reference.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Credentials } from '../src/adapters/credentials/credentials.ts';
import { LocalForge } from '../src/adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../src/adapters/forges/local/local-resolver.ts';
import { FORGE_REGISTRY } from '../src/adapters/forges/registry.ts';
import type { ForgeResolver } from '../src/adapters/forges/resolver.ts';
import { parseRepositoryUrl, type RepositoryRef } from '../src/adapters/forges/repository-url.ts';
import { localGitRun } from '../src/adapters/git/plumbing.ts';
import { GitWorkspaces } from '../src/adapters/git/workspace.ts';
import { DirectNudgeExecutor } from '../src/controllers/dispatch/direct/direct-executor.ts';
import { preMergeBranch } from '../src/domain/nudge/pre-merge-text.ts';
import { nudgeBranch } from '../src/domain/nudge/pull-request-text.ts';
import type { SandboxEnvironment } from '../src/sandbox/environment.ts';
import { KonfluxStandIn } from '../src/sandbox/konflux.ts';
import { ScenarioPlayer } from '../src/sandbox/play.ts';
import { PullRequestSteps } from '../src/sandbox/pull-request-steps.ts';
import { checkScenarioDocument } from '../src/sandbox/scenario/parse.ts';
import type { Scenario } from '../src/sandbox/scenario/schema.ts';
import { BATCH_FILES } from '../test/controllers/dispatch-direct-batch-fixture.ts';
import { digestOf } from '../test/controllers/dispatch-direct-fixture.ts';
import {
  PRE_MERGE_BRANCH,
  preMergeRequest,
  type Trigger,
} from '../test/controllers/dispatch-direct-pre-merge-fixture.ts';
import { startGitHubEmulator } from '../src/sandbox/forges/github-emulator/emulator.ts';
import { startGitLabEmulator } from '../src/sandbox/forges/gitlab-emulator/emulator.ts';
import { removeTempDirs, tempDir } from '../test/adapters/git/helpers.ts';
import {
  fileAt,
  pullRequestCarries,
  StatusWriteClock,
  withDispatchSandbox,
  type MarkerWatch,
} from './dispatch-common.ts';
import { ms, summarizeMs, verdict } from './stats.ts';

const NUDGING = 'operand';
const TARGET = 'bundle';
const GROUP = 'feature-1234';
const FORGE_POLL_MS = 5;
/** Part 2 reads a loose ref file: cheaper than the event log, so polled more often. */
const REF_POLL_MS = 2;
/** The Tekton and PaC stand-ins' poll, as in dispatch-latency. */
const STAND_IN_POLL_MS = 25;
/** `dispatch.preMergePollMs` for this run: the manager's default is 60 s, the sandbox's 1 s. */
export const PRE_MERGE_POLL_MS = 200;
/** Build timestamps have one-second resolution: a rebuild must sort after its predecessor. */
const TIMESTAMP_RESOLUTION_MS = 1100;
const SAMPLE_TIMEOUT_MS = 120_000;
/** Issue 10's dispatch target, the reference here. */
const REFERENCE_P99_MS = 1000;
const EMULATOR_TOKEN = 'bench-token-pre-merge-latency-0123456789';

export interface PreMergeLatencyOptions {
  readonly samples: number;
  readonly warmup: number;
}

/** What a poll of a nudge PR saw: when, and its head's file text. */
export interface Observation {
  readonly at: number;
  readonly text: string;
}

/** The time of the first observation whose text holds `needle`; undefined when none does. */
export function firstSeenWith(observations: readonly Observation[], needle: string): number | undefined {
  return observations.find((observation) => observation.text.includes(needle))?.at;
}

/**
 * The sample's digest character (digestOf repeats it 64 times): never `0`, the fixture's base
 * digest (a trigger pinning it would change nothing and close the PR), and never the previous one.
 */
export function digestCharOf(sample: number): string {
  const chars = '123456789abcdef';
  return chars[sample % chars.length] ?? '1';
}

// ---- Part 1: end to end on the local forge --------------------------------------------------

async function logSize(env: SandboxEnvironment, repo: RepositoryRef): Promise<number> {
  return stat(env.forge.eventLogPath(repo)).then(
    (info) => info.size,
    () => 0,
  );
}

/**
 * Polls `repo`'s forge event log every FORGE_POLL_MS from `baseline`; at each growth, reads the
 * open PR on `branch` and keeps its head's Dockerfile. The digest is not known before the build
 * is recorded (the pull-request steps generate it), so the times are kept and searched after.
 */
class NudgePullRequestObserver {
  readonly observations: Observation[] = [];
  #stopped = false;
  readonly #loop: Promise<void>;

  constructor(env: SandboxEnvironment, repo: RepositoryRef, branch: string, baseline: number) {
    this.#loop = this.#poll(env, repo, branch, baseline);
  }

  async #poll(env: SandboxEnvironment, repo: RepositoryRef, branch: string, baseline: number): Promise<void> {
    let size = baseline;
    while (!this.#stopped) {
      const now = await logSize(env, repo);
      if (now !== size) {
        const at = performance.now();
        size = now;
        const pr = await env.forge.findPullRequestByHeadBranch(repo, branch);
        if (pr?.state === 'open')
          this.observations.push({ at, text: await fileAt(env.forge, repo, pr.headSha, 'Dockerfile') });
      }
      await sleep(FORGE_POLL_MS);
    }
  }

  /** The first poll time at which the PR held `digest`, waiting for it up to SAMPLE_TIMEOUT_MS. */
  async seen(digest: string): Promise<number> {
    const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
    try {
      for (;;) {
        const at = firstSeenWith(this.observations, digest);
        if (at !== undefined) return at;
        if (performance.now() > deadline) throw new Error(`no open pull request carries ${digest}`);
        await sleep(FORGE_POLL_MS);
      }
    } finally {
      this.#stopped = true;
      await this.#loop;
    }
  }
}

interface EndToEnd {
  readonly env: SandboxEnvironment;
  readonly clock: StatusWriteClock;
  readonly konflux: KonfluxStandIn;
  readonly markers: MarkerWatch;
  readonly preMerge: { namespace: string; repo: RepositoryRef; steps: PullRequestSteps; latencies: number[] };
  readonly immediate: { namespace: string; repo: RepositoryRef; latencies: number[]; lastBuildAt: number };
}

/** The namespace's Components, NudgeConfig and repositories, as the sandbox sets them up; its scenario. */
async function setUpNamespace(env: SandboxEnvironment, namespace: string, preMerge: boolean): Promise<Scenario> {
  const scenario = checkScenarioDocument(
    {
      namespace,
      nudgedBy: 'nudger',
      executor: 'direct',
      preMerge,
      components: [
        { name: NUDGING, image: `quay.io/bench/${NUDGING}`, nudges: [TARGET] },
        { name: TARGET, image: `quay.io/bench/${TARGET}` },
      ],
    },
    `pre-merge latency benchmark (${namespace})`,
  );
  await new ScenarioPlayer(env, scenario).setUp();
  return scenario;
}

async function preMergeSample(e2e: EndToEnd, verb: 'openPullRequest' | 'pushToPullRequest', record: boolean) {
  const { env, clock, preMerge } = e2e;
  const observer = new NudgePullRequestObserver(
    env,
    preMerge.repo,
    preMergeBranch(GROUP, TARGET),
    await logSize(env, preMerge.repo),
  );
  await preMerge.steps.play({ verb, component: NUDGING, branch: GROUP });
  const fact = preMerge.steps.nudges.at(-1);
  if (fact?.outcome !== 'pullRequest' || fact.digest === null) {
    throw new Error(`pre-merge nudge not made: ${JSON.stringify(fact)}`);
  }
  const t1 = await observer.seen(fact.digest);
  const t0 = clock.succeededAt(preMerge.namespace, fact.build);
  if (t0 === undefined) throw new Error(`build ${fact.build}: no Succeeded=True status write was seen`);
  if (record) preMerge.latencies.push(t1 - t0);
}

async function immediateSample(e2e: EndToEnd, record: boolean): Promise<void> {
  const { env, clock, konflux, markers, immediate } = e2e;
  await sleep(Math.max(0, immediate.lastBuildAt + TIMESTAMP_RESOLUTION_MS - performance.now()));
  let size = await logSize(env, immediate.repo);
  const build = await konflux.recordBuild({ namespace: immediate.namespace, component: NUDGING, nudge: false });
  const t0 = clock.succeededAt(immediate.namespace, build.pipelineRun);
  if (t0 === undefined) throw new Error(`build ${build.pipelineRun}: no Succeeded=True status write was seen`);
  immediate.lastBuildAt = t0;
  const branch = nudgeBranch(TARGET, NUDGING, false);
  const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
  let t1: number | undefined;
  while (t1 === undefined) {
    const now = await logSize(env, immediate.repo);
    if (now !== size) {
      const at = performance.now();
      size = now;
      if (await pullRequestCarries(env.forge, immediate.repo, branch, 'Dockerfile', build.digest)) t1 = at;
    }
    if (performance.now() > deadline) throw new Error(`no open pull request on ${branch} carries ${build.digest}`);
    if (t1 === undefined) await sleep(FORGE_POLL_MS);
  }
  // The dispatcher done with it (marker final) before the next build, so samples do not overlap.
  await markers.waitSettled(immediate.namespace, build.pipelineRun, SAMPLE_TIMEOUT_MS);
  if (record) immediate.latencies.push(t1 - t0);
}

async function endToEnd(options: PreMergeLatencyOptions): Promise<string[]> {
  return withDispatchSandbox(
    { pollIntervalMs: STAND_IN_POLL_MS, preMergePollMs: PRE_MERGE_POLL_MS },
    async ({ env, warnings, watchMarkers }) => {
      const [preMergeNs, immediateNs] = ['bench-pmlat-premerge', 'bench-pmlat-immediate'];
      const scenario = await setUpNamespace(env, preMergeNs, true);
      await setUpNamespace(env, immediateNs, false);
      const clock = new StatusWriteClock(env.client);
      const konflux = new KonfluxStandIn(clock.client, { seed: 'bench-pre-merge-latency' });
      const markers = await watchMarkers((namespace, component) =>
        namespace === immediateNs && component === NUDGING ? [TARGET] : [],
      );
      const steps = new PullRequestSteps({
        // The pull-request builds go through the clock, as the immediate lane's push builds do.
        env: { ...env, konflux },
        scenario,
        repos: new Map([
          [NUDGING, env.forge.repository(preMergeNs, NUDGING)],
          [TARGET, env.forge.repository(preMergeNs, TARGET)],
        ]),
        workspaces: new GitWorkspaces({ cacheDir: `${env.forge.root}/../human-git-bench-pmlat` }),
        settleTimeoutMs: SAMPLE_TIMEOUT_MS,
        targets: (component) => (component === NUDGING ? [TARGET] : []),
        recordPushBuild: () => Promise.reject(new Error('the benchmark merges no pull request')),
      });
      const e2e: EndToEnd = {
        env,
        clock,
        konflux,
        markers,
        preMerge: { namespace: preMergeNs, repo: env.forge.repository(preMergeNs, TARGET), steps, latencies: [] },
        immediate: {
          namespace: immediateNs,
          repo: env.forge.repository(immediateNs, TARGET),
          latencies: [],
          lastBuildAt: 0,
        },
      };
      // Round 0 opens the triggering PR (its first build opens the draft nudge PR): a warm-up.
      for (let round = 0; round < options.warmup + options.samples; round += 1) {
        const record = round >= options.warmup;
        await preMergeSample(e2e, round === 0 ? 'openPullRequest' : 'pushToPullRequest', record);
        await immediateSample(e2e, record);
      }
      const pre = summarizeMs(e2e.preMerge.latencies);
      const base = summarizeMs(e2e.immediate.latencies);
      return [
        `1. end to end, local forge (sandbox: real kube-apiserver + etcd, manager in process, local forge with real git; ` +
          `operand → bundle; one open triggering PR pushed to ${String(options.samples)} times after ${String(options.warmup)} warm-up, ` +
          `alternating with the operand's push builds; dispatch.preMergePollMs ${String(PRE_MERGE_POLL_MS)} ms (manager default 60 s); ` +
          `forge event log polled every ${String(FORGE_POLL_MS)} ms):`,
        `  pre-merge: PR build Succeeded=True written → ${preMergeBranch(GROUP, TARGET)} carries the digest: ` +
          `p50 ${ms(pre.p50)}, p99 ${ms(pre.p99)}, max ${ms(pre.max)} (n=${String(pre.n)}) — reference, issue 10's dispatch target: ${verdict(pre.p99, REFERENCE_P99_MS)}`,
        `  immediate: push build Succeeded=True written → nudge PR carries the digest: ` +
          `p50 ${ms(base.p50)}, p99 ${ms(base.p99)}, max ${ms(base.max)} (n=${String(base.n)}) — baseline`,
        `  pre-merge / immediate p50: ${(pre.p50 / base.p50).toFixed(2)}x; ${warnings.summary()}`,
      ];
    },
  );
}

// ---- Part 2: the direct executor's firePreMerge on three forges --------------------------------

interface ForgeLane {
  readonly name: 'local' | 'github' | 'gitlab';
  readonly executor: DirectNudgeExecutor;
  /** The nudged repository `acme/bundle`. */
  readonly url: string;
  /** The bare repository, to check the last digest. */
  readonly gitDir: string;
  /** Per sample: the call → the nudge branch's ref moved (the PR's head carries the digest). */
  readonly pushed: number[];
  /** Per sample: the call → the ok outcome (the PR's text, draft state and labels updated too). */
  readonly latencies: number[];
  readonly close: () => Promise<void>;
  failure?: string;
}

/**
 * Reads the loose ref of the nudge branch in `gitDir` (every forge here keeps its bare
 * repositories on this disk) every REF_POLL_MS until stopped; the first time it differs from what
 * it was at the start is when the push landed.
 */
async function refMovedAt(gitDir: string, done: { stopped: boolean }): Promise<number | undefined> {
  const path = join(gitDir, 'refs', 'heads', PRE_MERGE_BRANCH);
  const read = (): Promise<string> => readFile(path, 'utf8').catch(() => '');
  const before = await read();
  while (!done.stopped) {
    const now = await read();
    if (now !== '' && now !== before) return performance.now();
    await sleep(REF_POLL_MS);
  }
  return undefined;
}

function executorOver(resolver: ForgeResolver, prefix: string): DirectNudgeExecutor {
  return new DirectNudgeExecutor({
    resolver,
    workspaces: new GitWorkspaces({ cacheDir: join(tempDir(prefix), 'cache') }),
  });
}

function hostedResolver(kind: 'github' | 'gitlab', apiUrl: string, gitBaseUrl: string): ForgeResolver {
  return {
    resolve: (gitUrl) =>
      Promise.resolve({
        repo: parseRepositoryUrl(gitUrl),
        provider: FORGE_REGISTRY[kind].create({
          apiUrl,
          gitBaseUrl,
          credentials: new Credentials({ token: EMULATOR_TOKEN }),
        }),
      }),
  };
}

/** A lane over `resolver`, whose `acme/bundle` is at `url` and, as a bare repository, at `gitDir`. */
function forgeLane(
  name: ForgeLane['name'],
  resolver: ForgeResolver,
  where: { url: string; gitDir: string },
  close: () => Promise<void>,
): ForgeLane {
  return { name, executor: executorOver(resolver, `bench-pmlat-${name}`), ...where, pushed: [], latencies: [], close };
}

async function forgeLanes(): Promise<ForgeLane[]> {
  const local = new LocalForge({ root: join(tempDir('bench-pmlat-local-forge'), 'forge') });
  const repo = await local.createRepository('acme', 'bundle', BATCH_FILES);
  const github = await startGitHubEmulator({ token: EMULATOR_TOKEN });
  await github.createRepository('acme', 'bundle', BATCH_FILES, 'main', { autoMergeAllowed: true });
  const gitlab = await startGitLabEmulator({ token: EMULATOR_TOKEN });
  await gitlab.createRepository('acme', 'bundle', BATCH_FILES);
  const hosted = (emulator: { gitBaseUrl: string; projectRoot: string }) => ({
    url: `${emulator.gitBaseUrl}/acme/bundle`,
    gitDir: `${emulator.projectRoot}/acme/bundle.git`,
  });
  return [
    forgeLane(
      'local',
      new LocalForgeResolver(local),
      { url: local.repositoryUrl('acme', 'bundle'), gitDir: local.gitDirectory(repo) },
      () => Promise.resolve(),
    ),
    forgeLane('github', hostedResolver('github', github.apiUrl, github.gitBaseUrl), hosted(github), () =>
      github.close(),
    ),
    forgeLane('gitlab', hostedResolver('gitlab', gitlab.apiUrl, gitlab.gitBaseUrl), hosted(gitlab), () =>
      gitlab.close(),
    ),
  ];
}

/** One open trigger, operand-a's PR #12, built again for sample `i`: a new digest and a newer build. */
function triggerOf(i: number): Trigger {
  const createdAt = new Date(Date.UTC(2026, 0, 1, 10, 0, i)).toISOString().replace('.000Z', 'Z');
  return { component: 'operand-a', number: 12, state: 'open', digest: digestCharOf(i), createdAt };
}

async function executorLevel(options: PreMergeLatencyOptions): Promise<string[]> {
  const lanes = await forgeLanes();
  try {
    const rounds = options.warmup + options.samples;
    for (let round = 0; round < rounds; round += 1) {
      for (const lane of lanes) {
        if (lane.failure !== undefined) continue;
        const request = preMergeRequest(lane.url, [triggerOf(round)]);
        const done = { stopped: false };
        const moved = refMovedAt(lane.gitDir, done);
        const t0 = performance.now();
        const outcome = await lane.executor.firePreMerge(request);
        const t1 = performance.now();
        done.stopped = true;
        const pushedAt = await moved;
        if (!outcome.result.ok) lane.failure = `${outcome.result.reason}: ${outcome.result.message}`;
        else if (pushedAt === undefined) lane.failure = `the ref of ${PRE_MERGE_BRANCH} did not move`;
        else if (round >= options.warmup) {
          lane.pushed.push(pushedAt - t0);
          lane.latencies.push(t1 - t0);
        }
      }
    }
    const last = digestOf(digestCharOf(rounds - 1));
    const lines = [
      `2. executor level, three forges side by side: the direct executor's firePreMerge, from the call to the nudge branch's ref moving in the forge's bare repository (polled every ${String(REF_POLL_MS)} ms), and to its ok outcome; nudge PR ${PRE_MERGE_BRANCH}, ` +
        `one open trigger whose digest changes each sample; ${String(options.samples)} samples per forge after ${String(options.warmup)} warm-up, forges alternating ` +
        `(emulators over 127.0.0.1 with real git over smart HTTP; the manager's part before the executor is in figure 1, local forge only):`,
    ];
    for (const lane of lanes) {
      const name = lane.name.padEnd(6);
      if (lane.failure !== undefined) {
        lines.push(`  ${name}: no figure, a fire failed: ${lane.failure}`);
        continue;
      }
      const csv = await localGitRun(lane.gitDir)('show', ['show', `${PRE_MERGE_BRANCH}:manifests/csv.yaml`]).catch(
        () => '',
      );
      const p = summarizeMs(lane.pushed);
      const s = summarizeMs(lane.latencies);
      lines.push(
        `  ${name}: branch pushed (PR head carries the digest) p50 ${ms(p.p50)}, p99 ${ms(p.p99)}, max ${ms(p.max)}; ` +
          `whole fire (PR text, draft, labels too) p50 ${ms(s.p50)}, p99 ${ms(s.p99)} (n=${String(s.n)})` +
          (csv.includes(last) ? '' : ` — CHECK FAILED: ${PRE_MERGE_BRANCH} does not hold the last digest`),
      );
    }
    return lines;
  } finally {
    for (const lane of lanes) await lane.close().catch(() => undefined);
    removeTempDirs();
  }
}

export async function benchPreMergeLatency(options: PreMergeLatencyOptions): Promise<string> {
  const lines = [
    `triggering PR build succeeded → pre-merge nudge PR updated (docs/decisions.md D11, N34, N35); ` +
      `end to end on the local forge only, executor level on local, GitHub emulator and GitLab emulator (the sandbox plays forge: local only; see the file header):`,
    ...(await endToEnd(options)),
    ...(await executorLevel(options)),
  ];
  return lines.join('\n');
}

if (import.meta.main) {
  const quick = process.argv.includes('--quick');
  console.log(await benchPreMergeLatency(quick ? { samples: 10, warmup: 2 } : { samples: 30, warmup: 5 }));
}
