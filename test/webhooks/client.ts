// A small HTTPS client for the webhook tests: one request, a client-side timeout, the whole reply.
import type { Agent } from 'node:https';
import { request } from 'node:https';
import { connect } from 'node:tls';
import type { AdmissionReviewResponse } from '../../src/webhooks/admission.ts';

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

export interface SendOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly agent?: Agent | false;
  /** The request fails (rejects) when no reply came in this time: a hang is a failure. */
  readonly timeoutMs?: number;
}

export class ClientTimeoutError extends Error {}

export function send(port: number, path: string, body: string | Buffer, options: SendOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        headers: { 'content-type': 'application/json', ...options.headers },
        agent: options.agent ?? false,
        rejectUnauthorized: false,
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => {
      req.destroy(new ClientTimeoutError(`no reply to ${path} within ${String(options.timeoutMs ?? 10_000)} ms`));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function reviewOf(reply: Reply): AdmissionReviewResponse {
  return JSON.parse(reply.text) as AdmissionReviewResponse;
}

/** The protocol a client offering HTTP/2 first ends up with. */
export function negotiatedProtocol(port: number): Promise<string | false | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] },
      () => {
        const protocol = socket.alpnProtocol;
        socket.end();
        resolve(protocol);
      },
    );
    socket.on('error', reject);
  });
}

/** The SHA-256 fingerprint of the certificate a fresh TLS handshake is served. */
export function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const fingerprint = socket.getPeerX509Certificate()?.fingerprint256 ?? '';
      socket.end();
      resolve(fingerprint);
    });
    socket.on('error', reject);
  });
}

/** Polls `condition` until it holds; fails after `attempts` (a bound against hangs, not a timing claim). */
export async function eventually(condition: () => Promise<boolean> | boolean, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition never held');
}

export function admissionReview(overrides: Record<string, unknown> = {}, apiVersion = 'admission.k8s.io/v1') {
  return {
    apiVersion,
    kind: 'AdmissionReview',
    request: {
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      kind: { group: 'konflux-ci.dev', version: 'v1alpha1', kind: 'NudgeConfig' },
      resource: { group: 'konflux-ci.dev', version: 'v1alpha1', resource: 'nudgeconfigs' },
      name: 'nudge-config',
      namespace: 'tenant-a',
      operation: 'CREATE',
      userInfo: {
        username: 'alice',
        groups: ['system:authenticated'],
        extra: { 'scopes.example.com': ['sekrit-scope'] },
      },
      object: {
        apiVersion: 'konflux-ci.dev/v1alpha1',
        kind: 'NudgeConfig',
        metadata: { name: 'nudge-config', namespace: 'tenant-a' },
        spec: { nudges: [{ from: 'base-image', to: 'app' }] },
      },
      dryRun: false,
      ...overrides,
    },
  };
}
