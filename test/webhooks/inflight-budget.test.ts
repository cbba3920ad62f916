import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_INFLIGHT_BYTES,
  InflightBudget,
  MEMORY_LIMIT_ENV,
  containerMemoryLimit,
  inflightBudgetFromEnvironment,
} from '../../src/webhooks/inflight-budget.ts';

const MiB = 2 ** 20;
const files =
  (entries: Record<string, string>) =>
  (path: string): string | undefined =>
    entries[path];
const V2 = '/sys/fs/cgroup/memory.max';
const V1 = '/sys/fs/cgroup/memory/memory.limit_in_bytes';

describe('InflightBudget', () => {
  it('takes bytes while they fit and gives them back', () => {
    const budget = new InflightBudget(100);
    assert.equal(budget.tryReserve(60), true);
    assert.equal(budget.tryReserve(41), false);
    assert.equal(budget.used, 60);
    assert.equal(budget.tryReserve(40), true);
    budget.release(60);
    assert.equal(budget.tryReserve(60), true);
    assert.throws(() => new InflightBudget(0), RangeError);
  });
});

describe('containerMemoryLimit', () => {
  it('prefers the Downward API variable, then cgroup v2, then cgroup v1', () => {
    const both = files({ [V2]: '268435456\n', [V1]: '134217728\n' });
    assert.deepEqual(containerMemoryLimit({ env: { [MEMORY_LIMIT_ENV]: '536870912' }, readFile: both }), {
      bytes: 512 * MiB,
      source: 'env',
    });
    assert.deepEqual(containerMemoryLimit({ env: {}, readFile: both }), { bytes: 256 * MiB, source: 'cgroup-v2' });
    assert.deepEqual(containerMemoryLimit({ env: {}, readFile: files({ [V1]: '134217728\n' }) }), {
      bytes: 128 * MiB,
      source: 'cgroup-v1',
    });
  });

  it('reads "max", cgroup v1 "unlimited" and junk as no limit', () => {
    const unlimited = files({ [V2]: 'max\n', [V1]: '9223372036854771712\n' });
    assert.deepEqual(containerMemoryLimit({ env: { [MEMORY_LIMIT_ENV]: '0' }, readFile: unlimited }), {
      source: 'none',
    });
    assert.deepEqual(containerMemoryLimit({ env: { [MEMORY_LIMIT_ENV]: '512Mi' }, readFile: files({}) }), {
      source: 'none',
    });
  });
});

describe('inflightBudgetFromEnvironment', () => {
  const maxBody = 7 * MiB;
  it('is a quarter of the smaller of the memory limit and the heap limit', () => {
    const env = { [MEMORY_LIMIT_ENV]: String(512 * MiB) };
    assert.equal(
      inflightBudgetFromEnvironment(maxBody, { env, readFile: files({}), heapLimitBytes: 256 * MiB }).bytes,
      64 * MiB,
    );
    assert.equal(
      inflightBudgetFromEnvironment(maxBody, { env, readFile: files({}), heapLimitBytes: 4096 * MiB }).bytes,
      128 * MiB,
    );
  });

  it('falls back to the default without a limit, and never goes under one largest body', () => {
    const none = { env: {}, readFile: files({}), heapLimitBytes: 4096 * MiB };
    assert.deepEqual(inflightBudgetFromEnvironment(maxBody, none), {
      bytes: DEFAULT_INFLIGHT_BYTES,
      source: 'none',
      heapLimitBytes: 4096 * MiB,
    });
    const tiny = { env: { [MEMORY_LIMIT_ENV]: String(16 * MiB) }, readFile: files({}), heapLimitBytes: 4096 * MiB };
    assert.equal(inflightBudgetFromEnvironment(maxBody, tiny).bytes, maxBody);
  });
});
