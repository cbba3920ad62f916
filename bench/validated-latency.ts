// Issue 11, "validated nudges": Snapshot pass → pull request updated, p50/p99, side by side with
// its baseline measured in the same run: build succeeded → pull request updated for an immediate
// entry (issue 10's figure, bench/dispatch-latency.ts). Prints figures; asserts nothing.
//
//   node bench/run.ts --only validated-latency           # 30 samples per lane after 5 warm-up
//   node bench/run.ts --only validated-latency --quick   # 10 samples after 2 warm-up
//   node bench/validated-latency.ts [--quick]            # the same, alone
// (Node 24; KUBEBUILDER_ASSETS from scripts/provision-control-plane.sh, docs/control-plane.md.)
//
// One sandbox (real kube-apiserver and etcd, the manager in process with its dispatcher, the local
// forge with real git, the Tekton stand-in running the renovate executor's PipelineRuns through
// the Renovate stand-in). One namespace per lane, each three operands → bundle (a generated
// Dockerfile pins all three):
//   validated/<executor>  validated entries gated by the ComponentGroup of the three operands
//                         (docs/decisions.md D10): one batch pull request on validatedBranch;
//   immediate/<executor>  immediate entries: one nudge pull request per operand (the baseline).
// Executors: `direct` and `renovate` (the NudgeConfig's executor annotation). A round plays one
// sample in every lane, lanes alternating, so a load change on the machine touches all of them;
// operands take turns, so each batch carries one new digest beside the two already nudged.
//
// Validated sample: a push build of the operand (Succeeded=True, as the KonfluxStandIn writes it),
// then, SNAPSHOT_AFTER_BUILD_MS later (integration tests take minutes on a cluster; the pause only
// lets the dispatcher's cache see the build first), integration-service's stand-in makes a push
// Snapshot of the group and writes AppStudioTestSucceeded=True.
//   t0: the moment that status write is sent;
//   t1: the first poll of the bundle's forge event log (every 5 ms) after which the open pull
//       request on validatedBranch(bundle, group) holds the new digest in its head's Dockerfile.
// The next sample waits until the dispatcher's record (N27) names that digest as nudged.
// Immediate sample: t0 the build's Succeeded=True status write, t1 the same poll on the operand's
// nudge branch; the next waits for the build's done-marker to be final (N18).
//
// The issue gives no target for this figure; the dispatch target (issue 10: p99 <= 1 s, build
// succeeded → PR updated) is printed as the reference.
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RepositoryRef } from '../src/adapters/forges/repository-url.ts';
import type { ObjectClient } from '../src/adapters/kubernetes/client.ts';
import { CONFIG_MAPS, SNAPSHOTS } from '../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../src/adapters/kubernetes/types.ts';
import type { DispatchExecutor } from '../src/domain/nudge/dispatch-intents.ts';
import { nudgeBranch } from '../src/domain/nudge/pull-request-text.ts';
import {
  parseValidatedRecord,
  VALIDATED_RECORD_KEY,
  validatedRecordName,
} from '../src/domain/nudge/validated-record.ts';
import { validatedBranch } from '../src/domain/nudge/validated-text.ts';
import type { SandboxEnvironment } from '../src/sandbox/environment.ts';
import { IntegrationStandIn, type PlayedBuildRef } from '../src/sandbox/integration.ts';
import { KonfluxStandIn } from '../src/sandbox/konflux.ts';
import { ScenarioPlayer } from '../src/sandbox/play.ts';
import { whenNotFound } from '../src/sandbox/poll-loop.ts';
import { checkScenarioDocument } from '../src/sandbox/scenario/parse.ts';
import {
  buildKey,
  pullRequestCarries,
  StatusWriteClock,
  withDispatchSandbox,
  type MarkerWatch,
} from './dispatch-common.ts';
import { ms, summarizeMs, verdict } from './stats.ts';
import { writesTestsPassed } from './validated-day.ts';

const OPERANDS = ['operand-a', 'operand-b', 'operand-c'] as const;
const TARGET = 'bundle';
const GROUP = 'operands';
const EXECUTORS: readonly DispatchExecutor[] = ['direct', 'renovate'];
const MODES = ['validated', 'immediate'] as const;
const FORGE_POLL_MS = 5;
/** The Tekton and PaC stand-ins' poll, as in dispatch-latency. */
const STAND_IN_POLL_MS = 25;
/** Build timestamps have one-second resolution: a rebuild must sort after its predecessor. */
const TIMESTAMP_RESOLUTION_MS = 1100;
const SNAPSHOT_AFTER_BUILD_MS = 500;
const SAMPLE_TIMEOUT_MS = 120_000;
/** Issue 10's dispatch target, the reference here. */
const REFERENCE_P99_MS = 1000;

export interface ValidatedLatencyOptions {
  readonly samples: number;
  readonly warmup: number;
}

/**
 * `wrapped`, except that each status write of a Snapshot that marks its tests passed is timed
 * (performance.now() as it is sent): t0 of the validated figure.
 */
