// What the two dispatch benchmarks of issue 10 (dispatch-latency.ts, dispatch-burst.ts) share: the
// moment a build's status is written Succeeded=True, the dispatcher's done-markers as a watch sees
// every write of them (docs/decisions.md N18), whether a nudge pull request on the local forge
// carries a digest, and the bench process's peak RSS. Everything else is the sandbox's own
// machinery (src/sandbox), used as it is.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalForge } from '../src/adapters/forges/local/local-forge.ts';
import type { RepositoryRef } from '../src/adapters/forges/repository-url.ts';
import { localGitRun } from '../src/adapters/git/plumbing.ts';
import type { KubeClient, ObjectClient, PatchType, WriteOptions } from '../src/adapters/kubernetes/client.ts';
import { KubeListWatchSource } from '../src/adapters/kubernetes/list-watch.ts';
import { PIPELINE_RUNS } from '../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../src/adapters/kubernetes/types.ts';
import { PUSH_BUILD_RUNS_SELECTOR } from '../src/cluster/watched-kinds.ts';
import { DISPATCH_MARKER_ANNOTATION, parseMarker } from '../src/domain/nudge/dispatch-marker.ts';
import { COMPONENT_LABEL } from '../src/domain/nudge-pipelinerun.ts';
import { isRecord } from '../src/domain/records.ts';
import { createLogger, type Logger } from '../src/runtime/logger.ts';
import { startSandboxEnvironment, type SandboxEnvironment } from '../src/sandbox/environment.ts';
import { dispatchSettled } from '../src/sandbox/scenario/nudges.ts';

/** `<namespace>/<name>`: how the benchmarks key builds. */
export function buildKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function writesSucceeded(patch: unknown): boolean {
  const conditions = isRecord(patch) && isRecord(patch.status) ? patch.status.conditions : undefined;
  return (
    Array.isArray(conditions) &&
    conditions.some((c: unknown) => isRecord(c) && c.type === 'Succeeded' && c.status === 'True')
  );
}

/**
 * The sandbox's KonfluxStandIn writes a build's status as Tekton would; given `client` (every
 * call passed on to the wrapped one), the moment (performance.now()) each PipelineRun status write
 * that says Succeeded=True is sent is kept: t0 of the latency figure, and the start of the burst.
 */
export class StatusWriteClock {
  readonly client: ObjectClient;
  readonly #succeededAt = new Map<string, number>();

  constructor(wrapped: ObjectClient) {
    this.client = {
      get: wrapped.get.bind(wrapped),
      list: wrapped.list.bind(wrapped),
      create: wrapped.create.bind(wrapped),
      replace: wrapped.replace.bind(wrapped),
      replaceStatus: wrapped.replaceStatus.bind(wrapped),
      patch: wrapped.patch.bind(wrapped),
      delete: wrapped.delete.bind(wrapped),
      patchStatus: <T extends KubeObject>(ref: ResourceRef, namespace: string, name: string, ...rest: PatchRest) => {
        if (ref === PIPELINE_RUNS && writesSucceeded(rest[1])) {
          this.#succeededAt.set(buildKey(namespace, name), performance.now());
        }
        return wrapped.patchStatus<T>(ref, namespace, name, ...rest);
      },
    };
  }

  /** When the Succeeded=True status write of `namespace/name` was sent; undefined before. */
  succeededAt(namespace: string, name: string): number | undefined {
    return this.#succeededAt.get(buildKey(namespace, name));
  }

  /** The earliest Succeeded=True write sent. */
  firstSucceededAt(): number | undefined {
    const times = [...this.#succeededAt.values()];
    return times.length === 0 ? undefined : Math.min(...times);
  }
}

/** patchStatus's arguments after the object's name: type, patch, options. */
type PatchRest = [type: PatchType, patch: unknown, options?: WriteOptions];

interface WatchedBuild {
  /** Each target's state as last written, in the marker's own text (`firing:1:<time>`, …). */
  readonly states: Map<string, string>;
  /** When a `firing` entry was first seen: the dispatcher has decided and calls an executor. */
  firstFiringAt?: number;
  settledAt?: number;
}

/** Which targets a build of `component` in `namespace` has: what settled means for it. */
export type TargetsOf = (namespace: string, component: string) => readonly string[];

/**
 * What successive versions of push build PipelineRuns say about the dispatcher's done-markers
 * (docs/decisions.md N18). The dispatcher writes a target's `firing` entry (a compare-and-swap)
 * before each executor call, so every new `firing` entry of a key is a fire: more than one is a
 * duplicate (or a retry, which the benchmarks do not expect either). A build is settled when
 * dispatchSettled says so (every target named and final), the sandbox's own rule.
 */
export class MarkerHistory {
  readonly #builds = new Map<string, WatchedBuild>();
  readonly #fires = new Map<string, number>();
  readonly #unreadable = new Set<string>();
  readonly #targetsOf: TargetsOf;
  readonly #now: () => number;

  constructor(targetsOf: TargetsOf, now: () => number = () => performance.now()) {
    this.#targetsOf = targetsOf;
    this.#now = now;
  }

