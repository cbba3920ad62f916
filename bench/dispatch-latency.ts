// Issue 10: build succeeded → nudge pull request updated, nudger's `direct` executor against its
// `renovate` executor on the same scenario in the same sandbox (real kube-apiserver and etcd, the
// manager in process with the dispatcher, the local forge with real git, the Tekton stand-in
// running the renovate executor's PipelineRuns through the Renovate stand-in). Two namespaces,
// one per executor (the NudgeConfig's executor annotation), each `operand` → `bundle`, `catalog`;
// builds of `operand` alternate between them so that a load change on the machine touches both.
//
// t0: the moment the build PipelineRun's Succeeded=True status write is sent (StatusWriteClock).
// t1: the first poll of the target repository's forge event log (every 5 ms) after which its nudge
// pull request is open and its head's Dockerfile holds the build's digest. Every push and pull
// request change appends to that log, so a 5 ms stat of its size sees each one.
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalForge } from '../src/adapters/forges/local/local-forge.ts';
import type { RepositoryRef } from '../src/adapters/forges/repository-url.ts';
import type { DispatchExecutor } from '../src/domain/nudge/dispatch-intents.ts';
import { nudgeBranch } from '../src/domain/nudge/pull-request-text.ts';
import type { SandboxEnvironment } from '../src/sandbox/environment.ts';
import { KonfluxStandIn } from '../src/sandbox/konflux.ts';
import { ScenarioPlayer } from '../src/sandbox/play.ts';
import { checkScenarioDocument } from '../src/sandbox/scenario/parse.ts';
import { pullRequestCarries, StatusWriteClock, withDispatchSandbox, type MarkerWatch } from './dispatch-common.ts';
import { ms, summarizeMs, verdict } from './stats.ts';

const NUDGING = 'operand';
const TARGETS = ['bundle', 'catalog'] as const;
const EXECUTORS: readonly DispatchExecutor[] = ['direct', 'renovate'];
const FORGE_POLL_MS = 5;
/** The Tekton stand-in's (and PaC stand-in's) poll: real Tekton reacts to a watch event instead. */
const STAND_IN_POLL_MS = 25;
/** Build timestamps have one-second resolution: a build must sort after its predecessor (as play.ts). */
const TIMESTAMP_RESOLUTION_MS = 1100;
const SAMPLE_TIMEOUT_MS = 120_000;
const TARGET_P99_MS = 1000;

export interface DispatchLatencyOptions {
  readonly samples: number;
  readonly warmup: number;
}

interface Target {
  readonly component: string;
  readonly repo: RepositoryRef;
  readonly branch: string;
}

async function logSize(forge: LocalForge, repo: RepositoryRef): Promise<number> {
  return stat(forge.eventLogPath(repo)).then(
    (info) => info.size,
    () => 0,
  );
}

/**
 * For each target, the first poll time at which its pull request carries `digest`. `baseline` is
 * each log's size before the build: a change is looked at once, when the log has grown past it.
 */
async function awaitPullRequests(
  forge: LocalForge,
  targets: readonly Target[],
  digest: string,
  baseline: readonly number[],
): Promise<number[]> {
  const sizes = [...baseline];
  const found: (number | undefined)[] = targets.map(() => undefined);
  const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
  for (;;) {
    for (const [index, target] of targets.entries()) {
      if (found[index] !== undefined) continue;
      const size = await logSize(forge, target.repo);
      if (size === sizes[index]) continue;
      const seenAt = performance.now();
      sizes[index] = size;
      if (await pullRequestCarries(forge, target.repo, target.branch, 'Dockerfile', digest)) found[index] = seenAt;
    }
    if (found.every((at) => at !== undefined)) return found;
    if (performance.now() > deadline) {
      const missing = targets.filter((_, index) => found[index] === undefined).map((t) => t.component);
      throw new Error(
        `no pull request on ${missing.join(', ')} carries ${digest} after ${String(SAMPLE_TIMEOUT_MS / 1000)} s`,
      );
    }
    await sleep(FORGE_POLL_MS);
  }
}

interface Lane {
  readonly executor: DispatchExecutor;
  readonly namespace: string;
  readonly targets: readonly Target[];
  /** Per build: the last target's t1 − t0. */
  readonly everyPr: number[];
  /** Per build and target: t1 − t0. */
  readonly perPr: number[];
  /** Per build: t0 → the watch sees the first `firing` entry (the dispatcher decided to fire). */
  readonly decided: number[];
  /** Per build: the first `firing` entry seen → the first PR carries the digest (one executor call). */
  readonly firstPr: number[];
  lastBuildAt: number;
}

