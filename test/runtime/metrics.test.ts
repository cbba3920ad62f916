import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MetricTypeConflictError, counter, createRegistry, gauge, histogram } from '../../src/runtime/metrics.ts';

describe('createRegistry', () => {
  it('carries the default Node process metrics', async () => {
    const text = await createRegistry().metrics();
    assert.match(text, /^process_cpu_user_seconds_total /m);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    assert.match(text, /^process_resident_memory_bytes /m);
  });

  it('gives separate registries separate metrics', async () => {
    const a = createRegistry();
    const b = createRegistry();
    counter(a, { name: 'only_in_a_total', help: 'x' }).inc();
    assert.match(await a.metrics(), /only_in_a_total 1/);
    assert.doesNotMatch(await b.metrics(), /only_in_a_total/);
  });
});

describe('metric helpers', () => {
  it('return the already registered metric instead of throwing', async () => {
    const registry = createRegistry();
    const first = counter(registry, { name: 'things_total', help: 'x', labelNames: ['kind'] });
    const second = counter(registry, { name: 'things_total', help: 'x', labelNames: ['kind'] });
    assert.equal(first, second);
    second.inc({ kind: 'a' });
    assert.match(await registry.metrics(), /things_total\{kind="a"\} 1/);
    assert.equal(gauge(registry, { name: 'depth', help: 'x' }), gauge(registry, { name: 'depth', help: 'x' }));
    assert.equal(histogram(registry, { name: 'lat', help: 'x' }), histogram(registry, { name: 'lat', help: 'x' }));
  });

  it('refuse a name registered with another type', () => {
    const registry = createRegistry();
    gauge(registry, { name: 'queue_depth', help: 'x' });
    assert.throws(() => counter(registry, { name: 'queue_depth', help: 'x' }), MetricTypeConflictError);
  });
});
