// KorifiKindCaches (src/cluster/korifi-watched-kinds.ts, docs/decisions.md N39) on the real control
// plane: before Korifi and kpack are installed, each kind asked for is said missing once and the
// korifi controllers wait; once the CRDs are there, every cache lists, watches and decodes. Two
// controllers asking for the same kind share one cache, run once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { KPACK_IMAGES } from '../../src/adapters/kubernetes/korifi-resources.ts';
import { NAMESPACES } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { BUILD_WORKLOADS_KIND, KorifiKindCaches, KPACK_IMAGES_KIND } from '../../src/cluster/korifi-watched-kinds.ts';
import { SharedInformers } from '../../src/runtime/shared-informers.ts';
import { KORIFI_CRDS, startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { kpackImage, SPACE } from '../domain/korifi/korifi-objects.ts';
import { recordingLogger, type LogLine } from '../runtime/fakes.ts';
import { eventually } from './wait.ts';

let plane: ControlPlane;
let client: KubeClient;

before(async () => {
  plane = await startControlPlane({ crds: [] });
  client = new KubeClient(plane.kubeConfig);
});
after(async () => {
  client.close();
  await plane.close();
});

describe('KorifiKindCaches', () => {
  it('waits for missing kinds, says so once per kind, then lists, watches and decodes; one cache per kind', async () => {
    const lines: LogLine[] = [];
    const logger = recordingLogger(lines);
    const informers = new SharedInformers({ http: client.http, logger });
    const setup = { client, informers, logger };
    // Two controllers of one term ask for their caches in setUp.
    const first = KorifiKindCaches.of(setup, { probeIntervalMs: 200 });
    const second = KorifiKindCaches.of(setup);
    assert.equal(first, second);
    const images = first.cache(KPACK_IMAGES_KIND);
    assert.equal(second.cache(KPACK_IMAGES_KIND), images);
    const workloads = second.cache(BUILD_WORKLOADS_KIND);

    const stop = new AbortController();
    // Both controllers run the caches: each runs once (an informer run twice would reject).
    const runs = [first.run(stop.signal), second.run(stop.signal)];
    let listable: boolean | undefined;
    const waiting = first.whenListable([images, workloads], stop.signal).then((value) => (listable = value));
    try {
      await eventually('both kinds found missing', () => (images.unavailable && workloads.unavailable) || undefined);
      await new Promise((resolve) => setTimeout(resolve, 600)); // several probes
      assert.equal(listable, undefined, 'the controllers still wait');
      const told = lines.filter((line) => line.level === 'warn').map((line) => line.message);
      assert.equal(told.length, 2, told.join('\n'));
      assert.match(told.join('\n'), /^Image objects cannot be listed; nudger's Korifi controllers wait/m);
      assert.match(told.join('\n'), /^BuildWorkload objects cannot be listed/m);

      await plane.installCrds(KORIFI_CRDS);
      await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SPACE } });
      const sample = kpackImage();
      const metadata = sample.metadata as Record<string, unknown>;
      await client.create<KubeObject>(KPACK_IMAGES, {
        ...sample,
        metadata: { name: String(metadata.name), namespace: SPACE },
      });
      await waiting;
      assert.equal(listable, true);
      const cached = await eventually('the Image in the cache', () => images.store.get(SPACE, String(metadata.name)));
      assert.equal(cached.spec?.serviceAccountName, 'kpack-service-account');
      assert.ok(
        lines.some((line) => line.message === "Image objects can be listed now; nudger's Korifi controllers start"),
      );
    } finally {
      stop.abort();
      await Promise.all(runs);
    }
  });
});
