// The scale benchmark's readings (bench/scale.ts, bench/child-manager.ts, docs/decisions.md N45):
// the webhook's p99 verdict comes from a histogram delta, and API requests per nudge from the
// child's counts keyed by resource, so a misreading there would print a wrong verdict.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricSamples, resourceOf } from '../../bench/child-manager.ts';
import { histogramDelta, webhookHistogram } from '../../bench/scale.ts';

const PATH = '/mutate-tekton-dev-v1-pipelinerun';

/** A /metrics text with the webhook histogram's cumulative buckets for PATH and another path. */
function exposition(buckets: Readonly<Record<string, number>>): string {
  const lines = [
    '# HELP controller_runtime_webhook_latency_seconds x',
    '# TYPE controller_runtime_webhook_latency_seconds histogram',
  ];
  for (const [le, n] of Object.entries(buckets)) {
    lines.push(`controller_runtime_webhook_latency_seconds_bucket{le="${le}",webhook="${PATH}"} ${String(n)}`);
    lines.push(`controller_runtime_webhook_latency_seconds_bucket{le="${le}",webhook="/other"} 1000`);
  }
  lines.push(`controller_runtime_webhook_latency_seconds_count{webhook="${PATH}"} ${String(buckets['+Inf'] ?? 0)}`);
  return lines.join('\n');
}

describe('scale benchmark readings', () => {
  it('reads the p99 verdict from the burst share of the histogram, not from its whole life', () => {
    const before = webhookHistogram(exposition({ '0.001': 50, '0.005': 100, '0.01': 100, '+Inf': 100 }), PATH);
    // During the burst: 200 more, of which 196 within 5 ms and 4 above 10 ms.
    const after = webhookHistogram(exposition({ '0.001': 150, '0.005': 296, '0.01': 296, '+Inf': 300 }), PATH);
    const delta = histogramDelta(before, after);
    assert.equal(delta.count, 200);
    assert.equal(delta.within5ms, 0.98);
    assert.equal(delta.p99UpperMs, Infinity);
    const fast = histogramDelta(
      before,
      webhookHistogram(exposition({ '0.001': 150, '0.005': 299, '0.01': 300, '+Inf': 300 }), PATH),
    );
    assert.equal(fast.within5ms, 0.995);
    assert.equal(fast.p99UpperMs, 5);
  });

  it('reads one metric by its exact name, not a longer one that starts with it', () => {
    const text =
      'nodejs_heap_size_used_bytes 10\nnodejs_heap_size_used_bytes_total 99\nprocess_resident_memory_bytes 7';
    assert.deepEqual(metricSamples(text, 'nodejs_heap_size_used_bytes'), [{ labels: '', value: 10 }]);
  });

  it('keys API requests by resource and subresource, namespaced or not', () => {
    assert.equal(resourceOf('/apis/tekton.dev/v1/namespaces/t1/pipelineruns/build-1/status'), 'pipelineruns/status');
    assert.equal(resourceOf('/apis/tekton.dev/v1/namespaces/t1/pipelineruns'), 'pipelineruns');
    assert.equal(resourceOf('/api/v1/namespaces/t1/events'), 'events');
    assert.equal(resourceOf('/api/v1/namespaces'), 'namespaces');
    assert.equal(resourceOf('/apis/appstudio.redhat.com/v1alpha1/changegroups'), 'changegroups');
  });
});
