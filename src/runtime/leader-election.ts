// Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: whoever holds an
// unexpired lease leads; the leader renews every retry period and steps down (aborting the
// controllers' signal) if it cannot renew within the renew deadline; on shutdown it releases the
// lease so another replica takes over at once instead of after expiry. Expiry is judged on the
// local clock from when this replica last saw the record change, so clock skew between replicas
// does not matter. Every write is a compare-and-swap on resourceVersion.
import type { Registry } from 'prom-client';
import { isAlreadyExists, isConflict } from '../adapters/kubernetes/errors.ts';
import { sleep, systemClock, timeoutSignal, type Clock } from './clock.ts';
import { describeError, silentLogger, type RuntimeLogger } from './runtime-log.ts';
import { runtimeMetrics, type RuntimeMetrics } from './runtime-metrics.ts';

/** The Lease spec fields leader election uses. Times are RFC 3339 with microseconds. */
export interface LeaseRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions: number;
}

export interface ObservedLease {
  readonly record: LeaseRecord;
  readonly resourceVersion: string;
}

/** Storage for one Lease. `create` fails with AlreadyExists and `update` with Conflict on races. */
export interface LeaseLock {
  readonly description: string;
  get(signal: AbortSignal): Promise<ObservedLease | undefined>;
  create(record: LeaseRecord, signal: AbortSignal): Promise<ObservedLease>;
  update(record: LeaseRecord, resourceVersion: string, signal: AbortSignal): Promise<ObservedLease>;
}

export interface LeaderElectorOptions {
  readonly lock: LeaseLock;
  /** Unique per replica, e.g. the pod name plus a random suffix. */
  readonly identity: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /** Release the lease when `run`'s signal aborts (default true). False simulates a crash. */
  readonly releaseOnCancel?: boolean;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly logger?: RuntimeLogger;
  readonly registry?: Registry;
}

export interface LeaderCallbacks {
  /** Runs while leading; `leading` aborts when leadership ends. Awaited before stepping down. */
  onStartedLeading(leading: AbortSignal): void | Promise<void>;
  onStoppedLeading?(): void;
  onNewLeader?(identity: string): void;
}

export class LeaderElectionConfigError extends Error {
  override readonly name = 'LeaderElectionConfigError';
}

/** client-go's JitterFactor: the renew deadline must outlast a jittered retry period. */
export const LEADER_ELECTION_JITTER_FACTOR = 1.2;

export interface LeaderElectionTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** Which timing breaks client-go's rules, and how; the names are the timings' own. */
export interface LeaderElectionTimingProblem {
  readonly timing: keyof LeaderElectionTimings;
  /** The timing it must exceed, if the problem is an ordering. */
  readonly than?: keyof LeaderElectionTimings;
  readonly message: string;
}

/**
 * client-go's NewLeaderElector checks: every timing positive, leaseDuration > renewDeadline
 * (a leader must step down before others may take the lease) and renewDeadline > 1.2 × retryPeriod
 * (at least one jittered retry fits in the deadline).
 */
export function leaderElectionTimingProblem(timings: LeaderElectionTimings): LeaderElectionTimingProblem | undefined {
  for (const timing of ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs'] as const) {
    if (!(timings[timing] > 0)) return { timing, message: `${timing} must be greater than zero` };
  }
  if (timings.leaseDurationMs <= timings.renewDeadlineMs) {
    return {
      timing: 'leaseDurationMs',
      than: 'renewDeadlineMs',
      message: 'leaseDuration must be greater than renewDeadline',
    };
  }
  if (timings.renewDeadlineMs <= LEADER_ELECTION_JITTER_FACTOR * timings.retryPeriodMs) {
    return {
      timing: 'renewDeadlineMs',
      than: 'retryPeriodMs',
      message: `renewDeadline must be greater than ${String(LEADER_ELECTION_JITTER_FACTOR)} × retryPeriod`,
    };
  }
  return undefined;
}

