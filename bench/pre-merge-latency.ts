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
// WHICH PATH IS MEASURED ON WHICH FORGE. Two parts, both end to end through the manager:
//
// 1. The local forge: one sandbox (real kube-apiserver and etcd, the manager in process with its
//    dispatcher and pre-merge reconciler, the local forge with real git). Two namespaces,
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
// 2. The GitHub and GitLab emulators (bench/pre-merge-emulators.ts): the same two lanes per forge
//    against a manager that reaches each emulator as a configured forge host with the token from
//    the namespace's SCM Secret, as in a cluster; t1 is when the nudge branch's ref in the
//    emulator's bare repository first holds the digest (the PR's head, which both read from git).
//
// The issue gives no target for this figure; the dispatch target (issue 10: p99 <= 1 s, build
// succeeded → PR updated) is printed as the reference.
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RepositoryRef } from '../src/adapters/forges/repository-url.ts';
import { GitWorkspaces } from '../src/adapters/git/workspace.ts';
import { preMergeBranch } from '../src/domain/nudge/pre-merge-text.ts';
import { nudgeBranch } from '../src/domain/nudge/pull-request-text.ts';
import type { SandboxEnvironment } from '../src/sandbox/environment.ts';
import { KonfluxStandIn } from '../src/sandbox/konflux.ts';
import { ScenarioPlayer } from '../src/sandbox/play.ts';
import { PullRequestSteps } from '../src/sandbox/pull-request-steps.ts';
import { checkScenarioDocument } from '../src/sandbox/scenario/parse.ts';
import type { Scenario } from '../src/sandbox/scenario/schema.ts';
import {
  fileAt,
  pullRequestCarries,
  StatusWriteClock,
  withDispatchSandbox,
  type MarkerWatch,
} from './dispatch-common.ts';
import { emulatorsEndToEnd } from './pre-merge-emulators.ts';
import { ms, summarizeMs, verdict } from './stats.ts';

const NUDGING = 'operand';
const TARGET = 'bundle';
const GROUP = 'feature-1234';
const FORGE_POLL_MS = 5;
/** The Tekton and PaC stand-ins' poll, as in dispatch-latency. */
const STAND_IN_POLL_MS = 25;
/** `dispatch.preMergePollMs` for this run: the manager's default is 60 s, the sandbox's 1 s. */
export const PRE_MERGE_POLL_MS = 200;
/** Build timestamps have one-second resolution: a rebuild must sort after its predecessor. */
const TIMESTAMP_RESOLUTION_MS = 1100;
const SAMPLE_TIMEOUT_MS = 120_000;
/** Issue 10's dispatch target, the reference here. */
const REFERENCE_P99_MS = 1000;

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

export async function benchPreMergeLatency(options: PreMergeLatencyOptions): Promise<string> {
  const lines = [
    `triggering PR build succeeded → pre-merge nudge PR updated (docs/decisions.md D11, N34, N35), ` +
      `end to end through the manager on the local forge, the GitHub emulator and the GitLab emulator, each beside its immediate-nudge baseline:`,
    ...(await endToEnd(options)),
    ...(await emulatorsEndToEnd({ ...options, preMergePollMs: PRE_MERGE_POLL_MS })),
  ];
  return lines.join('\n');
}

if (import.meta.main) {
  const quick = process.argv.includes('--quick');
  console.log(await benchPreMergeLatency(quick ? { samples: 10, warmup: 2 } : { samples: 30, warmup: 5 }));
}
