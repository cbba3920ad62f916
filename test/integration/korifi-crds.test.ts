// Korifi's and kpack's CRDs on the real control plane (docs/decisions.md D13, N39): they install
// (adapted for v1.20), an object of each kind nudger reads is written with its spec and its status
// (through the status subresource, as Korifi and kpack write it) and read back, through a GET and
// a LIST, decoding with nudger's decoder to the same fields. The API server and the decoder agree
// on what Korifi's CRDs require; kpack's CRDs require nothing, so only the decoder refuses a read
// field of the wrong type there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BUILD_WORKLOADS,
  CF_APPS,
  CF_BUILDS,
  CF_PACKAGES,
  CF_PROCESSES,
  KPACK_BUILDERS,
  KPACK_BUILDS,
  KPACK_CLUSTER_BUILDERS,
  KPACK_IMAGES,
} from '../../src/adapters/kubernetes/korifi-resources.ts';
import { KubeApiError } from '../../src/adapters/kubernetes/errors.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { decodeOrThrow, KORIFI_DECODERS, type KorifiKind } from '../../src/domain/korifi/objects.ts';
import { isRecord } from '../../src/domain/records.ts';
import { cfApp, kpackImage, SAMPLES, SPACE } from '../domain/korifi/korifi-objects.ts';
import { startKorifiControlPlane, type KorifiControlPlane } from './korifi-control-plane.ts';

let cluster: KorifiControlPlane;

before(async () => {
  cluster = await startKorifiControlPlane();
  await cluster.createSpace(SPACE);
});
after(async () => {
  await cluster.stop();
});

const RESOURCES: Readonly<Record<KorifiKind, ResourceRef>> = {
  BuildWorkload: BUILD_WORKLOADS,
  CFApp: CF_APPS,
  CFBuild: CF_BUILDS,
  CFPackage: CF_PACKAGES,
  CFProcess: CF_PROCESSES,
  Image: KPACK_IMAGES,
  Build: KPACK_BUILDS,
  Builder: KPACK_BUILDERS,
  ClusterBuilder: KPACK_CLUSTER_BUILDERS,
};

/** An object as written and read here: any fields. */
type Raw = KubeObject & Record<string, unknown>;

/** The sample as a client writes it: only the metadata a client sets. */
function writable(sample: Record<string, unknown>): Raw {
  const metadata = sample.metadata as Record<string, unknown>;
  const kept = Object.fromEntries(
    ['name', 'namespace', 'labels', 'annotations'].filter((key) => key in metadata).map((key) => [key, metadata[key]]),
  );
  return { ...sample, metadata: kept };
}

function nameOf(object: Raw): string {
  return object.metadata?.name ?? '';
}

describe('Korifi and kpack CRDs on the control plane', () => {
  for (const kind of Object.keys(SAMPLES) as KorifiKind[]) {
    it(`a ${kind} round-trips through create, the status subresource, GET and LIST, and decodes`, async () => {
      const { client } = cluster;
      const resource = RESOURCES[kind];
      const object = writable(SAMPLES[kind]());
      const namespace = resource.namespaced ? SPACE : '';
      const created = await client.create<Raw>(resource, object);
      assert.equal(created.kind, kind);
      await client.replaceStatus<Raw>(resource, { ...created, status: object.status });

      const read = decodeOrThrow(kind, await client.get<Raw>(resource, namespace, nameOf(object)));
      assert.deepEqual(read.spec, object.spec, 'spec as written');
      assert.deepEqual(read.status, object.status, 'status as written');
      assert.equal(read.metadata?.namespace, resource.namespaced ? SPACE : undefined);

      const page = await client.list<Raw>(resource, resource.namespaced ? { namespace: SPACE } : {});
      const listed = page.items.find((item) => item.metadata?.name === nameOf(object));
      assert.ok(listed, 'listed');
      const decoded = KORIFI_DECODERS[kind](listed);
      assert.ok(decoded.ok, JSON.stringify(decoded));
    });
  }

  it('Korifi CRDs refuse what the decoder refuses: a CFApp without desiredState, a bad lifecycle type', async () => {
    const app = writable(cfApp());
    const spec = app.spec as Record<string, unknown>;
    delete spec.desiredState;
    spec.lifecycle = { type: 'python', data: { stack: 'x' } };
    app.metadata = { name: 'refused', namespace: SPACE };
    const refusal = await cluster.client.create(CF_APPS, app).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refusal instanceof KubeApiError && refusal.statusCode === 422, String(refusal));
    assert.match(refusal.message, /desiredState/);
    assert.match(refusal.message, /lifecycle\.type/);
    const decoded = KORIFI_DECODERS.CFApp(app);
    assert.ok(!decoded.ok);
    assert.deepEqual(decoded.problems.map((p) => p.path).sort(), ['spec.desiredState', 'spec.lifecycle.type']);
  });

  it('the v1.20 control plane refuses a Korifi condition with an empty message (writers give every condition one)', async () => {
    // kube-apiserver v1.20 reads "" in these status conditions as null; current Kubernetes accepts it.
    const { client } = cluster;
    const app = writable(cfApp());
    app.metadata = { name: 'empty-message', namespace: SPACE };
    const created = await client.create<Raw>(CF_APPS, app);
    const status = {
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-15T10:21:00Z' },
      ],
    };
    await assert.rejects(client.replaceStatus<Raw>(CF_APPS, { ...created, status }), /status\.conditions\.message/);
  });

  it('kpack CRDs keep any field (no schema): a status.latestImage of the wrong type is stored, and the decoder refuses it', async () => {
    const image = writable(kpackImage());
    image.metadata = { name: 'odd-image', namespace: SPACE };
    const created = await cluster.client.create<Raw>(KPACK_IMAGES, image);
    await cluster.client.replaceStatus<Raw>(KPACK_IMAGES, { ...created, status: { latestImage: 42 } });
    const stored = await cluster.client.get<Raw>(KPACK_IMAGES, SPACE, 'odd-image');
    assert.ok(isRecord(stored.status) && stored.status.latestImage === 42);
    assert.throws(() => decodeOrThrow('Image', stored), {
      name: 'KorifiDecodeError',
      message: `Image ${SPACE}/odd-image does not decode: status.latestImage: must be a string`,
    });
  });
});