class SnapshotPassClock {
  readonly client: ObjectClient;
  readonly #passedAt = new Map<string, number>();

  constructor(wrapped: ObjectClient) {
    const passedAt = this.#passedAt;
    this.client = new Proxy(wrapped, {
      get(target, property, receiver): unknown {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        if (property !== 'patchStatus') return value.bind(target) as unknown;
        return (...args: Parameters<ObjectClient['patchStatus']>) => {
          const [ref, namespace, name, , patch] = args;
          if (ref === SNAPSHOTS && writesTestsPassed(patch)) passedAt.set(buildKey(namespace, name), performance.now());
          return target.patchStatus(...args);
        };
      },
    });
  }

  passedAt(namespace: string, name: string): number | undefined {
    return this.#passedAt.get(buildKey(namespace, name));
  }
}

interface Lane {
  readonly mode: (typeof MODES)[number];
  readonly executor: DispatchExecutor;
  readonly namespace: string;
  readonly repo: RepositoryRef;
  readonly integration: IntegrationStandIn;
  readonly builds: PlayedBuildRef[];
  readonly latencies: number[];
  lastBuildAt: number;
  /** Why the lane stopped, when a sample failed (it is left out of the later rounds). */
  failure?: string;
}

async function setUpLane(
  env: SandboxEnvironment,
  passes: SnapshotPassClock,
  mode: Lane['mode'],
  executor: DispatchExecutor,
): Promise<Lane> {
  const namespace = `bench-vlat-${mode}-${executor}`;
  const nudge = mode === 'validated' ? { to: TARGET, mode, gatingGroup: GROUP } : TARGET;
  const scenario = checkScenarioDocument(
    {
      namespace,
      nudgedBy: 'nudger',
      executor,
      components: [
        ...OPERANDS.map((name) => ({ name, image: `quay.io/bench/${name}`, nudges: [nudge] })),
        { name: TARGET, image: `quay.io/bench/${TARGET}` },
      ],
      componentGroups: [{ name: GROUP, components: [...OPERANDS] }],
    },
    `validated latency benchmark (${mode}, ${executor})`,
  );
  await new ScenarioPlayer(env, scenario).setUp();
  return {
    mode,
    executor,
    namespace,
    repo: env.forge.repository(namespace, TARGET),
    integration: new IntegrationStandIn(passes.client),
    builds: [],
    latencies: [],
    lastBuildAt: 0,
  };
}

async function logSize(env: SandboxEnvironment, repo: RepositoryRef): Promise<number> {
  return stat(env.forge.eventLogPath(repo)).then(
    (info) => info.size,
    () => 0,
  );
}

/** The first poll time after `baseline` at which `branch`'s open PR on `repo` holds `digest`. */
async function awaitCarries(
  env: SandboxEnvironment,
  repo: RepositoryRef,
  branch: string,
  digest: string,
  baseline: number,
): Promise<number> {
  let size = baseline;
  const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
  for (;;) {
    const now = await logSize(env, repo);
    if (now !== size) {
      const seenAt = performance.now();
      size = now;
      if (await pullRequestCarries(env.forge, repo, branch, 'Dockerfile', digest)) return seenAt;
    }
    if (performance.now() > deadline) {
      throw new Error(
        `no open pull request on ${branch} carries ${digest} after ${String(SAMPLE_TIMEOUT_MS / 1000)} s`,
      );
    }
    await sleep(FORGE_POLL_MS);
  }
}

/** Until the dispatcher's record of (GROUP, TARGET) names `digest` as `component`'s last nudged. */
async function awaitRecorded(env: SandboxEnvironment, lane: Lane, component: string, digest: string): Promise<void> {
  const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
  for (;;) {
    const map = await env.client
      .get<KubeObject & { data?: Record<string, string> }>(
        CONFIG_MAPS,
        lane.namespace,
        validatedRecordName(GROUP, TARGET),
      )
      .catch(whenNotFound(undefined));
    const reading = parseValidatedRecord(map?.data?.[VALIDATED_RECORD_KEY], GROUP, TARGET);
    if (reading.ok && reading.record.nudged.get(component)?.digest === digest) return;
    if (performance.now() > deadline) throw new Error(`${lane.namespace}: ${digest} never recorded as nudged`);
    await sleep(FORGE_POLL_MS * 4);
  }
}

interface Instruments {
  readonly env: SandboxEnvironment;
  readonly konflux: KonfluxStandIn;
  readonly builds: StatusWriteClock;
  readonly passes: SnapshotPassClock;
  readonly markers: MarkerWatch;
}