  /** One version of a build PipelineRun, in the order the API server wrote them. */
  see(run: KubeObject): void {
    const namespace = run.metadata?.namespace ?? '';
    const name = run.metadata?.name ?? '';
    const key = buildKey(namespace, name);
    const text = run.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
    const build = this.#builds.get(key) ?? { states: new Map<string, string>() };
    this.#builds.set(key, build);
    if (text === undefined) return;
    const reading = parseMarker(text);
    if (!reading.ok) {
      this.#unreadable.add(key);
      return;
    }
    for (const entry of reading.marker.entries) {
      const state = serializedState(text, entry.name);
      if (entry.state.kind === 'firing' && build.states.get(entry.name) !== state) {
        const fireKey = `${key} ${entry.name}`;
        this.#fires.set(fireKey, (this.#fires.get(fireKey) ?? 0) + 1);
        build.firstFiringAt ??= this.#now();
      }
      build.states.set(entry.name, state);
    }
    const component = run.metadata?.labels?.[COMPONENT_LABEL] ?? '';
    if (build.settledAt === undefined && dispatchSettled(name, this.#targetsOf(namespace, component), text)) {
      build.settledAt = this.#now();
    }
  }

  /** When `namespace/name` was first seen settled; undefined while it is not. */
  settledAt(namespace: string, name: string): number | undefined {
    return this.#builds.get(buildKey(namespace, name))?.settledAt;
  }

  /** When a `firing` entry was first seen on `namespace/name`; undefined before. */
  firstFiringAt(namespace: string, name: string): number | undefined {
    return this.#builds.get(buildKey(namespace, name))?.firstFiringAt;
  }

  /** Each target's last state text of `namespace/name` (`pullRequest`, `failed:<reason>`, …). */
  states(namespace: string, name: string): ReadonlyMap<string, string> {
    return this.#builds.get(buildKey(namespace, name))?.states ?? new Map();
  }

  /** Fires per dispatch key (`<namespace>/<build> <target>`), as counted from `firing` entries. */
  get fires(): ReadonlyMap<string, number> {
    return this.#fires;
  }

  /** Builds whose marker the dispatcher's own parser refuses. */
  get unreadable(): ReadonlySet<string> {
    return this.#unreadable;
  }
}

const LIST_PAGE = 500;

/** A MarkerHistory fed by one watch on push build PipelineRuns, from the moment `start` returns. */
export class MarkerWatch extends MarkerHistory {
  readonly #abort = new AbortController();
  #failure: unknown;
  #loop: Promise<void> = Promise.resolve();

  /** Watching once the LIST it starts from has answered. */
  static async start(client: KubeClient, targetsOf: TargetsOf): Promise<MarkerWatch> {
    const watch = new MarkerWatch(targetsOf);
    const source = new KubeListWatchSource<KubeObject>(client.http, PIPELINE_RUNS, PUSH_BUILD_RUNS_SELECTOR);
    // In pages, as an informer lists: one answer with the scale benchmark's 20,000 PipelineRuns
    // outlasts the client's request timeout on a loaded machine. Every page is of the first's
    // snapshot, whose resourceVersion the watch starts from.
    let listed = await source.list({ limit: LIST_PAGE });
    const resourceVersion = listed.resourceVersion;
    for (;;) {
      for (const run of listed.items) watch.see(run);
      if (listed.continue === undefined) break;
      listed = await source.list({ limit: LIST_PAGE, continue: listed.continue });
    }
    watch.#loop = watch.#follow(source, resourceVersion).catch((error: unknown) => {
      if (!watch.#abort.signal.aborted) watch.#failure = error;
    });
    return watch;
  }

  async #follow(source: KubeListWatchSource<KubeObject>, from: string): Promise<void> {
    let resourceVersion = from;
    while (!this.#abort.signal.aborted) {
      const events = await source.watch({
        resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: 600,
        signal: this.#abort.signal,
      });
      for await (const event of events) {
        if (event.type === 'ERROR') throw new Error(`marker watch: ${JSON.stringify(event.status)}`);
        resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
        if (event.type !== 'BOOKMARK') this.see(event.object);
      }
    }
  }

