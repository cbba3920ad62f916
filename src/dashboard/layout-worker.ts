// Graph layouts off the event loop (docs/decisions.md N47). dagre takes seconds on a large graph,
// and the manager's event loop also answers admission webhooks (5 ms p99), so the dashboard lays
// graphs out in one worker thread: started on the first request, unref'd (an idle worker never
// keeps the process alive), started again after it dies or is killed, terminated by stop().
// Requests are coalesced by the fingerprint of their prepared input (one layout per distinct graph
// at a time, however many pages and live views wait for it), recent outcomes are kept in a small
// LRU, at most `maxWaiting` distinct inputs wait behind the one being laid out (more are refused),
// and a layout that runs past its timeout has its worker terminated: its callers get 'too-large'
// and the view points to the edge table.
import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  layoutPrepared,
  prepareLayout,
  type GraphLayout,
  type LayoutInput,
  type LayoutOutcome,
  type PreparedLayout,
} from '../domain/dashboard/graph-layout.ts';
import type { Logger } from '../runtime/logger.ts';
import type { LayoutRequest } from './layout-worker-entry.ts';

/** How the dashboard server has its graphs laid out. */
export interface GraphLayouts {
  layout(input: LayoutInput): Promise<LayoutOutcome>;
  stop(): Promise<void>;
}

export const DEFAULT_LAYOUT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_WAITING = 8;
export const DEFAULT_LAYOUT_CACHE_SIZE = 32;
/** A graph whose layout timed out or failed is not tried again sooner (unless evicted). */
export const DEFAULT_FAILURE_TTL_MS = 5 * 60_000;
/** The worker's heap: a capped layout needs a few MiB; a runaway one fails instead of growing. */
const WORKER_HEAP_MB = 256;

/**
 * The worker's module: the same extension as this one, so it runs from src/ (.ts, type stripping)
 * and from dist/ (.js, built by tsc) alike.
 */
