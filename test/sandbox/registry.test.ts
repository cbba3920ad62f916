// The local registry starter (docs/decisions.md N40): a real docker-registry on loopback that
// answers the distribution API, goes away with its files on stop, and says why when it cannot start.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { registryBinary, RegistryStartError, startLocalRegistry } from '../../src/sandbox/registry.ts';

describe('startLocalRegistry', () => {
  it('serves the distribution API on 127.0.0.1 until stopped, then leaves nothing behind', async () => {
    const registry = await startLocalRegistry();
    try {
      assert.match(registry.host, /^127\.0\.0\.1:\d+$/);
      const answer = await fetch(`${registry.url}/v2/`);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('docker-distribution-api-version'), 'registry/2.0');
      assert.match(readFileSync(`${registry.directory}/config.yml`, 'utf8'), /"addr":"127\.0\.0\.1:0"/);
    } finally {
      await registry.stop();
    }
    assert.ok(!existsSync(registry.directory));
    await assert.rejects(fetch(`${registry.url}/v2/`));
    await registry.stop();
  });

  it('asks for credentials when given an htpasswd file', async () => {
    const registry = await startLocalRegistry({
      htpasswd: 'someone:$2b$04$.3QxORrMcQxYZ4vJi3A7GePuf8jhxkYjH5Xh3XCBOG5uMhImD9nUi',
    });
    try {
      const answer = await fetch(`${registry.url}/v2/`);
      assert.equal(answer.status, 401);
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Basic realm=/);
    } finally {
      await registry.stop();
    }
  });

  it('fails with a RegistryStartError carrying the log when the binary does not serve', async () => {
    // /bin/false is executable and exits at once: the registry "did not start".
    await assert.rejects(startLocalRegistry({ binary: '/bin/false' }), (error: unknown) => {
      assert.ok(error instanceof RegistryStartError);
      assert.match(error.reason, /exited with code 1/);
      return true;
    });
    assert.throws(() => registryBinary('/nonexistent/docker-registry'), RegistryStartError);
  });
});
