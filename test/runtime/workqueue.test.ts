import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../src/runtime/clock.ts';
import {
  defaultControllerRateLimiter,
  ItemExponentialRateLimiter,
  TokenBucketRateLimiter,
} from '../../src/runtime/rate-limiter.ts';
import { keyOf, parseKey, WorkQueue } from '../../src/runtime/workqueue.ts';

function queue(clock = new ManualClock()): WorkQueue<string> {
  return new WorkQueue<string>({ name: 'test', clock });
}

function drain(q: WorkQueue<string>): string[] {
  const taken: string[] = [];
  for (let key = q.tryGet(); key !== undefined; key = q.tryGet()) {
    taken.push(key);
    q.done(key);
  }
  return taken;
}

describe('WorkQueue', () => {
  it('de-duplicates keys that are waiting', () => {
    const q = queue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.deepEqual(drain(q), ['a', 'b']);
  });

  it('never hands a key being processed to a second worker, and re-queues it after done', () => {
    const q = queue();
    q.add('a');
    q.add('b');
    assert.equal(q.tryGet(), 'a');
    q.add('a');
    assert.equal(q.tryGet(), 'b');
    assert.equal(q.tryGet(), undefined, 'a is dirty again but still held');
    q.done('b');
    q.done('a');
    assert.equal(q.tryGet(), 'a');
  });

  it('wakes a waiting get() when a key arrives', async () => {
    const q = queue();
    const waiting = q.get();
    q.add('x');
    assert.equal(await waiting, 'x');
    assert.equal(q.isProcessing('x'), true);
  });

  it('serves live events before keys from an initial list, and promotes a low key on a live add', () => {
    const q = queue();
    q.add('listed-1', { priority: 'low' });
    q.add('listed-2', { priority: 'low' });
    q.add('live');
    q.add('listed-2');
    assert.deepEqual(drain(q), ['live', 'listed-2', 'listed-1']);
  });

  it('releases addAfter keys in due order and not before they are due', () => {
    const clock = new ManualClock();
    const q = queue(clock);
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    q.addAfter('a', 25); // later than the pending 10 ms: ignored
    clock.advance(9);
    assert.equal(q.len(), 0);
    clock.advance(1);
    assert.deepEqual(drain(q), ['a']);
    clock.advance(20);
    assert.deepEqual(drain(q), ['b', 'c']);
    assert.equal(q.delayedLen(), 0);
  });

  it('lets an earlier addAfter replace a later one', () => {
    const clock = new ManualClock();
    const q = queue(clock);
    q.addAfter('k', 1000);
    q.addAfter('k', 5);
    clock.advance(5);
    assert.deepEqual(drain(q), ['k']);
    clock.advance(2000);
    assert.deepEqual(drain(q), [], 'the superseded entry does not fire again');
  });

  it('backs off a failing key exponentially and forgets on success', () => {
    const clock = new ManualClock();
    const q = new WorkQueue<string>({ name: 'test', clock, rateLimiter: new ItemExponentialRateLimiter(5, 1_000_000) });
    const delays: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const before = clock.now();
      q.addRateLimited('k');
      const due = clock.nextTimerAt();
      assert.ok(due !== undefined);
      delays.push(due - before);
      clock.advance(due - before);
      assert.deepEqual(drain(q), ['k']);
    }
    assert.deepEqual(delays, [5, 10, 20, 40]);
    assert.equal(q.numRequeues('k'), 4);
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
  });

  it('shutDown resolves waiting and later gets with undefined and drains in-flight work', async () => {
    const q = queue();
    q.add('held');
    assert.equal(q.tryGet(), 'held');
    q.add('queued');
    const blocked = queue();
    const waiting = blocked.get();
    blocked.shutDown();
    assert.equal(await waiting, undefined);

    let drained = false;
    const draining = q.drained().then(() => {
      drained = true;
    });
    q.shutDown();
    assert.equal(await q.get(), undefined, 'queued keys are dropped');
    q.add('late');
    assert.equal(q.len(), 0, 'adds after shutdown are ignored');
    await Promise.resolve();
    assert.equal(drained, false, 'a key is still held');
    q.done('held');
    await draining;
    assert.equal(drained, true);
  });
});

