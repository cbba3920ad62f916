// Part 2 of the pre-merge latency benchmark (bench/pre-merge-latency.ts, issue 12, docs/decisions.md
// D11, N34, N35): end to end through the manager on the GitHub and GitLab emulators
// (src/sandbox/forges/), with the immediate-nudge baseline measured in the same run beside it.
//
// One real kube-apiserver and etcd; one `nudger manager` in process configured as in a cluster that
// reaches both forges: each emulator is a configured host (`--github-host`, `--gitlab-host` with
// their API and git URLs), the token comes from each namespace's SCM Secret, the manager's own
// executors and trigger reader resolve it (no test resolver). Per forge two namespaces, `operand` →
// `bundle` on that emulator: `pre` opted in to pre-merge nudges, where a human's PR from
// `feature-1234` on the operand's repository is opened and pushed to over git smart HTTP and each
// push gets a succeeded pull-request build; `imm`, where push builds of the operand nudge `bundle`
// immediately. Lanes and forges alternate sample by sample.
//   t0: the moment the build's Succeeded=True status write is sent (StatusWriteClock);
//   t1: the first poll (every REF_POLL_MS) of the nudge branch's ref in the emulator's bare
//       repository after which its head's Dockerfile holds the build's digest: the nudge PR's head,
//       which both emulators read from git.
// After each sample the manager is let finish (pre: the pair's record applied with this build;
// imm: the build's marker settled), so samples never overlap. At the end each nudge PR is checked
// open (pre: a draft) and each emulator's contract log empty.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Credentials } from '../src/adapters/credentials/credentials.ts';
import { FORGE_REGISTRY, type HostedForge } from '../src/adapters/forges/registry.ts';
import { parseRepositoryUrl } from '../src/adapters/forges/repository-url.ts';
import type { ForgeProvider } from '../src/adapters/forges/types.ts';
import { localGitRun } from '../src/adapters/git/plumbing.ts';
import { GitWorkspaces } from '../src/adapters/git/workspace.ts';
import { KubeClient } from '../src/adapters/kubernetes/client.ts';
import { COMPONENTS, CONFIG_MAPS, NAMESPACES, NUDGE_CONFIGS, SECRETS } from '../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../src/adapters/kubernetes/types.ts';
import { PRE_MERGE_ANNOTATION } from '../src/controllers/dispatch/pre-merge-inputs.ts';
import {
  parsePreMergeRecord,
  PRE_MERGE_RECORD_KEY,
  preMergeRecordName,
  triggerKey,
} from '../src/domain/nudge/pre-merge-record.ts';
import { preMergeBranch } from '../src/domain/nudge/pre-merge-text.ts';
import { nudgeBranch } from '../src/domain/nudge/pull-request-text.ts';
import { SANDBOX_CRDS, startControlPlane } from '../src/sandbox/control-plane/control-plane.ts';
import { SANDBOX_DISPATCH_POLICY } from '../src/sandbox/environment.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../src/sandbox/forges/github-emulator/emulator.ts';
import { startGitLabEmulator, type GitLabEmulator } from '../src/sandbox/forges/gitlab-emulator/emulator.ts';
import { KonfluxStandIn } from '../src/sandbox/konflux.ts';
import { removeTempDirs, tempDir } from '../test/adapters/git/helpers.ts';
import { scmSecret } from '../test/integration/changegroup-tenant.ts';
import { startTestManager } from '../test/integration/manager-fixture.ts';
import { sandboxComponent } from '../test/sandbox/local-forge-fixtures.ts';
import { MarkerWatch, StatusWriteClock, WarningLog } from './dispatch-common.ts';
import { ms, summarizeMs } from './stats.ts';

const NUDGING = 'operand';
const TARGET = 'bundle';
const GROUP = 'feature-1234';
/** One token for both emulators: both are on 127.0.0.1, and an SCM Secret's host label has no port (N9). */
const TOKEN = 'bench-token-pre-merge-emulators-0123456789';
const REF_POLL_MS = 2;
const TIMESTAMP_RESOLUTION_MS = 1100;
const SAMPLE_TIMEOUT_MS = 120_000;
const HUMAN = { name: 'A Human', email: 'human@example.com' };
const BASE_DIGEST = `sha256:${'0'.repeat(64)}`;

export interface EmulatorRunOptions {
  readonly samples: number;
  readonly warmup: number;
  /** `dispatch.preMergePollMs`, as part 1 sets it. */
  readonly preMergePollMs: number;
}

type Kind = 'github' | 'gitlab';

interface Lane {
  readonly namespace: string;
  /** The bundle's bare repository in the emulator. */
  readonly gitDir: string;
  readonly branch: string;
  readonly latencies: number[];
  lastBuildAt: number;
}

