// The counting proxy of the Korifi stack-update benchmark (bench/korifi-stack-update.ts, N44): the
// "API requests per app" figure is only as good as its count, so a client sent through it against a
// real kube-apiserver must get its answers (bodies and streamed watch events both ways) and every
// request must be counted once under its verb, a watch as WATCH.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCountingProxy } from '../../bench/korifi-stack-update.ts';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { CONFIG_MAPS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';

let plane: ControlPlane;
let proxy: Awaited<ReturnType<typeof startCountingProxy>>;
let client: KubeClient;

before(async () => {
  plane = await startControlPlane({ crds: [] });
  proxy = await startCountingProxy(plane.kubeConfig);
  client = new KubeClient(proxy.kubeConfig);
});

after(async () => {
  client.close();
  await proxy.close();
  await plane.close();
});

describe('korifi-stack-update counting proxy', () => {
  it('forwards reads, writes and watches to kube-apiserver and counts each by verb', async () => {
    const page = await client.list(CONFIG_MAPS, { namespace: 'default' });
    const stream = await client.http.stream(
      {
        method: 'GET',
        path: '/api/v1/namespaces/default/configmaps',
        query: { watch: true, resourceVersion: page.resourceVersion },
      },
      { verb: 'watch', resource: 'configmaps' },
    );
    await client.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'counted', namespace: 'default' },
      data: { a: '1' },
    });
    await client.patch(CONFIG_MAPS, 'default', 'counted', 'merge', { data: { a: '2' } });
    const seen: string[] = [];
    for await (const line of stream.lines) {
      seen.push((JSON.parse(line) as { type: string }).type);
      if (seen.length === 2) break;
    }
    stream.close();
    assert.deepEqual(seen, ['ADDED', 'MODIFIED']);
    const direct = new KubeClient(plane.kubeConfig);
    try {
      const stored = await direct.get<KubeObject & { data?: Record<string, string> }>(
        CONFIG_MAPS,
        'default',
        'counted',
      );
      assert.deepEqual(stored.data, { a: '2' });
    } finally {
      direct.close();
    }
    assert.deepEqual(Object.fromEntries(proxy.counts.byVerb), { GET: 1, WATCH: 1, POST: 1, PATCH: 1 });
    assert.equal(proxy.counts.total(), 4);
    assert.match(proxy.counts.describe(2), /^GET 1 \(0\.50\/app\), PATCH 1 \(0\.50\/app\), POST 1/);
  });
});
