// The ReleasePlanAdmission cache when release-service is absent or not granted: it must say so once,
// never block the ChangeGroup controller, and keep asking. The path where RPAs can be listed runs
// an ordinary informer and is covered on a real API server (test/integration/changegroup-distribution).
import { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListQuery } from '../../src/adapters/kubernetes/client.ts';
import { errorFromStatus } from '../../src/adapters/kubernetes/errors.ts';
import { KubeHttp } from '../../src/adapters/kubernetes/http.ts';
import { RELEASE_PLAN_ADMISSIONS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, KubeStatus, ListPage, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { ReleasePlanAdmissionCache } from '../../src/controllers/changegroup/release-plan-admissions.ts';
import { ManualClock } from '../../src/runtime/clock.ts';
import { silentLogger } from '../../src/runtime/runtime-log.ts';
import { SharedInformers } from '../../src/runtime/shared-informers.ts';
import { FakeObjectClient, recordingLogger, status, waitFor, type LogLine } from '../runtime/fakes.ts';

/** Answers every list of RPAs with `code`; the informer is never started in these tests. */
class RefusingClient extends FakeObjectClient {
  // Never used to connect: the informer only starts once a list succeeds, which these tests never allow.
  readonly http = new KubeHttp(new KubeConfig());
  readonly refusal: KubeStatus;
  lists = 0;

  constructor(refusal: KubeStatus) {
    super();
    this.refusal = refusal;
  }

  override list<T extends KubeObject>(ref: ResourceRef, query?: ListQuery): Promise<ListPage<T>> {
    if (ref.plural !== RELEASE_PLAN_ADMISSIONS.plural) return super.list(ref, query);
    this.lists++;
    const target = { verb: 'list', resource: ref.plural, namespace: query?.namespace ?? '', name: '' };
    return Promise.reject(errorFromStatus(target, this.refusal));
  }
}

function refusingClient(code: number, reason: string): RefusingClient {
  return new RefusingClient(status(code, reason));
}

const probes = (client: RefusingClient) => client.lists;

describe('ReleasePlanAdmissionCache without release-service', () => {
  for (const [code, reason, said] of [
    [404, 'NotFound', /CRD is not installed/],
    [403, 'Forbidden', /RBAC does not grant list/],
  ] as const) {
    it(`on ${String(code)}: settles at once, warns once, keeps probing at the interval, and stops on abort`, async () => {
      const clock = new ManualClock();
      const lines: LogLine[] = [];
      const client = refusingClient(code, reason);
      const cache = new ReleasePlanAdmissionCache({
        client,
        informers: new SharedInformers({ http: client.http, logger: silentLogger }),
        logger: recordingLogger(lines),
        clock,
        probeIntervalMs: 1_000,
        settleTimeoutMs: 60_000,
      });
      const stop = new AbortController();
      const running = cache.run(stop.signal);
      // settled() must not wait for its 60 s timeout: a definite "no" is an answer.
      await cache.settled(stop.signal);
      assert.equal(cache.unavailable, true);
      assert.equal(cache.store.list().length, 0);

      for (let round = 2; round <= 4; round++) {
        await waitFor(() => clock.nextTimerAt() === clock.now() + 1_000, 'the probe timer');
        clock.advance(1_000);
        await waitFor(() => probes(client) === round, `probe ${String(round)}`);
      }
      const warnings = lines.filter((line) => line.level === 'warn');
      assert.equal(warnings.length, 1, 'one warning, not one per probe');
      assert.match(String(warnings[0]?.fields.reason), said);

      stop.abort();
      await running;
    });
  }

  it('retries a transient failure sooner than the probe interval, without a warning', async () => {
    const clock = new ManualClock();
    const lines: LogLine[] = [];
    const client = refusingClient(503, 'ServiceUnavailable');
    const cache = new ReleasePlanAdmissionCache({
      client,
      informers: new SharedInformers({ http: client.http, logger: silentLogger }),
      logger: recordingLogger(lines),
      clock,
    });
    const stop = new AbortController();
    const running = cache.run(stop.signal);
    await waitFor(() => probes(client) === 1 && clock.pendingTimers() === 1, 'first probe and its retry timer');
    clock.advance(9_999);
    assert.equal(probes(client), 1);
    clock.advance(1);
    await waitFor(() => probes(client) === 2, 'retry after 10 s');
    assert.equal(cache.unavailable, false, 'an unanswered question is not a "no"');
    assert.deepEqual(lines, []);
    stop.abort();
    await running;
  });

  it('settles after its timeout when the API server never answers', async () => {
    const clock = new ManualClock();
    const client = refusingClient(503, 'ServiceUnavailable');
    const cache = new ReleasePlanAdmissionCache({
      client,
      informers: new SharedInformers({ http: client.http, logger: silentLogger }),
      logger: recordingLogger([]),
      clock,
      settleTimeoutMs: 30_000,
    });
    const stop = new AbortController();
    const running = cache.run(stop.signal);
    let settled = false;
    const settling = cache.settled(stop.signal).then(() => {
      settled = true;
    });
    await waitFor(() => probes(client) === 1, 'first probe');
    clock.advance(29_000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(settled, false);
    clock.advance(1_000);
    await settling;
    stop.abort();
    await running;
  });
});
