// The informer's LIST pages wait longer than kube-apiserver's own request timeout (docs/decisions.md
// N51): a page the server is slow to answer ends with the server's answer, not a client timeout
// that retries the same request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeHttp, type KubeRequest } from '../../../src/adapters/kubernetes/http.ts';
import { DEFAULT_LIST_TIMEOUT_MS, KubeListWatchSource } from '../../../src/adapters/kubernetes/list-watch.ts';
import { PIPELINE_RUNS } from '../../../src/adapters/kubernetes/resources.ts';

/** Answers every request with an empty list and keeps what was asked. */
class RecordingHttp extends KubeHttp {
  readonly requests: KubeRequest[] = [];
  constructor() {
    super(new KubeConfig());
  }
  override json<R>(request: KubeRequest): Promise<R> {
    this.requests.push(request);
    return Promise.resolve({ items: [], metadata: { resourceVersion: '7' } } as R);
  }
}

/** kube-apiserver's default --request-timeout; the client's must be longer. */
const API_SERVER_REQUEST_TIMEOUT_MS = 60_000;
const longerThanTheServer = (ms: number): boolean => ms > API_SERVER_REQUEST_TIMEOUT_MS;

describe('KubeListWatchSource list', () => {
  it('gives a page longer than the API server takes to time it out itself', async () => {
    const http = new RecordingHttp();
    const source = new KubeListWatchSource(http, PIPELINE_RUNS, { labelSelector: 'a=b' });
    const page = await source.list({ limit: 500 });
    assert.equal(page.resourceVersion, '7');
    const request = http.requests[0];
    assert.ok(request !== undefined);
    assert.equal(request.timeoutMs, DEFAULT_LIST_TIMEOUT_MS);
    assert.ok(longerThanTheServer(request.timeoutMs));
    assert.deepEqual(
      { labelSelector: request.query?.labelSelector, limit: request.query?.limit },
      { labelSelector: 'a=b', limit: 500 },
    );
  });

  it('keeps a timeout it was given', async () => {
    const http = new RecordingHttp();
    await new KubeListWatchSource(http, PIPELINE_RUNS, { listTimeoutMs: 5_000 }).list({});
    assert.equal(http.requests[0]?.timeoutMs, 5_000);
  });
});
