// The registry client against a real OCI distribution registry (Debian's docker-registry, started
// from scripts/provision-registry.sh's binary; docs/decisions.md N40): what the kpack stand-in
// pushes, nudger's Korifi controllers read back.
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Credentials } from '../../../src/adapters/credentials/credentials.ts';
import { pushImage, readImageConfig, RegistryClient } from '../../../src/adapters/registry/client.ts';
import {
  ImageManifestError,
  ImageNotFoundError,
  RegistryAuthError,
  RegistryRequestError,
} from '../../../src/adapters/registry/errors.ts';
import {
  BUILD_METADATA_LABEL,
  dropletCommand,
  parseBuildMetadata,
} from '../../../src/adapters/registry/image-metadata.ts';
import { tarArchive } from '../../../src/adapters/registry/tar.ts';
import { startTestRegistry, TEST_REGISTRY_PASSWORD, type TestRegistry } from '../../support/registry.ts';

const buildMetadata = JSON.stringify({
  buildpacks: [{ id: 'paketo-buildpacks/nodejs', version: '1.0.0' }],
  processes: [
    { type: 'web', command: ['npm', 'start'], args: ['--port', '8080'], direct: true, default: true },
    { type: 'worker', command: 'node worker.js', args: [], direct: false },
  ],
});
const stackLabels = (stack: string): Record<string, string> => ({
  [BUILD_METADATA_LABEL]: buildMetadata,
  'io.buildpacks.stack.id': stack,
});

describe('registry client against a real registry (anonymous)', () => {
  let registry: TestRegistry;
  before(async () => {
    registry = await startTestRegistry();
  });
  after(() => registry.stop());

  it('reads back what pushImage wrote: labels, ports, digests, process types', async () => {
    const ref = `${registry.host}/cf/app-1:latest`;
    const pushed = await pushImage(ref, {
      labels: stackLabels('io.buildpacks.stacks.jammy'),
      exposedPorts: [8080, '9090/udp'],
    });
    const config = await readImageConfig(ref);
    assert.equal(config.digest, pushed.digest);
    assert.equal(config.pinned, `${registry.host}/cf/app-1@${pushed.digest}`);
    assert.equal(config.configDigest, pushed.configDigest);
    assert.equal(config.mediaType, 'application/vnd.oci.image.manifest.v1+json');
    assert.equal(config.indexDigest, undefined);
    assert.deepEqual([config.os, config.architecture], ['linux', 'amd64']);
    assert.equal(config.labels['io.buildpacks.stack.id'], 'io.buildpacks.stacks.jammy');
    assert.deepEqual(config.exposedPorts, ['8080/tcp', '9090/udp']);
    assert.deepEqual(config.ports, [8080, 9090]);
    const processes = parseBuildMetadata(config.pinned, config.labels).processes;
    assert.deepEqual(
      processes.map((p) => [p.type, dropletCommand(p)]),
      [
        ['web', 'npm start "--port" "8080"'],
        ['worker', 'node worker.js'],
      ],
    );
    // By digest too, which is how kpack's latestImage names it.
    assert.equal((await readImageConfig(pushed.pinned)).configDigest, pushed.configDigest);
  });

  it('gives equal inputs equal digests, and another stack another digest', async () => {
    const a = await pushImage(`${registry.host}/cf/app-2:one`, {
      labels: stackLabels('stack-a'),
      exposedPorts: [8080],
    });
    const b = await pushImage(`${registry.host}/cf/app-2:two`, {
      labels: stackLabels('stack-a'),
      exposedPorts: [8080],
    });
    const c = await pushImage(`${registry.host}/cf/app-2:three`, {
      labels: stackLabels('stack-b'),
      exposedPorts: [8080],
    });
    const d = await pushImage(`${registry.host}/cf/app-2:four`, {
      labels: stackLabels('stack-a'),
      exposedPorts: [8080],
      layers: [tarArchive([{ path: 'workspace/app.js', content: 'console.log(1)' }])],
    });
    assert.equal(a.digest, b.digest);
    assert.notEqual(a.digest, c.digest);
    assert.notEqual(a.digest, d.digest);
    assert.equal(
      (await readImageConfig(`${registry.host}/cf/app-2:three`)).labels['io.buildpacks.stack.id'],
      'stack-b',
    );
  });

  it('reads a Docker v2 schema 2 image', async () => {
    const ref = `${registry.host}/cf/docker-app:v1`;
    const pushed = await pushImage(ref, { labels: { a: '1' }, exposedPorts: ['3000'], format: 'docker' });
    const config = await readImageConfig(ref);
    assert.equal(config.mediaType, 'application/vnd.docker.distribution.manifest.v2+json');
    assert.equal(config.digest, pushed.digest);
    assert.deepEqual(config.ports, [3000]);
  });

  it('narrows an index to linux/amd64, and an index without it to its first entry', async () => {
    const client = new RegistryClient();
    const repo = `${registry.host}/cf/multi`;
    const arm = await client.pushImage(`${repo}:arm64`, {
      labels: { arch: 'arm64' },
      platform: { os: 'linux', architecture: 'arm64', variant: 'v8' },
    });
    const amd = await client.pushImage(`${repo}:amd64`, { labels: { arch: 'amd64' } });
    const s390 = await client.pushImage(`${repo}:s390x`, {
      labels: { arch: 's390x' },
      platform: { os: 'linux', architecture: 's390x' },
    });
    const descriptor = (image: typeof arm) => ({
      mediaType: image.mediaType,
      digest: image.digest,
      size: image.size,
      platform: image.platform,
    });
    for (const format of ['oci', 'docker'] as const) {
      const index = await client.pushIndex(`${repo}:all-${format}`, [descriptor(arm), descriptor(amd)], format);
      const config = await client.readImageConfig(`${repo}:all-${format}`);
      assert.equal(config.labels.arch, 'amd64', format);
      assert.equal(config.digest, amd.digest);
      assert.equal(config.indexDigest, index.digest);
      assert.equal(config.pinned, `${repo}@${amd.digest}`);
    }
    await client.pushIndex(`${repo}:no-amd64`, [descriptor(s390), descriptor(arm)]);
    assert.equal((await client.readImageConfig(`${repo}:no-amd64`)).labels.arch, 's390x');
    const armClient = new RegistryClient({ platform: { os: 'linux', architecture: 'arm64' } });
    assert.equal((await armClient.readImageConfig(`${repo}:all-oci`)).labels.arch, 'arm64');
  });

  it('names the image in the typed error for a missing tag, repository or digest', async () => {
    const missing = [
      [`${registry.host}/cf/app-1:nope`, 'nope'],
      [`${registry.host}/cf/never-pushed:latest`, 'latest'],
      [`${registry.host}/cf/app-1@sha256:${'0'.repeat(64)}`, `sha256:${'0'.repeat(64)}`],
    ] as const;
    for (const [ref, target] of missing) {
      await assert.rejects(readImageConfig(ref), (error: unknown) => {
        assert.ok(error instanceof ImageNotFoundError, String(error));
        assert.equal(error.reference, ref);
        assert.equal(error.kind, 'manifest');
        assert.equal(error.target, target);
        assert.ok(error.message.includes(ref));
        return true;
      });
    }
  });

  it('refuses a manifest pushed under a digest it does not have', async () => {
    const ref = `${registry.host}/cf/app-1@sha256:${'1'.repeat(64)}`;
    await assert.rejects(pushImage(ref, {}), ImageManifestError);
  });

  it('fails with a RegistryRequestError naming the image when nothing listens', async () => {
    const stopped = await startTestRegistry();
    await stopped.stop();
    const ref = `${stopped.host}/cf/app:latest`;
    await assert.rejects(readImageConfig(ref), (error: unknown) => {
      assert.ok(error instanceof RegistryRequestError);
      assert.equal(error.reference, ref);
      assert.equal(error.status, undefined);
      return true;
    });
  });
});

