// The few raw requests the fixture makes itself (readiness, CRD install, discovery). Plain
// node:https keeps the fixture independent of the client library the tests are exercising.
import { request } from 'node:https';
import { ControlPlaneRequestError } from './errors.ts';

export interface RestTarget {
  readonly server: string;
  readonly token: string;
  /** The CA bundle; undefined only while waiting for the apiserver to write its certificate. */
  readonly ca: string | undefined;
}

export interface RestResponse {
  readonly status: number;
  readonly body: string;
}

/** One request; resolves with any HTTP status, rejects only when no response arrived. */
export function rawRequest(target: RestTarget, method: string, path: string, body?: unknown): Promise<RestResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, target.server),
      {
        method,
        // Before the apiserver's self-signed certificate exists there is nothing to verify against;
        // only the readiness probe runs in that state, and it sends nothing sensitive but a test token.
        ...(target.ca === undefined ? { rejectUnauthorized: false } : { ca: target.ca }),
        headers: {
          authorization: `Bearer ${target.token}`,
          accept: 'application/json',
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
        timeout: 10_000,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A request that must succeed (2xx); the parsed JSON body, unvalidated. */
export async function requestJson(target: RestTarget, method: string, path: string, body?: unknown): Promise<unknown> {
  let response: RestResponse;
  try {
    response = await rawRequest(target, method, path, body);
  } catch (error) {
    throw new ControlPlaneRequestError(method, path, undefined, error instanceof Error ? error.message : String(error));
  }
  if (response.status < 200 || response.status > 299) {
    throw new ControlPlaneRequestError(method, path, response.status, response.body);
  }
  return JSON.parse(response.body) as unknown;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