async function setUpLane(env: SandboxEnvironment, executor: DispatchExecutor): Promise<Lane> {
  const namespace = `bench-latency-${executor}`;
  const scenario = checkScenarioDocument(
    {
      namespace,
      nudgedBy: 'nudger',
      executor,
      components: [
        { name: NUDGING, image: 'quay.io/bench/operand', nudges: [...TARGETS] },
        ...TARGETS.map((name) => ({ name, image: `quay.io/bench/${name}` })),
      ],
    },
    `dispatch latency benchmark (${executor})`,
  );
  await new ScenarioPlayer(env, scenario).setUp();
  return {
    executor,
    namespace,
    targets: TARGETS.map((component) => ({
      component,
      repo: env.forge.repository(namespace, component),
      branch: nudgeBranch(component, NUDGING, false),
    })),
    everyPr: [],
    perPr: [],
    decided: [],
    firstPr: [],
    lastBuildAt: 0,
  };
}

async function sample(
  env: SandboxEnvironment,
  konflux: KonfluxStandIn,
  clock: StatusWriteClock,
  markers: MarkerWatch,
  lane: Lane,
  record: boolean,
): Promise<void> {
  await sleep(Math.max(0, lane.lastBuildAt + TIMESTAMP_RESOLUTION_MS - performance.now()));
  const baseline = await Promise.all(lane.targets.map((target) => logSize(env.forge, target.repo)));
  const build = await konflux.recordBuild({ namespace: lane.namespace, component: NUDGING, nudge: false });
  const t0 = clock.succeededAt(lane.namespace, build.pipelineRun);
  if (t0 === undefined) throw new Error(`build ${build.pipelineRun}: no Succeeded=True status write was seen`);
  lane.lastBuildAt = t0;
  const t1 = await awaitPullRequests(env.forge, lane.targets, build.digest, baseline);
  // The dispatcher done with it (marker final) before the next build, so samples do not overlap.
  await markers.waitSettled(lane.namespace, build.pipelineRun, SAMPLE_TIMEOUT_MS);
  if (!record) return;
  lane.everyPr.push(Math.max(...t1) - t0);
  lane.perPr.push(...t1.map((at) => at - t0));
  const firing = markers.firstFiringAt(lane.namespace, build.pipelineRun);
  if (firing === undefined) return;
  lane.decided.push(firing - t0);
  lane.firstPr.push(Math.min(...t1) - firing);
}

function laneLine(lane: Lane, target?: number): string {
  const every = summarizeMs(lane.everyPr);
  const per = summarizeMs(lane.perPr);
  return (
    `  ${lane.executor.padEnd(8)}: both PRs updated p50 ${ms(every.p50)}, p99 ${ms(every.p99)}, max ${ms(every.max)} (n=${String(every.n)}); ` +
    `each PR p50 ${ms(per.p50)}, p99 ${ms(per.p99)} (n=${String(per.n)}); ` +
    `first firing entry seen after p50 ${ms(summarizeMs(lane.decided).p50)}, ` +
    `from it to the first PR p50 ${ms(summarizeMs(lane.firstPr).p50)}` +
    (target === undefined ? '' : ` — ${verdict(every.p99, target)}`)
  );
}

export async function benchDispatchLatency(options: DispatchLatencyOptions): Promise<string> {
  return withDispatchSandbox({ pollIntervalMs: STAND_IN_POLL_MS }, async ({ env, warnings, watchMarkers }) => {
    const lanes = [];
    for (const executor of EXECUTORS) lanes.push(await setUpLane(env, executor));
    const markers = await watchMarkers((_, component) => (component === NUDGING ? TARGETS : []));
    const clock = new StatusWriteClock(env.client);
    const konflux = new KonfluxStandIn(clock.client, { seed: 'bench-dispatch-latency' });
    for (let round = 0; round < options.warmup + options.samples; round += 1) {
      for (const lane of lanes) await sample(env, konflux, clock, markers, lane, round >= options.warmup);
    }
    const [direct, renovate] = lanes;
    if (direct === undefined || renovate === undefined) throw new Error('two lanes expected');
    const ratio = summarizeMs(renovate.everyPr).p50 / summarizeMs(direct.everyPr).p50;
    return [
      `build Succeeded=True written → nudge PR carries the digest (sandbox: real kube-apiserver + etcd, manager in process, local forge with real git; ` +
        `operand → bundle, catalog; ${String(options.samples)} builds per executor after ${String(options.warmup)} warm-up, alternating; ` +
        `forge event log polled every ${String(FORGE_POLL_MS)} ms):`,
      laneLine(direct, TARGET_P99_MS),
      `${laneLine(renovate)} — baseline; the Tekton stand-in polls every ${String(STAND_IN_POLL_MS)} ms and has no pod or Renovate start-up, so this is a floor for a real Renovate run`,
      `  renovate / direct, both PRs p50: ${ratio.toFixed(1)}x; ${warnings.summary()}`,
    ].join('\n');
  });
}

if (import.meta.main) {
  const quick = process.argv.includes('--quick');
  console.log(await benchDispatchLatency(quick ? { samples: 10, warmup: 2 } : { samples: 30, warmup: 3 }));
}