describe('registry client against a real registry with Basic auth (htpasswd)', () => {
  let registry: TestRegistry;
  before(async () => {
    registry = await startTestRegistry({ basicAuth: true });
  });
  after(() => registry.stop());

  it('pushes and reads with the registry credentials', async () => {
    const client = new RegistryClient({ credentials: registry.credentialsLookup });
    const ref = `${registry.host}/cf/private:v1`;
    const pushed = await client.pushImage(ref, { labels: stackLabels('s1'), exposedPorts: [8080] });
    assert.equal((await client.readImageConfig(ref)).digest, pushed.digest);
  });

  it('without credentials: RegistryAuthError naming the image and host', async () => {
    const ref = `${registry.host}/cf/private:v1`;
    await assert.rejects(readImageConfig(ref), (error: unknown) => {
      assert.ok(error instanceof RegistryAuthError);
      assert.equal(error.reference, ref);
      assert.equal(error.host, registry.host);
      assert.match(error.message, /Basic credentials and none are configured/);
      return true;
    });
  });

  it('with a wrong password: RegistryAuthError that shows no credential', async () => {
    const wrong = 'wrong-password-0123456789';
    const client = new RegistryClient({
      credentials: (host) =>
        host === registry.host ? new Credentials({ username: 'nudger-test', token: wrong }) : undefined,
    });
    const ref = `${registry.host}/cf/private:v1`;
    await assert.rejects(client.readImageConfig(ref), (error: unknown) => {
      assert.ok(error instanceof RegistryAuthError);
      assert.equal(error.status, 401);
      const shown = `${error.message} ${inspect(error)} ${JSON.stringify(error)}`;
      for (const secret of [wrong, TEST_REGISTRY_PASSWORD, Buffer.from(`nudger-test:${wrong}`).toString('base64')]) {
        assert.ok(!shown.includes(secret), 'a credential leaked into the error');
      }
      return true;
    });
  });
});