export const LAYOUT_WORKER_ENTRY = new URL(
  `./layout-worker-entry${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

export interface LayoutWorkerOptions {
  /** How long one layout may run in the worker; default DEFAULT_LAYOUT_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  /** Distinct inputs waiting behind the one in flight; default DEFAULT_MAX_WAITING. */
  readonly maxWaiting?: number;
  /** Outcomes remembered; default DEFAULT_LAYOUT_CACHE_SIZE. */
  readonly cacheSize?: number;
  readonly failureTtlMs?: number;
  readonly logger?: Logger;
  readonly now?: () => number;
}

export interface LayoutWorkerStats {
  /** Worker threads started so far (a restart after a timeout or a crash counts). */
  readonly workersStarted: number;
  /** Layouts handed to a worker (coalesced and cached requests are not). */
  readonly layoutsRun: number;
  /** Distinct inputs waiting behind the one in flight. */
  readonly waiting: number;
  /** The running worker's thread id, if one runs. */
  readonly threadId: number | undefined;
}

interface Job {
  readonly key: string;
  readonly prepared: PreparedLayout;
  readonly timeoutMs: number;
  readonly waiters: ((outcome: LayoutOutcome) => void)[];
}

interface Running {
  readonly id: number;
  readonly job: Job;
  readonly timer: NodeJS.Timeout;
}

interface Remembered {
  readonly outcome: LayoutOutcome;
  readonly expiresAt: number;
}

type WorkerAnswer =
  { readonly id: number; readonly layout: GraphLayout } | { readonly id: number; readonly error: string };

/** What identifies a layout: its prepared input (so selections that prepare alike share one). */
export function layoutFingerprint(prepared: PreparedLayout): string {
  const text = JSON.stringify([
    prepared.nodes,
    prepared.edges.map((edge) => [edge.from, edge.to, edge.label ?? null]),
    prepared.omittedNodes,
    prepared.omittedEdges,
  ]);
  return createHash('sha256').update(text).digest('base64url');
}

export class LayoutWorker implements GraphLayouts {
  readonly #timeoutMs: number;
  readonly #maxWaiting: number;
  readonly #cacheSize: number;
  readonly #failureTtlMs: number;
  readonly #logger: Logger | undefined;
  readonly #now: () => number;
  /** Oldest first: a hit moves to the end. */
  readonly #cache = new Map<string, Remembered>();
  /** Running or waiting, by fingerprint. */
  readonly #jobs = new Map<string, Job>();
  readonly #waiting: Job[] = [];
  #worker: Worker | undefined;
  #running: Running | undefined;
  #nextId = 0;
  #workersStarted = 0;
  #layoutsRun = 0;

  constructor(options: LayoutWorkerOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_LAYOUT_TIMEOUT_MS;
    this.#maxWaiting = options.maxWaiting ?? DEFAULT_MAX_WAITING;
    this.#cacheSize = options.cacheSize ?? DEFAULT_LAYOUT_CACHE_SIZE;
    this.#failureTtlMs = options.failureTtlMs ?? DEFAULT_FAILURE_TTL_MS;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  get stats(): LayoutWorkerStats {
    return {
      workersStarted: this.#workersStarted,
      layoutsRun: this.#layoutsRun,
      waiting: this.#waiting.length,
      threadId: this.#worker?.threadId,
    };
  }

  /**
   * The layout of `input`, from the worker; never rejects. `timeoutMs` overrides the pool's timeout
   * for this input when it is not already being laid out.
   */
  layout(input: LayoutInput, options: { readonly timeoutMs?: number } = {}): Promise<LayoutOutcome> {
    const prepared = prepareLayout(input);
    // Nothing to lay out costs nothing: no worker for it.
    if (prepared.nodes.length === 0) return Promise.resolve({ kind: 'laid-out', layout: layoutPrepared(prepared) });
    const key = layoutFingerprint(prepared);
    const known = this.#remembered(key);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve) => {
      const pending = this.#jobs.get(key);
      if (pending !== undefined) {
        pending.waiters.push(resolve);
        return;
      }
      if (this.#running !== undefined && this.#waiting.length >= this.#maxWaiting) {
        resolve({ kind: 'too-large', reason: 'busy' });
        return;
      }
      const job: Job = { key, prepared, timeoutMs: options.timeoutMs ?? this.#timeoutMs, waiters: [resolve] };
      this.#jobs.set(key, job);
      this.#waiting.push(job);
      this.#next();
    });
  }

  /** Terminates the worker; whoever still waits gets 'too-large' (stopped). A later layout starts a new one. */
  async stop(): Promise<void> {
    const running = this.#running;
    this.#running = undefined;
    if (running !== undefined) clearTimeout(running.timer);
    const jobs = [...this.#jobs.values()];
    this.#jobs.clear();
    this.#waiting.length = 0;
    for (const job of jobs) settle(job, { kind: 'too-large', reason: 'stopped' });
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  #remembered(key: string): LayoutOutcome | undefined {
    const entry = this.#cache.get(key);
    if (entry === undefined) return undefined;
    this.#cache.delete(key);
    if (entry.expiresAt <= this.#now()) return undefined;
    this.#cache.set(key, entry);
    return entry.outcome;
  }

  #remember(key: string, outcome: LayoutOutcome): void {
    // 'busy' and 'stopped' say nothing about the graph; a timeout or failure is kept a while, so a
    // graph too large for the timeout does not cost a worker on every page load and live update.
    if (outcome.kind === 'too-large' && outcome.reason !== 'timeout' && outcome.reason !== 'failed') return;
    const expiresAt = outcome.kind === 'laid-out' ? Infinity : this.#now() + this.#failureTtlMs;
    this.#cache.delete(key);
    this.#cache.set(key, { outcome, expiresAt });
    while (this.#cache.size > this.#cacheSize) {
      const oldest = this.#cache.keys().next();
      if (oldest.done === true) break;
      this.#cache.delete(oldest.value);
    }
  }

  /** Hands the oldest waiting input to the worker when none is in flight. */
  #next(): void {
    if (this.#running !== undefined) return;
    const job = this.#waiting.shift();
    if (job === undefined) return;
    const worker = this.#worker ?? this.#start();
    this.#nextId += 1;
    const id = this.#nextId;
    // The timer is the one thing that keeps the process alive while a layout runs (the worker is
    // unref'd), and only for as long as the timeout.
    const timer = setTimeout(() => {
      this.#timedOut(id);
    }, job.timeoutMs);
    this.#running = { id, job, timer };
    this.#layoutsRun += 1;
    const request: LayoutRequest = { id, prepared: job.prepared };
    worker.postMessage(request);
  }

  #start(): Worker {
    const worker = new Worker(LAYOUT_WORKER_ENTRY, {
      name: 'nudger-graph-layout',
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    this.#workersStarted += 1;
    this.#worker = worker;
    worker.on('message', (answer: WorkerAnswer) => {
      if (this.#worker === worker) this.#answered(answer);
    });
    worker.on('error', (error) => {
      if (this.#worker === worker) this.#logger?.error({ err: error }, 'graph layout worker failed');
    });
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      // Died on its own (an exception, out of memory): whatever it was laying out failed.
      this.#worker = undefined;
      this.#logger?.warn({ code }, 'graph layout worker exited; the next layout starts a new one');
      const running = this.#running;
      if (running === undefined) return;
      this.#finish(running, { kind: 'too-large', reason: 'failed' });
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    return worker;
  }

  #answered(answer: WorkerAnswer): void {
    const running = this.#running;
    if (running?.id !== answer.id) return;
    if ('error' in answer) {
      this.#logger?.error({ error: answer.error }, 'graph layout failed');
      this.#finish(running, { kind: 'too-large', reason: 'failed' });
      return;
    }
    this.#finish(running, { kind: 'laid-out', layout: answer.layout });
  }

  #timedOut(id: number): void {
    const running = this.#running;
    if (running?.id !== id) return;
    const { prepared } = running.job;
    this.#logger?.warn(
      { nodes: prepared.nodes.length, edges: prepared.edges.length, timeoutMs: running.job.timeoutMs },
      'graph layout timed out; its worker is terminated and the next layout starts a new one',
    );
    // dagre cannot be interrupted: the thread is terminated, and the next layout starts another.
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) {
      worker.terminate().catch((error: unknown) => {
        this.#logger?.error({ err: error }, 'terminating the graph layout worker failed');
      });
    }
    this.#finish(running, { kind: 'too-large', reason: 'timeout' });
  }

  #finish(running: Running, outcome: LayoutOutcome): void {
    clearTimeout(running.timer);
    this.#running = undefined;
    this.#jobs.delete(running.job.key);
    this.#remember(running.job.key, outcome);
    settle(running.job, outcome);
    this.#next();
  }
}

function settle(job: Job, outcome: LayoutOutcome): void {
  for (const resolve of job.waiters) resolve(outcome);
}