async function sample(tools: Instruments, lane: Lane, component: string, record: boolean): Promise<void> {
  const { env, konflux, builds, passes, markers } = tools;
  await sleep(Math.max(0, lane.lastBuildAt + TIMESTAMP_RESOLUTION_MS - performance.now()));
  const branch = lane.mode === 'validated' ? validatedBranch(TARGET, GROUP) : nudgeBranch(TARGET, component, false);
  let baseline = await logSize(env, lane.repo);
  const build = await konflux.recordBuild({ namespace: lane.namespace, component, nudge: false });
  const built = builds.succeededAt(lane.namespace, build.pipelineRun);
  if (built === undefined) throw new Error(`build ${build.pipelineRun}: no Succeeded=True status write was seen`);
  lane.lastBuildAt = built;
  lane.builds.push({ name: build.pipelineRun, component });
  let t0 = built;
  if (lane.mode === 'validated') {
    await sleep(SNAPSHOT_AFTER_BUILD_MS);
    baseline = await logSize(env, lane.repo);
    const snapshot = await lane.integration.recordSnapshot({
      namespace: lane.namespace,
      group: GROUP,
      application: lane.namespace,
      passed: true,
      builds: lane.builds,
    });
    const passed = passes.passedAt(lane.namespace, snapshot.name);
    if (passed === undefined)
      throw new Error(`Snapshot ${snapshot.name}: no AppStudioTestSucceeded=True write was seen`);
    t0 = passed;
  }
  const t1 = await awaitCarries(env, lane.repo, branch, build.digest, baseline);
  // The dispatcher done with it before the next sample, so samples do not overlap.
  if (lane.mode === 'validated') await awaitRecorded(env, lane, component, build.digest);
  else await markers.waitSettled(lane.namespace, build.pipelineRun, SAMPLE_TIMEOUT_MS);
  if (record) lane.latencies.push(t1 - t0);
}

function laneLine(lane: Lane, label: string, reference: boolean): string {
  const name = `${lane.mode}/${lane.executor}`.padEnd(18);
  if (lane.failure !== undefined) return `  ${name}: no figure, a sample failed: ${lane.failure}`;
  const s = summarizeMs(lane.latencies);
  return (
    `  ${name}: ${label} p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)} (n=${String(s.n)})` +
    (reference ? ` — reference, issue 10's dispatch target: ${verdict(s.p99, REFERENCE_P99_MS)}` : '')
  );
}

export async function benchValidatedLatency(options: ValidatedLatencyOptions): Promise<string> {
  return withDispatchSandbox({ pollIntervalMs: STAND_IN_POLL_MS }, async ({ env, warnings, watchMarkers }) => {
    const builds = new StatusWriteClock(env.client);
    const passes = new SnapshotPassClock(env.client);
    const lanes: Lane[] = [];
    for (const executor of EXECUTORS) {
      for (const mode of MODES) lanes.push(await setUpLane(env, passes, mode, executor));
    }
    const markers = await watchMarkers((namespace, component) =>
      namespace.startsWith('bench-vlat-immediate-') && (OPERANDS as readonly string[]).includes(component)
        ? [TARGET]
        : [],
    );
    const tools: Instruments = {
      env,
      konflux: new KonfluxStandIn(builds.client, { seed: 'bench-validated-latency' }),
      builds,
      passes,
      markers,
    };
    for (let round = 0; round < options.warmup + options.samples; round += 1) {
      const component = OPERANDS[round % OPERANDS.length] ?? OPERANDS[0];
      for (const lane of lanes) {
        if (lane.failure !== undefined) continue;
        try {
          await sample(tools, lane, component, round >= options.warmup);
        } catch (error) {
          lane.failure = error instanceof Error ? error.message : String(error);
        }
      }
    }
    const lines = [
      `Snapshot AppStudioTestSucceeded=True written → batch PR carries the digest, beside build Succeeded=True written → nudge PR carries it ` +
        `(sandbox: real kube-apiserver + etcd, manager in process, local forge with real git; 3 operands → bundle per lane; ` +
        `${String(options.samples)} samples per lane after ${String(options.warmup)} warm-up, lanes alternating; Snapshot ${String(SNAPSHOT_AFTER_BUILD_MS)} ms after its build; ` +
        `forge event log polled every ${String(FORGE_POLL_MS)} ms):`,
    ];
    for (const executor of EXECUTORS) {
      for (const lane of lanes.filter((l) => l.executor === executor)) {
        lines.push(
          lane.mode === 'validated'
            ? laneLine(lane, 'pass → batch PR', executor === 'direct')
            : `${laneLine(lane, 'build → nudge PR', false)} — baseline`,
        );
      }
    }
    const ratios = EXECUTORS.flatMap((executor) => {
      const [validated, immediate] = MODES.map((mode) =>
        lanes.find((l) => l.mode === mode && l.executor === executor && l.failure === undefined),
      );
      if (validated === undefined || immediate === undefined) return [];
      const ratio = summarizeMs(validated.latencies).p50 / summarizeMs(immediate.latencies).p50;
      return [`${executor} ${ratio.toFixed(2)}x`];
    });
    lines.push(`  validated / immediate p50: ${ratios.join(', ')}; ${warnings.summary()}`);
    return lines.join('\n');
  });
}

if (import.meta.main) {
  const quick = process.argv.includes('--quick');
  console.log(await benchValidatedLatency(quick ? { samples: 10, warmup: 2 } : { samples: 30, warmup: 5 }));
}
