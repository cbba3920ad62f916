// /metrics as kube-rbac-proxy guards it: TokenReview, then SubjectAccessReview for GET /metrics;
// answers cached briefly per token so a scrape storm is not a review storm; no token in any log.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import type { ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { ManualClock } from '../../src/runtime/clock.ts';
import { HealthServer } from '../../src/runtime/health-server.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { KubernetesMetricsAuthorizer, bearerToken } from '../../src/runtime/metrics-auth.ts';
import { createRegistry } from '../../src/runtime/metrics.ts';
import { FakeObjectClient, status } from './fakes.ts';
import { errorFromStatus } from '../../src/adapters/kubernetes/errors.ts';

const PROMETHEUS = 'prometheus-token-6b1f0e2a';
const INTRUDER = 'intruder-token-93c4d7aa';

/** The API server's review endpoints: two tokens known, only the Prometheus user allowed. */
class ReviewingClient extends FakeObjectClient {
  readonly reviews: string[] = [];
  down = false;

  override create<T>(ref: ResourceRef, object: T): Promise<T> {
    this.reviews.push(ref.plural);
    if (this.down) {
      return Promise.reject(
        errorFromStatus({ verb: 'create', resource: ref.plural }, status(503, 'ServiceUnavailable')),
      );
    }
    const spec = (object as { spec: Record<string, unknown> }).spec;
    if (ref.plural === 'tokenreviews') {
      const users: Record<string, string> = {
        [PROMETHEUS]: 'system:serviceaccount:monitoring:prometheus-k8s',
        [INTRUDER]: 'system:serviceaccount:tenant-x:default',
      };
      const username = users[String(spec.token)];
      return Promise.resolve({
        ...object,
        status:
          username === undefined ? { authenticated: false } : { authenticated: true, user: { username, groups: [] } },
      });
    }
    const path = (spec.nonResourceAttributes as { path: string; verb: string }).path;
    const allowed = spec.user === 'system:serviceaccount:monitoring:prometheus-k8s' && path === '/metrics';
    return Promise.resolve({ ...object, status: { allowed } });
  }
}

function logLines() {
  const lines: string[] = [];
  return {
    lines,
    logger: createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } }),
  };
}

function scrape(port: number, path: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent: false,
        timeout: 10_000,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve(res.statusCode ?? 0);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no reply to ${path}`)));
    req.on('error', reject);
    req.end();
  });
}

describe('bearerToken', () => {
  it('reads the Bearer scheme only', () => {
    assert.equal(bearerToken('Bearer abc.def'), 'abc.def');
    assert.equal(bearerToken('bearer abc'), 'abc');
    assert.equal(bearerToken('Basic YWxpY2U6cHc='), undefined);
    assert.equal(bearerToken('Bearer'), undefined);
    assert.equal(bearerToken(undefined), undefined);
  });
});

describe('KubernetesMetricsAuthorizer', () => {
  it('allows a permitted token, forbids another, refuses an unknown one', async () => {
    const client = new ReviewingClient();
    const auth = new KubernetesMetricsAuthorizer({ client, logger: logLines().logger, clock: new ManualClock() });
    assert.equal(await auth.authorize(`Bearer ${PROMETHEUS}`), 'allowed');
    assert.equal(await auth.authorize(`Bearer ${INTRUDER}`), 'forbidden');
    assert.equal(await auth.authorize('Bearer not-a-token'), 'unauthenticated');
    assert.equal(await auth.authorize(undefined), 'unauthenticated');
    assert.deepEqual(client.reviews, [
      'tokenreviews',
      'subjectaccessreviews',
      'tokenreviews',
      'subjectaccessreviews',
      'tokenreviews',
    ]);
  });

  it('answers a scrape storm from one review per token until the answer expires', async () => {
    const client = new ReviewingClient();
    const clock = new ManualClock();
    const auth = new KubernetesMetricsAuthorizer({ client, logger: logLines().logger, clock, ttlMs: 10_000 });
    const storm = await Promise.all(
      Array.from({ length: 50 }, (_, i) => auth.authorize(`Bearer ${i % 2 === 0 ? PROMETHEUS : INTRUDER}`)),
    );
    assert.equal(storm.filter((a) => a === 'allowed').length, 25);
    assert.equal(storm.filter((a) => a === 'forbidden').length, 25);
    assert.equal(client.reviews.length, 4, 'one TokenReview and one SubjectAccessReview per token');
    clock.advance(9_000);
    await auth.authorize(`Bearer ${INTRUDER}`);
    assert.equal(client.reviews.length, 4);
    clock.advance(2_000);
    await auth.authorize(`Bearer ${INTRUDER}`);
    assert.equal(client.reviews.length, 6, 'reviewed again after the TTL');
  });

  it('remembers at most maxEntries tokens, least recently used out first', async () => {
    const client = new ReviewingClient();
    const auth = new KubernetesMetricsAuthorizer({
      client,
      logger: logLines().logger,
      clock: new ManualClock(),
      maxEntries: 2,
    });
    await auth.authorize(`Bearer ${PROMETHEUS}`); // 2 reviews
    await auth.authorize('Bearer unknown-1'); // 1
    await auth.authorize(`Bearer ${PROMETHEUS}`); // cached, now most recent
    await auth.authorize('Bearer unknown-2'); // 1, evicts unknown-1
    assert.equal(client.reviews.length, 4);
    await auth.authorize(`Bearer ${PROMETHEUS}`);
    assert.equal(client.reviews.length, 4, 'kept');
    await auth.authorize('Bearer unknown-1');
    assert.equal(client.reviews.length, 5, 'evicted, reviewed again');
  });

  it('answers unavailable when the API server cannot review, remembers nothing, logs no token', async () => {
    const client = new ReviewingClient();
    const log = logLines();
    const auth = new KubernetesMetricsAuthorizer({ client, logger: log.logger, clock: new ManualClock() });
    client.down = true;
    assert.equal(await auth.authorize(`Bearer ${PROMETHEUS}`), 'unavailable');
    client.down = false;
    assert.equal(await auth.authorize(`Bearer ${PROMETHEUS}`), 'allowed');
    await auth.authorize(`Bearer ${INTRUDER}`);
    assert.ok(log.lines.length > 0);
    for (const line of log.lines) {
      assert.ok(!line.includes(PROMETHEUS) && !line.includes(INTRUDER), `token in log line: ${line}`);
    }
  });
});

describe('HealthServer with a metrics authorizer', () => {
  it('guards /metrics (401, 403, 200) and leaves /healthz and /readyz open', async () => {
    const registry = createRegistry();
    const metricsAuthorizer = new KubernetesMetricsAuthorizer({
      client: new ReviewingClient(),
      logger: logLines().logger,
    });
    const server = new HealthServer({ port: 0, host: '127.0.0.1', registry, metricsAuthorizer });
    const { port } = await server.start();
    try {
      assert.equal(await scrape(port, '/metrics'), 401);
      assert.equal(await scrape(port, '/metrics', 'not-a-token'), 401);
      assert.equal(await scrape(port, '/metrics', INTRUDER), 403);
      assert.equal(await scrape(port, '/metrics', PROMETHEUS), 200);
      assert.equal(await scrape(port, '/healthz'), 200);
      assert.equal(await scrape(port, '/readyz'), 200);
    } finally {
      await server.stop();
    }
  });
});