  /** As MarkerHistory's, but a failed watch is an error rather than a build never settled. */
  override settledAt(namespace: string, name: string): number | undefined {
    if (this.#failure !== undefined) {
      throw new Error('the marker watch failed; the figures would be incomplete', { cause: this.#failure });
    }
    return super.settledAt(namespace, name);
  }

  /** Resolves once `namespace/name` is settled; rejects after `timeoutMs` with its marker. */
  async waitSettled(namespace: string, name: string, timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const at = this.settledAt(namespace, name);
      if (at !== undefined) return at;
      if (this.unreadable.has(buildKey(namespace, name))) {
        throw new Error(`build ${buildKey(namespace, name)}: the dispatcher wrote a marker it cannot read`);
      }
      if (performance.now() > deadline) {
        const states = [...this.states(namespace, name)].map(([target, state]) => `${target}=${state}`).join(' ');
        throw new Error(
          `build ${buildKey(namespace, name)} not settled by the dispatcher within ${String(timeoutMs / 1000)} s (marker: ${states === '' ? 'none' : states})`,
        );
      }
      await sleep(5);
    }
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
  }
}

/** Until the watch has seen every build settled; the time (performance.now()) the last one was. */
export async function awaitAllSettled(
  markers: MarkerWatch,
  builds: readonly { readonly namespace: string; readonly pipelineRun: string }[],
  timeoutMs: number,
  /** Gives up sooner when no further build has settled for this long. */
  stallMs = timeoutMs,
): Promise<number> {
  const start = performance.now();
  const deadline = start + timeoutMs;
  let settled = 0;
  let progressAt = start;
  for (;;) {
    const times = builds.map((build) => markers.settledAt(build.namespace, build.pipelineRun));
    const done = times.filter((at) => at !== undefined);
    if (done.length === times.length) return Math.max(...done);
    const now = performance.now();
    if (done.length > settled) {
      settled = done.length;
      progressAt = now;
    }
    if (now > deadline || now - progressAt > stallMs) {
      throw new Error(
        `${String(times.length - done.length)} of ${String(times.length)} builds not settled by the dispatcher after ${seconds(now - start)} ` +
          `(the last one settled ${seconds(now - progressAt)} before)`,
      );
    }
    await sleep(50);
  }
}

/** The text of `name`'s entry in a serialised marker: `v1 a=pullRequest b=firing:1:…` → `firing:1:…`. */
function serializedState(marker: string, name: string): string {
  const prefix = `${name}=`;
  return (
    marker
      .split(' ')
      .find((part) => part.startsWith(prefix))
      ?.slice(prefix.length) ?? ''
  );
}

/** Whether `repo` has an open pull request on `branch` whose head's `file` holds `digest`. */
export async function pullRequestCarries(
  forge: LocalForge,
  repo: RepositoryRef,
  branch: string,
  file: string,
  digest: string,
): Promise<boolean> {
  const pr = await forge.findPullRequestByHeadBranch(repo, branch);
  if (pr?.state !== 'open') return false;
  return (await fileAt(forge, repo, pr.headSha, file)).includes(digest);
}

/** `file` at `revision` of `repo`, '' when it has no such file. */
export async function fileAt(forge: LocalForge, repo: RepositoryRef, revision: string, file: string): Promise<string> {
  const run = localGitRun(forge.gitDirectory(repo));
  return run('show', ['show', `${revision}:${file}`]).catch(() => '');
}

/** The bench process's resident set size, sampled every `intervalMs` until stop(). */
export class RssSampler {
  #peak = process.memoryUsage.rss();
  readonly #timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.#timer = setInterval(() => {
      this.#peak = Math.max(this.#peak, process.memoryUsage.rss());
    }, intervalMs);
  }

  /** Stops sampling; the peak in MiB. */
  stop(): number {
    clearInterval(this.#timer);
    this.#peak = Math.max(this.#peak, process.memoryUsage.rss());
    return this.#peak / 2 ** 20;
  }
}

/** Whole seconds with one decimal, for figures of seconds to minutes. */
export function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

/**
 * The manager's (and stand-ins') warnings and errors, kept instead of printed: a benchmark's
 * figures are only worth reading when this stays empty, so it is counted on the figures' line.
 */
export class WarningLog {
  readonly lines: string[] = [];
  readonly logger: Logger = createLogger({
    level: 'warn',
    destination: {
      write: (line: string) => {
        this.lines.push(line);
      },
    },
  });

  /** `manager warnings and errors logged: N`, with the first one's start when there is one. */
  summary(): string {
    const first = this.lines[0];
    return (
      `manager warnings and errors logged: ${String(this.lines.length)}` +
      (first === undefined ? '' : ` (first: ${first.slice(0, 300).trim()})`)
    );
  }
}

export interface DispatchSandbox {
  readonly env: SandboxEnvironment;
  readonly warnings: WarningLog;
  /** A MarkerWatch (see there), stopped with the sandbox. */
  readonly watchMarkers: (targetsOf: TargetsOf) => Promise<MarkerWatch>;
}

/** A sandbox whose logger is a WarningLog, for `run`; closed (watches first) however `run` ends. */
export async function withDispatchSandbox<T>(
  options: { readonly pollIntervalMs?: number; readonly preMergePollMs?: number },
  run: (sandbox: DispatchSandbox) => Promise<T>,
): Promise<T> {
  const warnings = new WarningLog();
  const env = await startSandboxEnvironment({ logger: warnings.logger, ...options });
  const watches: MarkerWatch[] = [];
  try {
    return await run({
      env,
      warnings,
      watchMarkers: async (targetsOf) => {
        const watch = await MarkerWatch.start(env.client, targetsOf);
        watches.push(watch);
        return watch;
      },
    });
  } finally {
    for (const watch of watches) await watch.stop();
    await env.close();
  }
}