describe('rate limiters', () => {
  it('per-item backoff doubles from 5 ms and caps at 1000 s', () => {
    const limiter = new ItemExponentialRateLimiter<string>();
    const delays = Array.from({ length: 30 }, () => limiter.when('k'));
    assert.deepEqual(delays.slice(0, 4), [5, 10, 20, 40]);
    assert.equal(delays.at(-1), 1_000_000);
    assert.ok(delays.every((delay, i) => i === 0 || delay >= (delays[i - 1] ?? 0)));
    assert.equal(limiter.when('other'), 5, 'keys back off independently');
  });

  it('token bucket allows a burst of 100 then 10 per second', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucketRateLimiter<string>(clock);
    const burst = Array.from({ length: 100 }, (_, i) => bucket.when(`k${String(i)}`));
    assert.ok(burst.every((delay) => delay === 0));
    assert.equal(bucket.when('next'), 100);
    assert.equal(bucket.when('next2'), 200);
    clock.advance(1000);
    // 10 tokens came back, two of which were already promised.
    const refilled = Array.from({ length: 8 }, () => bucket.when('x'));
    assert.ok(refilled.every((delay) => delay === 0));
    assert.equal(bucket.when('y'), 100);
  });

  it('the default limiter takes the larger of both', () => {
    const clock = new ManualClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    for (let i = 0; i < 100; i += 1) limiter.when(`burn${String(i)}`);
    assert.equal(limiter.when('fresh'), 100, 'bucket delay beats the 5 ms item delay');
  });
});

describe('keys', () => {
  it('round-trips namespaced and cluster-scoped keys', () => {
    assert.deepEqual(parseKey(keyOf({ namespace: 'ns', name: 'n' })), { namespace: 'ns', name: 'n' });
    assert.deepEqual(parseKey(keyOf({ namespace: '', name: 'n' })), { namespace: '', name: 'n' });
  });
});

describe('WorkQueue properties', () => {
  type Command =
    | { op: 'add'; key: string; low: boolean }
    | { op: 'get'; worker: number }
    | { op: 'done'; worker: number }
    | { op: 'addAfter'; key: string; delay: number }
    | { op: 'tick'; ms: number };
  const key = fc.constantFrom('a', 'b', 'c', 'd');
  const command: fc.Arbitrary<Command> = fc.oneof(
    fc.record({ op: fc.constant('add' as const), key, low: fc.boolean() }),
    fc.record({ op: fc.constant('get' as const), worker: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ op: fc.constant('done' as const), worker: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ op: fc.constant('addAfter' as const), key, delay: fc.integer({ min: 1, max: 50 }) }),
    fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 30 }) }),
  );

  it('no key is ever held by two workers, and every added key is processed after its last add', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 200 }), (commands) => {
        const clock = new ManualClock();
        const q = queue(clock);
        const held = new Map<number, string>();
        /** Per key: the step of the last add not yet followed by a get. */
        const owed = new Map<string, number>();
        const take = (worker: number): void => {
          const taken = q.tryGet();
          if (taken === undefined) return;
          assert.ok(![...held.values()].includes(taken), `${taken} handed to two workers`);
          held.set(worker, taken);
          owed.delete(taken);
        };
        commands.forEach((c, step) => {
          switch (c.op) {
            case 'add':
              q.add(c.key, { priority: c.low ? 'low' : 'normal' });
              owed.set(c.key, step);
              break;
            case 'addAfter':
              q.addAfter(c.key, c.delay);
              if (!owed.has(c.key)) owed.set(c.key, step);
              break;
            case 'get':
              if (!held.has(c.worker)) take(c.worker);
              break;
            case 'done': {
              const k = held.get(c.worker);
              if (k !== undefined) {
                held.delete(c.worker);
                q.done(k);
              }
              break;
            }
            case 'tick':
              clock.advance(c.ms);
              break;
          }
        });
        // Finish: release everything, let timers fire, and drain with one worker.
        for (const [worker, k] of held) {
          held.delete(worker);
          q.done(k);
        }
        clock.advance(1000);
        for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) {
          owed.delete(k);
          q.done(k);
        }
        assert.deepEqual([...owed.keys()], [], 'keys added but never processed afterwards');
      }),
      { numRuns: 500 },
    );
  });

  it('concurrent async workers never overlap on a key', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(key, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        async (keys, workers) => {
          const q = queue();
          const active = new Set<string>();
          const processed: string[] = [];
          const worker = async (): Promise<void> => {
            for (let k = await q.get(); k !== undefined; k = await q.get()) {
              assert.ok(!active.has(k), `${k} processed concurrently`);
              active.add(k);
              await new Promise((resolve) => setImmediate(resolve));
              // Re-adding while processing must not create a second holder.
              if (processed.length % 3 === 0) q.add(k);
              processed.push(k);
              active.delete(k);
              q.done(k);
            }
          };
          for (const k of keys) q.add(k);
          const running = Array.from({ length: workers }, () => worker());
          while (q.len() > 0 || active.size > 0) await new Promise((resolve) => setImmediate(resolve));
          q.shutDown();
          await Promise.all(running);
          for (const k of new Set(keys)) assert.ok(processed.includes(k), `${k} never processed`);
        },
      ),
      { numRuns: 50 },
    );
  });
});
