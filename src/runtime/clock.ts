// Time as a dependency, so queue backoff, informer reconnects and leader election can be tested
// without sleeping.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimer(callback: () => void, delayMs: number): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delayMs) {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    return {
      cancel: () => {
        clearTimeout(timer);
      },
    };
  },
};

/**
 * Resolves after `delayMs` on `clock`, or as soon as `signal` aborts. Returns whether the full
 * delay elapsed, so loops can write `while (await sleep(...))`.
 */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted === true) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      timer.cancel();
      resolve(false);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** An AbortSignal that aborts at `delayMs` on `clock` or when `parent` aborts. */
export function timeoutSignal(
  clock: Clock,
  delayMs: number,
  parent?: AbortSignal,
): { signal: AbortSignal; cancel(): void } {
  const controller = new AbortController();
  const timer = clock.setTimer(() => {
    controller.abort(Object.assign(new Error(`timed out after ${String(delayMs)} ms`), { name: 'TimeoutError' }));
  }, delayMs);
  const onParentAbort = (): void => {
    controller.abort(parent?.reason);
  };
  if (parent?.aborted === true) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    cancel: () => {
      timer.cancel();
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}

interface ManualTimer {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
  cancelled: boolean;
}

/** A clock that only moves when told to; timers fire in due order inside `advance`. */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: ManualTimer[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const timer: ManualTimer = { at: this.#now + Math.max(0, delayMs), seq: this.#seq++, callback, cancelled: false };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Number of timers that have not fired or been cancelled. */
  pendingTimers(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length;
  }

  /** When the next live timer is due, if any. */
  nextTimerAt(): number | undefined {
    return this.#due(Number.POSITIVE_INFINITY)?.at;
  }

  /** Moves time forward, firing every timer due by the new time (including ones set while firing). */
  advance(deltaMs: number): void {
    const end = this.#now + deltaMs;
    for (let next = this.#due(end); next !== undefined; next = this.#due(end)) {
      this.#now = Math.max(this.#now, next.at);
      next.cancelled = true;
      next.callback();
    }
    this.#now = end;
    this.#timers = this.#timers.filter((timer) => !timer.cancelled);
  }

  #due(end: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const timer of this.#timers) {
      if (timer.cancelled || timer.at > end) continue;
      if (best === undefined || timer.at < best.at || (timer.at === best.at && timer.seq < best.seq)) best = timer;
    }
    return best;
  }
}
