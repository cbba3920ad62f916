import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { HealthServer, DuplicateCheckError } from '../../src/runtime/health-server.ts';
import { counter, createRegistry } from '../../src/runtime/metrics.ts';

function get(port: number, path: string, method = 'GET'): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no reply to ${path}`)));
    req.on('error', reject);
    req.end();
  });
}

describe('HealthServer', () => {
  const registry = createRegistry();
  const server = new HealthServer({ port: 0, host: '127.0.0.1', registry });
  let port: number;
  let informersSynced: true | string = 'informer NudgeConfig not synced';

  before(async () => {
    server.addReadinessCheck('informers', () => informersSynced);
    server.addReadinessCheck('webhook', () => Promise.resolve(true));
    ({ port } = await server.start());
  });

  after(async () => {
    await server.stop();
  });

  it('answers /healthz while the process runs', async () => {
    assert.deepEqual((await get(port, '/healthz')).status, 200);
    assert.equal((await get(port, '/healthz')).text, 'ok\n');
  });

  it('fails /readyz with 503 and the failing reasons, then passes once every check does', async () => {
    const failing = await get(port, '/readyz');
    assert.equal(failing.status, 503);
    assert.equal(
      failing.text,
      '[-]informers failed: informer NudgeConfig not synced\n[+]webhook ok\nreadyz check failed\n',
    );
    informersSynced = true;
    const passing = await get(port, '/readyz');
    assert.equal(passing.status, 200);
    assert.equal(passing.text, 'ok\n');
    assert.match(
      (await get(port, '/readyz?verbose')).text,
      /\[\+\]informers ok\n\[\+\]webhook ok\nreadyz check passed/,
    );
  });

  it('reports a check that throws as failed, with its message on one line', async () => {
    server.addHealthCheck('broken', () => {
      throw new Error('disk\ngone');
    });
    const reply = await get(port, '/healthz');
    assert.equal(reply.status, 503);
    assert.match(reply.text, /\[-\]broken failed: check threw: disk gone\n/);
    assert.throws(() => {
      server.addHealthCheck('broken', () => true);
    }, DuplicateCheckError);
  });

  it('serves the registry on /metrics with the Prometheus content type', async () => {
    counter(registry, {
      name: 'controller_runtime_reconcile_total',
      help: 'x',
      labelNames: ['controller', 'result'],
    }).inc({
      controller: 'nudgeconfig',
      result: 'success',
    });
    const reply = await get(port, '/metrics');
    assert.equal(reply.status, 200);
    assert.equal(reply.type, registry.contentType);
    assert.match(reply.text, /controller_runtime_reconcile_total\{controller="nudgeconfig",result="success"\} 1/);
    assert.match(reply.text, /process_cpu_user_seconds_total/);
  });

  it('refuses other paths and methods', async () => {
    assert.equal((await get(port, '/nope')).status, 404);
    assert.equal((await get(port, '/healthz', 'POST')).status, 405);
    const head = await get(port, '/readyz', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
  });
});