interface ForgeRun {
  readonly kind: Kind;
  readonly emulator: GitHubEmulator | GitLabEmulator;
  readonly pre: Lane & { number: number; head: string };
  readonly imm: Lane;
  /** The human's view of the forge: opens the triggering PR. */
  readonly provider: ForgeProvider;
}

/** Everything a sample needs beside the forge. */
interface Shared {
  readonly client: KubeClient;
  readonly clock: StatusWriteClock;
  readonly konflux: KonfluxStandIn;
  readonly markers: MarkerWatch;
  readonly workspaces: GitWorkspaces;
  readonly credentials: Credentials;
}

const repositoryUrl = (emulator: { gitBaseUrl: string }, namespace: string, name: string): string =>
  `${emulator.gitBaseUrl}/${namespace}/${name}`;

/** The namespace, its SCM Secret, Components and NudgeConfig; the two repositories on the emulator. */
async function setUpNamespace(
  client: KubeClient,
  emulator: GitHubEmulator | GitLabEmulator,
  namespace: string,
  preMerge: boolean,
): Promise<Lane> {
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await client.create(SECRETS, scmSecret(namespace, '127.0.0.1', TOKEN));
  await emulator.createRepository(namespace, TARGET, {
    Dockerfile: `FROM quay.io/acme/${NUDGING}@${BASE_DIGEST}\n`,
  });
  await emulator.createRepository(namespace, NUDGING, { 'README.md': `${NUDGING}\n` });
  for (const name of [NUDGING, TARGET]) {
    await client.create(COMPONENTS, sandboxComponent(namespace, name, repositoryUrl(emulator, namespace, name)));
  }
  await client.create(NUDGE_CONFIGS, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: {
      name: 'nudge-config',
      namespace,
      ...(preMerge ? { annotations: { [PRE_MERGE_ANNOTATION]: 'true' } } : {}),
    },
    spec: { nudges: [{ from: NUDGING, to: TARGET }] },
  } as KubeObject);
  return {
    namespace,
    gitDir: join(emulator.projectRoot, namespace, `${TARGET}.git`),
    branch: preMerge ? preMergeBranch(GROUP, TARGET) : nudgeBranch(TARGET, NUDGING, false),
    latencies: [],
    lastBuildAt: 0,
  };
}

/** The human's change on `GROUP`, pushed over git smart HTTP; the new head. */
async function humanPush(
  shared: Pick<Shared, 'workspaces' | 'credentials'>,
  run: ForgeRun,
  from: string,
  expected: string | undefined,
): Promise<string> {
  const repo = parseRepositoryUrl(repositoryUrl(run.emulator, run.pre.namespace, NUDGING));
  const checkout = await shared.workspaces.prepareBase(run.provider.cloneUrl(repo), from, shared.credentials);
  const commit = await checkout.commitOnBase({
    files: [{ path: `CHANGES-${GROUP}.md`, text: `push at ${new Date().toISOString()}\n` }],
    message: `Change ${NUDGING} (${GROUP})`,
    author: HUMAN,
  });
  await checkout.pushWithLease(GROUP, expected, commit);
  return commit;
}

async function forgeRun(client: KubeClient, shared: Omit<Shared, 'markers'>, kind: Kind): Promise<ForgeRun> {
  const emulator =
    kind === 'github' ? await startGitHubEmulator({ token: TOKEN }) : await startGitLabEmulator({ token: TOKEN });
  const pre = await setUpNamespace(client, emulator, `bench-pmlat-${kind}-pre`, true);
  const imm = await setUpNamespace(client, emulator, `bench-pmlat-${kind}-imm`, false);
  const provider = FORGE_REGISTRY[kind].create({
    apiUrl: emulator.apiUrl,
    gitBaseUrl: emulator.gitBaseUrl,
    credentials: shared.credentials,
  });
  const run: ForgeRun = { kind, emulator, provider, imm, pre: { ...pre, number: 0, head: '' } };
  const head = await humanPush(shared, run, 'main', undefined);
  const created = await provider.createPullRequest({
    repo: parseRepositoryUrl(repositoryUrl(emulator, pre.namespace, NUDGING)),
    base: 'main',
    head: GROUP,
    title: `Change ${NUDGING}`,
    body: `A human's change, in PR group ${GROUP}.`,
    draft: false,
  });
  run.pre.number = created.number;
  run.pre.head = head;
  return run;
}

/**
 * Polls the loose ref of `lane.branch` every REF_POLL_MS until stopped; at each change, reads the
 * head's Dockerfile and keeps the poll's time. The first observation holding the digest is t1.
 */
class BranchObserver {
  readonly observations: { at: number; text: string }[] = [];
  #stopped = false;
  readonly #loop: Promise<void>;

  constructor(lane: Lane) {
    this.#loop = this.#poll(lane);
  }

