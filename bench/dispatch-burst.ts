// Issue 10: a burst of succeeded builds through nudger's dispatcher and `direct` executor in the
// sandbox (real kube-apiserver and etcd, the manager in process, the local forge with real git).
// Shape: per namespace, the OLM operator's: 10 operands each nudging the one bundle (10 nudge
// branches and pull requests on the bundle's repository, each rewriting its own FROM line of the
// Dockerfile); 100 namespaces make 1,000 builds and 1,000 pull requests on 100 repositories.
// The namespaces are set up by bench/tenant-setup.ts (docs/decisions.md N50). Every build is
// recorded (created, then its status written Succeeded=True, by the sandbox's KonfluxStandIn) 16
// at a time, as fast as the API server accepts them.
//
// Figures: from the first Succeeded=True write until every build's done-marker is settled as a
// watch sees it (then every pull request is checked: open, with the build's digest); nudges per
// second; the bench process's peak RSS, sampled every 50 ms (the manager runs in process, as in
// every sandbox benchmark, so this includes the stand-ins and this driver; kube-apiserver and etcd
// are child processes and not counted); duplicates from the forge (pull requests per branch,
// pushes per nudge branch) and from the markers (fires per dispatch key). Printed, not asserted.
import { performance } from 'node:perf_hooks';
import { readForgeEvents } from '../src/adapters/forges/local/local-forge.ts';
import { mapWithConcurrency } from '../src/domain/concurrency.ts';
import { nudgeBranch } from '../src/domain/nudge/pull-request-text.ts';
import type { SandboxEnvironment } from '../src/sandbox/environment.ts';
import { KonfluxStandIn, type RecordedBuild } from '../src/sandbox/konflux.ts';
import {
  awaitAllSettled,
  fileAt,
  RssSampler,
  seconds,
  StatusWriteClock,
  withDispatchSandbox,
} from './dispatch-common.ts';
import { BUNDLE, operatorScenario, setUpScenarios, setUpSummary } from './tenant-setup.ts';

const OPERANDS_PER_NAMESPACE = 10;
const BUILDS_IN_FLIGHT = 16;
const CHECKS_IN_FLIGHT = 4;
const RSS_SAMPLE_MS = 50;
const SETTLE_TIMEOUT_MS = 30 * 60_000;

export interface DispatchBurstOptions {
  readonly namespaces: number;
}

function operand(index: number): string {
  return `op-${String(index)}`;
}

function namespaceName(index: number): string {
  return `bench-burst-${String(index)}`;
}

interface ForgeCheck {
  readonly verified: number;
  readonly missing: string[];
  readonly duplicatePullRequests: number;
  readonly duplicatePushes: number;
  /** Latest `opened` event on any bundle repository (wall clock, ms since the epoch). */
  readonly lastOpenedAt: number;
}

/** Every nudge branch's pull requests and pushes, from the forge's store and event log. */
async function checkForge(env: SandboxEnvironment, builds: readonly RecordedBuild[]): Promise<ForgeCheck> {
  const byNamespace = Map.groupBy(builds, (build) => build.namespace);
  const results = await mapWithConcurrency([...byNamespace], CHECKS_IN_FLIGHT, async ([namespace, built]) => {
    const repo = env.forge.repository(namespace, BUNDLE);
    const pullRequests = await env.forge.listPullRequests(repo);
    const perBranch = Map.groupBy(pullRequests, (pr) => pr.headBranch);
    const pushes = new Map<string, number>();
    let lastOpenedAt = 0;
    for (const event of (await readForgeEvents(env.forge, repo, 0)).events) {
      if (event.type === 'push') pushes.set(event.ref, (pushes.get(event.ref) ?? 0) + 1);
      else if (event.type === 'opened') lastOpenedAt = Math.max(lastOpenedAt, Date.parse(event.at));
    }
    let verified = 0;
    const missing: string[] = [];
    for (const build of built) {
      const branch = nudgeBranch(BUNDLE, build.component, false);
      const pr = perBranch.get(branch)?.find((candidate) => candidate.state === 'open');
      const carries =
        pr !== undefined && (await fileAt(env.forge, repo, pr.headSha, 'Dockerfile')).includes(build.digest);
      if (carries) verified += 1;
      else missing.push(`${namespace}/${build.component}`);
    }
    return {
      verified,
      missing,
      duplicatePullRequests: [...perBranch.values()].filter((prs) => prs.length > 1).length,
      duplicatePushes: [...pushes].filter(([ref, count]) => ref.startsWith('refs/heads/konflux/') && count > 1).length,
      lastOpenedAt,
    };
  });
  return {
    verified: results.reduce((sum, r) => sum + r.verified, 0),
    missing: results.flatMap((r) => r.missing),
    duplicatePullRequests: results.reduce((sum, r) => sum + r.duplicatePullRequests, 0),
    duplicatePushes: results.reduce((sum, r) => sum + r.duplicatePushes, 0),
    lastOpenedAt: Math.max(...results.map((r) => r.lastOpenedAt)),
  };
}