/** `2024-05-01T10:00:00.123000Z`: the MicroTime format the API server parses. */
export function formatMicroTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export type LeaseDecision =
  | { readonly action: 'create'; readonly record: LeaseRecord }
  | {
      readonly action: 'update';
      readonly record: LeaseRecord;
      readonly resourceVersion: string;
      readonly takeover: boolean;
    }
  | { readonly action: 'wait'; readonly holder: string };

/**
 * What to do with the lease as last observed. `observedAtMs` is when this replica saw the record
 * change (local clock). A lease with no holder was released and is free at once.
 */
export function decideLease(
  observed: ObservedLease | undefined,
  observedAtMs: number,
  nowMs: number,
  identity: string,
  leaseDurationMs: number,
): LeaseDecision {
  const now = formatMicroTime(nowMs);
  const leaseDurationSeconds = Math.ceil(leaseDurationMs / 1000);
  if (observed === undefined) {
    return {
      action: 'create',
      record: { holderIdentity: identity, leaseDurationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 },
    };
  }
  const { record, resourceVersion } = observed;
  if (record.holderIdentity === identity) {
    return {
      action: 'update',
      resourceVersion,
      takeover: false,
      record: {
        ...record,
        leaseDurationSeconds,
        renewTime: now,
        ...(record.acquireTime === undefined ? { acquireTime: now } : {}),
      },
    };
  }
  const held = record.holderIdentity !== '' && observedAtMs + record.leaseDurationSeconds * 1000 > nowMs;
  if (held) return { action: 'wait', holder: record.holderIdentity };
  return {
    action: 'update',
    resourceVersion,
    takeover: true,
    record: {
      holderIdentity: identity,
      leaseDurationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: record.leaseTransitions + 1,
    },
  };
}

export class LeaderElector {
  readonly identity: string;
  readonly #lock: LeaseLock;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #releaseOnCancel: boolean;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: RuntimeLogger;
  readonly #metrics: RuntimeMetrics | undefined;
  #observed: ObservedLease | undefined;
  #observedAtMs = 0;
  #leader = false;
  #lastHolder: string | undefined;
  #callbacks: LeaderCallbacks | undefined;

  constructor(options: LeaderElectorOptions) {
    this.identity = options.identity;
    this.#lock = options.lock;
    this.#leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.#releaseOnCancel = options.releaseOnCancel ?? true;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? silentLogger;
    this.#metrics = options.registry === undefined ? undefined : runtimeMetrics(options.registry);
    if (this.identity === '') throw new LeaderElectionConfigError('leader election identity must not be empty');
    const problem = leaderElectionTimingProblem({
      leaseDurationMs: this.#leaseDurationMs,
      renewDeadlineMs: this.#renewDeadlineMs,
      retryPeriodMs: this.#retryPeriodMs,
    });
    if (problem !== undefined) throw new LeaderElectionConfigError(problem.message);
  }

  isLeader(): boolean {
    return this.#leader;
  }