  async #poll(lane: Lane): Promise<void> {
    const path = join(lane.gitDir, 'refs', 'heads', ...lane.branch.split('/'));
    const read = (): Promise<string> =>
      readFile(path, 'utf8').then(
        (text) => text.trim(),
        () => '',
      );
    let seen = await read();
    while (!this.#stopped) {
      const now = await read();
      if (now !== '' && now !== seen) {
        const at = performance.now();
        seen = now;
        const text = await localGitRun(lane.gitDir)('show', ['show', `${now}:Dockerfile`]).catch(() => '');
        this.observations.push({ at, text });
      }
      await sleep(REF_POLL_MS);
    }
  }

  async seen(digest: string): Promise<number> {
    const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
    try {
      for (;;) {
        const found = this.observations.find((observation) => observation.text.includes(digest));
        if (found !== undefined) return found.at;
        if (performance.now() > deadline) throw new Error(`no head of the nudge branch carries ${digest}`);
        await sleep(REF_POLL_MS);
      }
    } finally {
      this.#stopped = true;
      await this.#loop;
    }
  }
}

/** Build timestamps have one-second resolution: a build must sort after the lane's last one. */
async function afterLastBuild(lane: Lane): Promise<void> {
  await sleep(Math.max(0, lane.lastBuildAt + TIMESTAMP_RESOLUTION_MS - performance.now()));
}

function t0Of(shared: Shared, lane: Lane, build: string): number {
  const t0 = shared.clock.succeededAt(lane.namespace, build);
  if (t0 === undefined) throw new Error(`build ${build}: no Succeeded=True status write was seen`);
  lane.lastBuildAt = t0;
  return t0;
}

/** The pair's record shows `build` as the trigger's newest build, applied, nothing under way. */
async function preMergeSettled(shared: Shared, run: ForgeRun, build: string): Promise<void> {
  const { namespace } = run.pre;
  const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
  for (;;) {
    const map = await shared.client
      .get<KubeObject & { data?: Record<string, string> }>(CONFIG_MAPS, namespace, preMergeRecordName(GROUP, TARGET))
      .catch(() => undefined);
    const reading = parsePreMergeRecord(map?.data?.[PRE_MERGE_RECORD_KEY], GROUP, TARGET);
    if (reading.ok) {
      const { record } = reading;
      if (record.attempt?.state === 'failed')
        throw new Error(`${run.kind}: pre-merge nudge failed: ${record.attempt.reason ?? ''}`);
      const trigger = record.triggers[triggerKey(NUDGING, run.pre.number)];
      if (record.attempt === undefined && record.applied !== undefined && trigger?.pullRequestBuild.name === build)
        return;
    }
    if (performance.now() > deadline) throw new Error(`${run.kind}: the pre-merge record did not settle on ${build}`);
    await sleep(5);
  }
}

async function preMergeSample(shared: Shared, run: ForgeRun, record: boolean): Promise<void> {
  const lane = run.pre;
  await afterLastBuild(lane);
  const head = await humanPush(shared, run, GROUP, lane.head);
  lane.head = head;
  const observer = new BranchObserver(lane);
  const build = await shared.konflux.recordBuild({
    namespace: lane.namespace,
    component: NUDGING,
    nudge: false,
    commit: head,
    branch: 'main',
    pullRequest: {
      number: lane.number,
      sourceBranch: GROUP,
      repoUrl: repositoryUrl(run.emulator, lane.namespace, NUDGING),
    },
  });
  const t0 = t0Of(shared, lane, build.pipelineRun);
  const t1 = await observer.seen(build.digest);
  await preMergeSettled(shared, run, build.pipelineRun);
  if (record) lane.latencies.push(t1 - t0);
}

async function immediateSample(shared: Shared, run: ForgeRun, record: boolean): Promise<void> {
  const lane = run.imm;
  await afterLastBuild(lane);
  const observer = new BranchObserver(lane);
  const build = await shared.konflux.recordBuild({ namespace: lane.namespace, component: NUDGING, nudge: false });
  const t0 = t0Of(shared, lane, build.pipelineRun);
  const t1 = await observer.seen(build.digest);
  await shared.markers.waitSettled(lane.namespace, build.pipelineRun, SAMPLE_TIMEOUT_MS);
  if (record) lane.latencies.push(t1 - t0);
}