export async function benchDispatchBurst(options: DispatchBurstOptions): Promise<string> {
  return withDispatchSandbox({}, async ({ env, warnings, watchMarkers }) => {
    // The PaC stand-in would read all 1,100 repositories' event logs every poll to count
    // pull-request builds, which this benchmark does not report: stopped, so it loads nothing.
    await env.pac.stop();
    const setUpStart = performance.now();
    const operands = Array.from({ length: OPERANDS_PER_NAMESPACE }, (_, i) => operand(i));
    const setUp = await setUpScenarios(
      env,
      Array.from({ length: options.namespaces }, (_, index) =>
        operatorScenario(namespaceName(index), operands, { origin: 'dispatch burst benchmark' }),
      ),
    );
    const setUpMs = performance.now() - setUpStart;
    const markers = await watchMarkers((_, component) => (component === BUNDLE ? [] : [BUNDLE]));
    const clock = new StatusWriteClock(env.client);
    const konflux = new KonfluxStandIn(clock.client, { seed: 'bench-dispatch-burst' });
    // Operand-major: consecutive builds are in different namespaces, as unrelated tenants' are.
    const work = Array.from({ length: OPERANDS_PER_NAMESPACE }, (_, o) =>
      Array.from({ length: options.namespaces }, (_, n) => ({ namespace: namespaceName(n), component: operand(o) })),
    ).flat();
    const rssBefore = process.memoryUsage.rss() / 2 ** 20;
    const rss = new RssSampler(RSS_SAMPLE_MS);
    const wallStart = Date.now();
    const submitStart = performance.now();
    const builds = await mapWithConcurrency(work, BUILDS_IN_FLIGHT, (build) =>
      konflux.recordBuild({ ...build, nudge: false }),
    );
    const written = performance.now();
    const start = clock.firstSucceededAt() ?? submitStart;
    const lastSettled = await awaitAllSettled(markers, builds, SETTLE_TIMEOUT_MS);
    const peakRss = rss.stop();
    const forge = await checkForge(env, builds);
    const total = lastSettled - start;
    const fires = [...markers.fires.values()];
    const notPullRequest = builds.filter(
      (build) => markers.states(build.namespace, build.pipelineRun).get(BUNDLE) !== 'pullRequest',
    ).length;
    const count = builds.length;
    return [
      `dispatch burst, direct executor (sandbox: real kube-apiserver + etcd, manager in process, local forge with real git): ` +
        `${count.toLocaleString('en')} succeeded builds over ${String(options.namespaces)} namespaces ` +
        `(each: ${String(OPERANDS_PER_NAMESPACE)} operands nudging one bundle; set up in ${seconds(setUpMs)}: ${setUpSummary(setUp)}), ` +
        `written ${String(BUILDS_IN_FLIGHT)} at a time in ${seconds(written - submitStart)}:`,
      `  every nudge out (every marker settled, seen by a watch) ${seconds(total)} after the first Succeeded=True write; ` +
        `${(count / (total / 1000)).toFixed(1)} nudges/s; last PR opened (forge log) at +${seconds(forge.lastOpenedAt - wallStart)}`,
      `  PRs open with the build's digest: ${String(forge.verified)}/${String(count)}` +
        (forge.missing.length === 0 ? '' : ` (missing: ${forge.missing.slice(0, 5).join(', ')}…)`) +
        `; targets not ending pullRequest: ${String(notPullRequest)}`,
      `  peak RSS of the bench process (manager in process + stand-ins + driver, sampled every ${String(RSS_SAMPLE_MS)} ms): ` +
        `${peakRss.toFixed(0)} MiB (${rssBefore.toFixed(0)} MiB before the burst)`,
      `  duplicates (must be 0): PRs per (repository, branch) > 1: ${String(forge.duplicatePullRequests)}; ` +
        `pushes per nudge branch > 1: ${String(forge.duplicatePushes)}; ` +
        `fires per dispatch key > 1 (firing entries a marker watch saw): ${String(fires.filter((n) => n > 1).length)} ` +
        `(keys fired ${String(fires.length)}/${String(count)}); unreadable markers: ${String(markers.unreadable.size)}; ` +
        warnings.summary(),
    ].join('\n');
  });
}

if (import.meta.main) {
  const quick = process.argv.includes('--quick');
  console.log(await benchDispatchBurst({ namespaces: quick ? 20 : 100 }));
}
