// How many request-body bytes the webhook server holds at once, all requests together. The body
// cap bounds one request; without a shared budget, N concurrent bodies cost N times it (issue 8,
// part 2 item 4: 40 bodies just under 7 MiB took the server past a 512 MiB limit). A request that
// would overrun the budget is answered at once, unread, so the API server applies the webhook's
// failurePolicy instead of the container being OOM-killed with every request in it.
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

/** A byte budget shared by every request of one server. */
export class InflightBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    if (!(limit > 0)) throw new RangeError(`in-flight byte budget must be positive, got ${String(limit)}`);
    this.limit = limit;
  }

  get used(): number {
    return this.#used;
  }

  /** Takes `bytes` if they fit; false (and nothing taken) otherwise. */
  tryReserve(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/**
 * The budget is this share of the smaller of the container's memory limit and the V8 heap limit.
 * A request costs about twice its body while it is parsed and judged (bench/webhook-memory.ts
 * measured 15 MiB of resident memory per 7 MiB body of many small JSON values), on top of the
 * informer caches and the heap's own slack. The heap is usually the tighter one: in a container,
 * Node 24 sizes it from the memory limit (about half of it), and a full heap aborts the process.
 */
export const INFLIGHT_SHARE_OF_MEMORY_LIMIT = 0.25;
/** When no limit can be found: a quarter of the shipped Deployment's 512 MiB. */
export const DEFAULT_INFLIGHT_BYTES = 128 * 2 ** 20;
/** Set from the Downward API (`resourceFieldRef: limits.memory`) by deploy/manager. */
export const MEMORY_LIMIT_ENV = 'NUDGER_MEMORY_LIMIT_BYTES';

export type MemoryLimitSource = 'env' | 'cgroup-v2' | 'cgroup-v1' | 'none';

export interface InflightBudgetChoice {
  readonly bytes: number;
  /** The container memory limit, if one was found. */
  readonly memoryLimitBytes?: number;
  readonly source: MemoryLimitSource;
  readonly heapLimitBytes: number;
}

export interface MemoryLimitInputs {
  readonly env?: NodeJS.ProcessEnv;
  /** Reads a cgroup file; undefined when it is missing or unreadable. */
  readonly readFile?: (path: string) => string | undefined;
  /** Default: this process's V8 heap_size_limit. */
  readonly heapLimitBytes?: number;
}

// cgroup v1 reports "no limit" as a page-rounded huge number (9223372036854771712 on x86-64).
const UNLIMITED_V1 = 2 ** 60;

/** The container's memory limit: the Downward API variable, else cgroup v2, else cgroup v1. */
export function containerMemoryLimit(inputs: MemoryLimitInputs = {}): {
  bytes?: number;
  source: MemoryLimitSource;
} {
  const env = inputs.env ?? process.env;
  const read = inputs.readFile ?? readIfPresent;
  const fromEnv = positiveInteger(env[MEMORY_LIMIT_ENV]);
  if (fromEnv !== undefined) return { bytes: fromEnv, source: 'env' };
  const v2 = read('/sys/fs/cgroup/memory.max')?.trim();
  // "max" is cgroup v2's "unlimited".
  const fromV2 = v2 === 'max' ? undefined : positiveInteger(v2);
  if (fromV2 !== undefined) return { bytes: fromV2, source: 'cgroup-v2' };
  const fromV1 = positiveInteger(read('/sys/fs/cgroup/memory/memory.limit_in_bytes')?.trim());
  if (fromV1 !== undefined && fromV1 < UNLIMITED_V1) return { bytes: fromV1, source: 'cgroup-v1' };
  return { source: 'none' };
}

/**
 * The default budget: a quarter of the smaller of the memory limit and the heap limit (or of the
 * heap limit and DEFAULT_INFLIGHT_BYTES × 4 when no memory limit is found), never less than one
 * largest request (or no request of the maximum size could ever be served).
 */
export function inflightBudgetFromEnvironment(
  maxBodyBytes: number,
  inputs: MemoryLimitInputs = {},
): InflightBudgetChoice {
  const heapLimitBytes = inputs.heapLimitBytes ?? getHeapStatistics().heap_size_limit;
  const limit = containerMemoryLimit(inputs);
  const memory = limit.bytes ?? DEFAULT_INFLIGHT_BYTES / INFLIGHT_SHARE_OF_MEMORY_LIMIT;
  const bytes = Math.max(Math.floor(Math.min(memory, heapLimitBytes) * INFLIGHT_SHARE_OF_MEMORY_LIMIT), maxBodyBytes);
  return {
    bytes,
    ...(limit.bytes === undefined ? {} : { memoryLimitBytes: limit.bytes }),
    source: limit.source,
    heapLimitBytes,
  };
}

function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
