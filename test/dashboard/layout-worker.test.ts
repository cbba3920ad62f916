// The dashboard's layout worker (docs/decisions.md N47), with a real worker thread running dagre:
// it returns what the domain's layout gives, coalesces identical inputs into one layout, remembers
// outcomes, refuses past its queue, answers 'too-large' and starts a new thread after a timeout,
// terminates its thread on stop, and never keeps the process alive.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { LAYOUT_WORKER_ENTRY, LayoutWorker, layoutFingerprint } from '../../src/dashboard/layout-worker.ts';
import { layoutGraph, prepareLayout, type LayoutInput } from '../../src/domain/dashboard/graph-layout.ts';

const run = promisify(execFile);

const SMALL: LayoutInput = {
  nodes: ['operand-a', 'operand-b', 'bundle', 'catalog'],
  edges: [
    { from: 'operand-a', to: 'bundle' },
    { from: 'operand-b', to: 'bundle', label: 'operands' },
    { from: 'bundle', to: 'catalog' },
  ],
};

/** A layered DAG of `n` nodes and about 2n edges: dagre needs far more than a millisecond for it. */
function large(n: number, prefix = 'c'): LayoutInput {
  const nodes = Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  const edges = nodes.flatMap((from, i) =>
    [i + 1, i + 7].filter((j) => j < n).map((j) => ({ from, to: nodes[j] ?? '' })),
  );
  return { nodes, edges };
}

describe('LayoutWorker', () => {
  it('lays a graph out in a worker thread, exactly as the domain does, and starts the thread only when asked', async () => {
    const pool = new LayoutWorker();
    try {
      assert.equal(pool.stats.threadId, undefined);
      const outcome = await pool.layout(SMALL);
      assert.deepEqual(outcome, { kind: 'laid-out', layout: layoutGraph(SMALL) });
      assert.equal(pool.stats.workersStarted, 1);
      assert.notEqual(pool.stats.threadId, undefined);
    } finally {
      await pool.stop();
    }
  });

  it('lays out identical inputs once, selections that prepare alike included, and remembers the outcome', async () => {
    const pool = new LayoutWorker();
    try {
      const selected: LayoutInput = { ...SMALL, first: ['catalog'] };
      assert.equal(layoutFingerprint(prepareLayout(selected)), layoutFingerprint(prepareLayout(SMALL)));
      const outcomes = await Promise.all([pool.layout(SMALL), pool.layout(SMALL), pool.layout(selected)]);
      assert.equal(pool.stats.layoutsRun, 1);
      for (const outcome of outcomes) assert.deepEqual(outcome, outcomes[0]);
      assert.deepEqual(await pool.layout(SMALL), outcomes[0]);
      assert.equal(pool.stats.layoutsRun, 1);
      await pool.layout({ ...SMALL, edges: SMALL.edges.slice(1) });
      assert.equal(pool.stats.layoutsRun, 2);
    } finally {
      await pool.stop();
    }
  });

  it('answers too-large after the timeout, terminates that thread, and lays the next graph out in a new one', async () => {
    const pool = new LayoutWorker();
    try {
      const big = large(100);
      const pending = pool.layout(big, { timeoutMs: 1 });
      const first = pool.stats.threadId;
      assert.notEqual(first, undefined);
      assert.deepEqual(await pending, { kind: 'too-large', reason: 'timeout' });
      assert.equal(pool.stats.threadId, undefined);
      // The graph is not tried again at once: its timeout is remembered.
      assert.deepEqual(await pool.layout(big), { kind: 'too-large', reason: 'timeout' });
      assert.equal(pool.stats.layoutsRun, 1);
      assert.deepEqual(await pool.layout(SMALL), { kind: 'laid-out', layout: layoutGraph(SMALL) });
      assert.equal(pool.stats.workersStarted, 2);
      assert.notEqual(pool.stats.threadId, first);
    } finally {
      await pool.stop();
    }
  });

  it('refuses a distinct input past its queue, and stop answers whoever waits and terminates the thread', async () => {
    const pool = new LayoutWorker({ maxWaiting: 1 });
    const inFlight = pool.layout(large(100, 'a'));
    const waiting = pool.layout(large(100, 'b'));
    assert.deepEqual(await pool.layout(large(100, 'c')), { kind: 'too-large', reason: 'busy' });
    // An input already waiting is joined, not refused.
    const joined = pool.layout(large(100, 'b'));
    assert.equal(pool.stats.waiting, 1);
    assert.notEqual(pool.stats.threadId, undefined);
    await pool.stop();
    assert.equal(pool.stats.threadId, undefined);
    for (const outcome of await Promise.all([inFlight, waiting, joined])) {
      assert.deepEqual(outcome, { kind: 'too-large', reason: 'stopped' });
    }
    assert.equal(pool.stats.waiting, 0);
  });

  it('lays out nothing for an empty graph, without a thread', async () => {
    const pool = new LayoutWorker();
    const outcome = await pool.layout({ nodes: [], edges: [] });
    assert.equal(outcome.kind, 'laid-out');
    assert.equal(pool.stats.workersStarted, 0);
    await pool.stop();
  });

  it('resolves its worker module next to itself, with its own extension', () => {
    assert.match(LAYOUT_WORKER_ENTRY.pathname, /\/src\/dashboard\/layout-worker-entry\.ts$/);
  });

  it('never keeps the process alive: a process that lays out and never stops the pool exits', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nudger-layout-'));
    try {
      // A module file, not --input-type=module -e: a worker inherits the parent's flags, and
      // --input-type would stop it from loading its own module.
      const script = join(dir, 'lay-out.mjs');
      await writeFile(
        script,
        `const { LayoutWorker } = await import(${JSON.stringify(new URL('../../src/dashboard/layout-worker.ts', import.meta.url).href)});
        const pool = new LayoutWorker();
        const outcome = await pool.layout(${JSON.stringify(SMALL)});
        console.log(outcome.kind, pool.stats.workersStarted);\n`,
      );
      // A process the idle worker kept alive would never exit: execFile's limit would fail the test.
      const { stdout } = await run(process.execPath, [script], { timeout: 60_000 });
      assert.equal(stdout.trim(), 'laid-out 1');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