  /**
   * Campaigns until leading, leads until the lease is lost or `signal` aborts, then steps down
   * and resolves. It does not campaign again after losing the lease: controllers may have been
   * interrupted mid-way, and a fresh process is the safe way back (controller-runtime exits too).
   */
  async run(signal: AbortSignal, callbacks: LeaderCallbacks): Promise<void> {
    this.#callbacks = callbacks;
    const fields = { lease: this.#lock.description, identity: this.identity };
    while (!signal.aborted && !(await this.#tryAcquireOrRenew(signal))) {
      await sleep(this.#clock, this.#jittered(this.#retryPeriodMs), signal);
    }
    if (signal.aborted) return;

    this.#setLeader(true);
    this.#logger.info(fields, 'became leader');
    const leading = new AbortController();
    const leadingTask = Promise.resolve()
      .then(() => callbacks.onStartedLeading(leading.signal))
      .catch((error: unknown) => {
        this.#logger.error({ ...fields, error: describeError(error) }, 'onStartedLeading failed');
      });

    const lost = await this.#renewUntilLostOrStopped(signal);
    leading.abort();
    this.#setLeader(false);
    await leadingTask;
    if (lost) this.#logger.warn(fields, 'lost leadership: could not renew the lease within the renew deadline');
    else if (this.#releaseOnCancel) await this.#release();
    callbacks.onStoppedLeading?.();
  }

  /** Returns true when leadership was lost, false when `signal` aborted first. */
  async #renewUntilLostOrStopped(signal: AbortSignal): Promise<boolean> {
    let lastRenewAt = this.#clock.now();
    while (await sleep(this.#clock, this.#retryPeriodMs, signal)) {
      const remainingMs = lastRenewAt + this.#renewDeadlineMs - this.#clock.now();
      if (remainingMs <= 0) return true;
      // A hung request must not keep us "leading" past the deadline.
      const attempt = timeoutSignal(this.#clock, remainingMs, signal);
      const renewed = await this.#tryAcquireOrRenew(attempt.signal);
      attempt.cancel();
      if (signal.aborted) return false;
      if (renewed) lastRenewAt = this.#clock.now();
      else if (this.#clock.now() - lastRenewAt >= this.#renewDeadlineMs) return true;
      else if (this.#observed !== undefined && this.#observed.record.holderIdentity !== this.identity) return true;
    }
    return false;
  }

  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    try {
      this.#observe(await this.#lock.get(signal));
      const decision = decideLease(
        this.#observed,
        this.#observedAtMs,
        this.#clock.now(),
        this.identity,
        this.#leaseDurationMs,
      );
      if (decision.action === 'wait') return false;
      const written =
        decision.action === 'create'
          ? await this.#lock.create(decision.record, signal)
          : await this.#lock.update(decision.record, decision.resourceVersion, signal);
      this.#observe(written);
      return true;
    } catch (error) {
      const level = isConflict(error) || isAlreadyExists(error) ? 'debug' : 'warn';
      this.#logger[level](
        { lease: this.#lock.description, identity: this.identity, error: describeError(error) },
        'could not acquire or renew the lease',
      );
      return false;
    }
  }

  #observe(observed: ObservedLease | undefined): void {
    if (observed?.resourceVersion !== this.#observed?.resourceVersion || observed === undefined) {
      this.#observedAtMs = this.#clock.now();
    }
    this.#observed = observed;
    const holder = observed?.record.holderIdentity ?? '';
    if (holder !== '' && holder !== this.#lastHolder) {
      this.#lastHolder = holder;
      try {
        this.#callbacks?.onNewLeader?.(holder);
      } catch (error) {
        this.#logger.error({ lease: this.#lock.description, error: describeError(error) }, 'onNewLeader failed');
      }
    }
  }

  async #release(): Promise<void> {
    const observed = this.#observed;
    if (observed?.record.holderIdentity !== this.identity) return;
    const now = formatMicroTime(this.#clock.now());
    const attempt = timeoutSignal(this.#clock, this.#renewDeadlineMs);
    try {
      this.#observe(
        await this.#lock.update(
          {
            holderIdentity: '',
            leaseDurationSeconds: 1,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: observed.record.leaseTransitions,
          },
          observed.resourceVersion,
          attempt.signal,
        ),
      );
      this.#logger.info({ lease: this.#lock.description, identity: this.identity }, 'released the lease');
    } catch (error) {
      this.#logger.warn(
        { lease: this.#lock.description, identity: this.identity, error: describeError(error) },
        'could not release the lease; it will expire',
      );
    } finally {
      attempt.cancel();
    }
  }

  #setLeader(leader: boolean): void {
    this.#leader = leader;
    this.#metrics?.leader.set({ name: this.#lock.description }, leader ? 1 : 0);
  }

  #jittered(ms: number): number {
    return ms * (1 + 0.2 * this.#random());
  }
}
