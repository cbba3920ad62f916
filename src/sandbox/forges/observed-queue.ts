// One queue for an emulator's API calls and the person's actions: they run one at a time, so a
// check-then-create (one open pull request per head branch) cannot race, and after each one the
// sandbox is told (`onChange`) so that its Pipelines-as-Code stand-in sees the forge's events in
// the order they happened (docs/decisions.md N37). A failed call does not stop the queue; a failing
// `onChange` is the listener's to report, not the caller's.
export type ObservedQueue = <T>(work: () => Promise<T>) => Promise<T>;

export function observedQueue(onChange: (() => Promise<void>) | undefined): ObservedQueue {
  let queue: Promise<unknown> = Promise.resolve();
  const observed = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } finally {
      await onChange?.().catch(() => undefined);
    }
  };
  return <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(
      () => observed(work),
      () => observed(work),
    );
    queue = next.catch(() => undefined);
    return next;
  };
}
