// Reconnect delays for long-running loops (watches, leader election retries): exponential with a
// little jitter, capped, and forgotten after a healthy stretch so one bad minute last week does not
// slow today's reconnects.
import type { Clock } from './clock.ts';

export interface BackoffOptions {
  readonly initialMs?: number;
  readonly maxMs?: number;
  /** A failure this long after the previous one starts again from `initialMs`. */
  readonly resetAfterMs?: number;
  /** Extra random delay as a fraction of the delay (0.25 → up to +25 %). */
  readonly jitter?: number;
}

export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #resetAfterMs: number;
  readonly #jitter: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  #failures = 0;
  #lastFailureAt: number | undefined;

  constructor(clock: Clock, options: BackoffOptions = {}, random: () => number = Math.random) {
    this.#clock = clock;
    this.#random = random;
    this.#initialMs = options.initialMs ?? 800;
    this.#maxMs = options.maxMs ?? 30_000;
    this.#resetAfterMs = options.resetAfterMs ?? 120_000;
    this.#jitter = options.jitter ?? 0.25;
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    const now = this.#clock.now();
    if (this.#lastFailureAt !== undefined && now - this.#lastFailureAt >= this.#resetAfterMs) this.#failures = 0;
    this.#lastFailureAt = now;
    const base = Math.min(this.#maxMs, this.#initialMs * 2 ** this.#failures);
    this.#failures += 1;
    return Math.min(this.#maxMs, Math.round(base * (1 + this.#jitter * this.#random())));
  }

  reset(): void {
    this.#failures = 0;
    this.#lastFailureAt = undefined;
  }
}