/** The nudge PRs as each emulator's UI shows them, and its contract log: '' when all is well. */
function checks(run: ForgeRun): string {
  const problems: string[] = [];
  const open = (namespace: string, branch: string): { draft: boolean } | undefined => {
    if (run.kind === 'github') {
      const pulls = (run.emulator as GitHubEmulator).pullRequests(namespace, TARGET);
      return pulls.find((pull) => pull.headRef === branch && pull.state === 'open');
    }
    const mrs = (run.emulator as GitLabEmulator).mergeRequests(namespace, TARGET);
    return mrs.find((mr) => mr.sourceBranch === branch && mr.state === 'opened');
  };
  const pre = open(run.pre.namespace, run.pre.branch);
  if (pre?.draft !== true) problems.push(`no open draft PR on ${run.pre.branch}`);
  if (open(run.imm.namespace, run.imm.branch) === undefined) problems.push(`no open PR on ${run.imm.branch}`);
  if (run.emulator.contractViolations.length > 0) {
    problems.push(`contract violations: ${run.emulator.contractViolations.slice(0, 3).join('; ')}`);
  }
  return problems.length === 0 ? '' : ` — CHECK FAILED: ${problems.join(', ')}`;
}

export async function emulatorsEndToEnd(options: EmulatorRunOptions): Promise<string[]> {
  const warnings = new WarningLog();
  const plane = await startControlPlane({ crds: SANDBOX_CRDS });
  const client = new KubeClient(plane.kubeConfig);
  const closers: (() => Promise<unknown>)[] = [
    () => plane.close(),
    () => {
      client.close();
      return Promise.resolve();
    },
  ];
  try {
    const clock = new StatusWriteClock(client);
    const partial = {
      client,
      clock,
      konflux: new KonfluxStandIn(clock.client, { seed: 'bench-pre-merge-emulators' }),
      workspaces: new GitWorkspaces({ cacheDir: join(tempDir('bench-pmlat-human'), 'cache') }),
      credentials: new Credentials({ token: TOKEN }),
    };
    const runs: ForgeRun[] = [];
    for (const kind of ['github', 'gitlab'] as const) {
      const run = await forgeRun(client, partial, kind);
      closers.push(() => run.emulator.close());
      runs.push(run);
    }
    const forgeHosts = new Map<string, HostedForge>(
      runs.map((run) => [
        new URL(run.emulator.gitBaseUrl).host,
        { kind: run.kind, apiUrl: run.emulator.apiUrl, gitBaseUrl: run.emulator.gitBaseUrl },
      ]),
    );
    const manager = await startTestManager(plane.kubeConfig, {
      logDestination: { write: (line: string) => warnings.lines.push(line) },
      changeGroups: { forgeHosts, gitCacheDir: join(tempDir('bench-pmlat-manager'), 'git') },
      overrides: {
        dispatch: {
          enabled: true,
          defaultExecutor: 'direct',
          policy: SANDBOX_DISPATCH_POLICY,
          preMergePollMs: options.preMergePollMs,
        },
      },
    });
    closers.push(() => manager.stop());
    const markers = await MarkerWatch.start(client, (_namespace, component) => (component === NUDGING ? [TARGET] : []));
    closers.push(() => markers.stop());
    const shared: Shared = { ...partial, markers };
    for (let round = 0; round < options.warmup + options.samples; round += 1) {
      const record = round >= options.warmup;
      for (const run of runs) {
        await preMergeSample(shared, run, record);
        await immediateSample(shared, run, record);
      }
    }
    const lines = [
      `2. end to end through the manager, GitHub and GitLab emulators (one real kube-apiserver + etcd; the manager in process with ` +
        `each emulator as a configured forge host and the token from each namespace's SCM Secret; the emulators over 127.0.0.1, ` +
        `every request checked against the official API descriptions, real git over smart HTTP; per forge an opened triggering PR ` +
        `pushed to over git ${String(options.samples)} times after ${String(options.warmup)} warm-up, each push a PR build, alternating with ` +
        `the operand's push builds into an immediate namespace; dispatch.preMergePollMs ${String(options.preMergePollMs)} ms; ` +
        `t1 = the nudge branch's ref in the emulator's bare repository polled every ${String(REF_POLL_MS)} ms until its head carries the digest):`,
    ];
    for (const run of runs) {
      const pre = summarizeMs(run.pre.latencies);
      const imm = summarizeMs(run.imm.latencies);
      lines.push(
        `  ${run.kind.padEnd(6)} pre-merge: PR build Succeeded=True written → ${run.pre.branch} carries the digest: ` +
          `p50 ${ms(pre.p50)}, p99 ${ms(pre.p99)}, max ${ms(pre.max)} (n=${String(pre.n)})${checks(run)}`,
        `  ${run.kind.padEnd(6)} immediate: push build Succeeded=True written → nudge PR carries the digest: ` +
          `p50 ${ms(imm.p50)}, p99 ${ms(imm.p99)}, max ${ms(imm.max)} (n=${String(imm.n)}) — baseline; ` +
          `pre-merge / immediate p50: ${(pre.p50 / imm.p50).toFixed(2)}x`,
      );
    }
    lines.push(`  ${warnings.summary()}`);
    return lines;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    removeTempDirs();
  }
}
