// The stand-ins' background mode: one poll at a time, every `intervalMs`, until stopped. Polls are
// serialised because each one reads from where the previous stopped (an offset, a status);
// overlapping polls would act on the same events twice.
import { isNotFound } from '../adapters/kubernetes/errors.ts';

export class SerialPoller<T> {
  readonly #pollOnce: () => Promise<T>;
  #tail: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(pollOnce: () => Promise<T>) {
    this.#pollOnce = pollOnce;
  }

  /** Runs one poll after any poll underway. */
  poll(): Promise<T> {
    const next = this.#tail.then(this.#pollOnce, this.#pollOnce);
    this.#tail = next.catch(() => undefined);
    return next;
  }

  /** Polls every `intervalMs` until stop(); a failed poll goes to `onError` and polling goes on. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    if (this.#running) return;
    this.#running = true;
    const tick = (): void => {
      this.poll()
        .catch(onError)
        .finally(() => {
          if (this.#running) this.#timer = setTimeout(tick, intervalMs);
        });
    };
    this.#timer = setTimeout(tick, 0);
  }

  /** Stops the loop and waits for a poll underway. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#tail;
  }
}

/** A `.catch` handler: `fallback` for a 404, the error again otherwise. */
export function whenNotFound<T>(fallback: T): (error: unknown) => T {
  return (error: unknown) => {
    if (isNotFound(error)) return fallback;
    throw error;
  };
}
