// Informer cache memory per Component: 10,000 Components in a real kube-apiserver, listed and
// watched into the Store (managedFields stripped), heap measured after full GCs.
// Run alone: `node bench/informer-memory.ts` (starts its own control plane, ~1–2 min).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeClient } from '../src/adapters/kubernetes/client.ts';
import { KubeListWatchSource } from '../src/adapters/kubernetes/list-watch.ts';
import { COMPONENTS, NAMESPACES } from '../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../src/adapters/kubernetes/types.ts';
import { Informer } from '../src/runtime/informer.ts';
import { startControlPlane, UPSTREAM_CRDS } from '../test/integration/harness/control-plane.ts';

export interface InformerMemoryResult {
  readonly objects: number;
  readonly bytesPerObject: number;
  readonly bytesPerObjectUnstripped: number;
}

const TARGET_BYTES = 6 * 1024;

function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function settledHeap(gc: () => void): Promise<number> {
  for (let i = 0; i < 4; i += 1) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

/** A Component shaped like a real Konflux one (source, image, nudges, a few labels). */
function component(namespace: string, index: number): KubeObject & { spec: unknown } {
  const name = `component-${String(index).padStart(5, '0')}`;
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: {
      namespace,
      name,
      labels: { 'appstudio.redhat.com/application': 'bench-app', 'app.kubernetes.io/managed-by': 'bench' },
      annotations: {
        'build.appstudio.openshift.io/request': 'configure-pac',
        'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
          metadata: { name },
          spec: { componentName: name },
        }),
      },
    },
    spec: {
      componentName: name,
      application: 'bench-app',
      containerImage: `quay.io/redhat-user-workloads/bench-tenant/bench-app/${name}`,
      source: { git: { url: `https://github.com/example-org/${name}.git`, revision: 'main', context: './' } },
      'build-nudges-ref': [`component-${String((index + 1) % 10_000).padStart(5, '0')}`],
    },
  };
}

async function pool(total: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let index = next++; index < total; index = next++) await task(index);
    }),
  );
}

/**
 * What the cache retains, measured as the heap with the synced informer minus the heap once it is
 * dropped. Both readings are taken at the same point of the process's history; a "before" taken
 * earlier would also count (or, once collected, subtract) whatever the setup left behind.
 */
async function cacheBytesPerObject(
  client: KubeClient,
  namespace: string,
  objects: number,
  transform: ((object: KubeObject) => KubeObject) | undefined,
  gc: () => void,
): Promise<number> {
  const held = await syncedCache(client, namespace, objects, transform);
  const withCache = await settledHeap(gc);
  delete held.informer;
  const withoutCache = await settledHeap(gc);
  return (withCache - withoutCache) / objects;
}

/** A synced, stopped informer whose only reference is the returned holder's property. */
async function syncedCache(
  client: KubeClient,
  namespace: string,
  objects: number,
  transform: ((object: KubeObject) => KubeObject) | undefined,
): Promise<{ informer?: Informer<KubeObject> }> {
  const informer = new Informer<KubeObject>({
    source: new KubeListWatchSource(client.http, COMPONENTS, { namespace }),
    // Decoding returns the object it was given, so a pass-through measures the same cache.
    kind: { resource: COMPONENTS, decode: (object) => ({ ok: true, object }) },
    resyncPeriodMs: 0,
    ...(transform === undefined ? {} : { transform }),
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  await informer.waitForSync();
  if (informer.store.size !== objects)
    throw new Error(`cached ${String(informer.store.size)} of ${String(objects)} Components`);
  stop.abort();
  await running;
  return { informer };
}

export async function benchInformerMemory(objects = 10_000): Promise<InformerMemoryResult> {
  const gc = gcFunction();
  const cp = await startControlPlane({ crds: [UPSTREAM_CRDS.components] });
  const client = new KubeClient(cp.kubeConfig);
  const namespace = 'bench-tenant';
  try {
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await pool(objects, 32, async (index) => {
      await client.create(COMPONENTS, component(namespace, index));
    });
    const stripped = await cacheBytesPerObject(client, namespace, objects, undefined, gc);
    const unstripped = await cacheBytesPerObject(client, namespace, objects, (object) => object, gc);
    return { objects, bytesPerObject: stripped, bytesPerObjectUnstripped: unstripped };
  } finally {
    client.close();
    await cp.close();
  }
}

export function formatInformerMemory(result: InformerMemoryResult): string {
  const kb = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KB`;
  const verdict = result.bytesPerObject <= TARGET_BYTES ? 'meets target <= 6 KB' : 'MISSES target <= 6 KB';
  return `informer cache, ${result.objects.toLocaleString('en')} Components: ${kb(result.bytesPerObject)}/object with managedFields stripped — ${verdict} (unstripped: ${kb(result.bytesPerObjectUnstripped)}/object)`;
}

if (import.meta.main) {
  console.log(formatInformerMemory(await benchInformerMemory()));
}
