import assert from 'node:assert/strict';
import { Agent, request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { createLogger } from '../../src/runtime/logger.ts';
import type { AdmissionHandler, AdmissionRequest } from '../../src/webhooks/admission.ts';
import { WebhookServer } from '../../src/webhooks/server.ts';
import { admissionReview, eventually, negotiatedProtocol, reviewOf, send, servedFingerprint } from './client.ts';
import {
  certDirWith,
  removeDir,
  selfSignedCertificate,
  writeSecretVolume,
  type TestCertificate,
} from './tls-fixture.ts';

function memoryLog() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: {
      write(line: string) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  });
  return { lines, logger };
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const body = (value: unknown) => JSON.stringify(value);

describe('WebhookServer', () => {
  let certificate: TestCertificate;
  let certDir: string;
  let server: WebhookServer;
  let port: number;
  const registry = new Registry();
  const log = memoryLog();
  let timedOutSignal: AbortSignal | undefined;
  const seen: AdmissionRequest[] = [];

  const handlers = new Map<string, AdmissionHandler>([
    [
      '/validate-allow',
      (request) => {
        seen.push(request);
        return { allowed: true, warnings: ['spec.nudges[0]: mode defaults to immediate', 'line\nbreak'] };
      },
    ],
    [
      '/validate-deny',
      () => ({ allowed: false, reason: 'Invalid', code: 422, message: 'spec.nudges: cycle a -> b -> a' }),
    ],
    ['/validate-deny-default', () => ({ allowed: false, message: 'no' })],
    [
      '/mutate-patch',
      () =>
        Promise.resolve({
          allowed: true as const,
          patch: [
            { op: 'add' as const, path: '/metadata/labels', value: { 'nudger.konflux-ci.dev/x': 'y' } },
            { op: 'remove' as const, path: '/spec/status' },
          ],
        }),
    ],
    [
      '/validate-throw',
      () => {
        throw new Error('boom: password=hunter2 at object.spec');
      },
    ],
    ['/validate-reject', () => Promise.reject(new TypeError('cannot read properties of undefined'))],
    [
      '/validate-hang',
      (_request, signal) =>
        new Promise((_resolve) => {
          timedOutSignal = signal;
        }),
    ],
  ]);

  before(async () => {
    certificate = await selfSignedCertificate();
    certDir = await certDirWith(certificate);
    server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      certDir,
      handlers,
      maxBodyBytes: 64 * 1024,
      handlerTimeoutMs: 100,
      registry,
      logger: log.logger,
    });
    assert.equal(server.ready, false);
    ({ port } = await server.start());
  });

  after(async () => {
    await server.stop();
    await removeDir(certDir);
  });

  it('is ready while listening and serves its certificate', async () => {
    assert.equal(server.ready, true);
    assert.equal(await servedFingerprint(port), certificate.fingerprint256);
  });

  it('speaks HTTP/1.1 only, even to a client that prefers HTTP/2', async () => {
    assert.equal(await negotiatedProtocol(port), 'http/1.1');
  });

  it('answers an allowed request with the uid and the warnings, in v1', async () => {
    const reply = await send(port, '/validate-allow?timeout=10s', body(admissionReview()));
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /^application\/json/);
    assert.deepEqual(reviewOf(reply), {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
        allowed: true,
        warnings: ['spec.nudges[0]: mode defaults to immediate', 'line break'],
      },
    });
    const request = seen.at(-1)!;
    assert.equal(request.namespace, 'tenant-a');
    assert.deepEqual((request.object as { spec: unknown }).spec, { nudges: [{ from: 'base-image', to: 'app' }] });
  });

  it('answers v1beta1 in v1beta1', async () => {
    const reply = await send(port, '/validate-allow', body(admissionReview({}, 'admission.k8s.io/v1beta1')));
    assert.equal(reply.status, 200);
    assert.equal(reviewOf(reply).apiVersion, 'admission.k8s.io/v1beta1');
  });

  it('answers a denial with its code, reason and message', async () => {
    const reply = await send(port, '/validate-deny', body(admissionReview()));
    assert.equal(reply.status, 200);
    assert.deepEqual(reviewOf(reply).response, {
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      allowed: false,
      status: { code: 422, reason: 'Invalid', message: 'spec.nudges: cycle a -> b -> a' },
    });
    const defaulted = reviewOf(await send(port, '/validate-deny-default', body(admissionReview())));
    assert.deepEqual(defaulted.response.status, { code: 403, reason: 'Forbidden', message: 'no' });
  });

  it('encodes a patch as base64 JSONPatch', async () => {
    const reply = reviewOf(await send(port, '/mutate-patch', body(admissionReview())));
    assert.equal(reply.response.allowed, true);
    assert.equal(reply.response.patchType, 'JSONPatch');
    assert.deepEqual(JSON.parse(Buffer.from(reply.response.patch ?? '', 'base64').toString('utf8')), [
      { op: 'add', path: '/metadata/labels', value: { 'nudger.konflux-ci.dev/x': 'y' } },
      { op: 'remove', path: '/spec/status' },
    ]);
  });

  it('turns a handler exception into an HTTP 500 call failure (failurePolicy decides) that leaks nothing', async () => {
    for (const path of ['/validate-throw', '/validate-reject']) {
      const reply = await send(port, path, body(admissionReview()));
      assert.equal(reply.status, 500);
      const status = JSON.parse(reply.text) as { kind: string; code: number; reason: string; message: string };
      assert.deepEqual([status.kind, status.code, status.reason], ['Status', 500, 'InternalError']);
      assert.match(status.message, /705ab4f5-6393-11e8-b7cc-42010a800002/);
      assert.doesNotMatch(reply.text, /boom|hunter2|cannot read|at \w|\.ts/);
    }
    const line = log.lines.find((entry) => entry.msg === 'admission handler failed');
    assert.ok(line);
    assert.equal(line.code, 500);
    assert.equal(line.uid, '705ab4f5-6393-11e8-b7cc-42010a800002');
  });

  it('answers 504 when the handler overruns its timeout, and aborts its signal', async () => {
    const reply = await send(port, '/validate-hang', body(admissionReview()));
    assert.equal(reply.status, 504);
    const status = JSON.parse(reply.text) as { kind: string; code: number; reason: string };
    assert.deepEqual([status.kind, status.code, status.reason], ['Status', 504, 'Timeout']);
    assert.equal(timedOutSignal?.aborted, true);
  });

  it('refuses unknown paths, other methods and other content types', async () => {
    const notFound = await send(port, '/validate-nothing', body(admissionReview()));
    assert.equal(notFound.status, 404);
    const get = await send(port, '/validate-allow', '', { method: 'GET' });
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    const text = await send(port, '/validate-allow', body(admissionReview()), {
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.status, 415);
    const withCharset = await send(port, '/validate-allow', body(admissionReview()), {
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    });
    assert.equal(withCharset.status, 200);
  });

  it('refuses a body over the cap with 413, declared or streamed', async () => {
    const big = Buffer.alloc(128 * 1024, 0x20);
    const declared = await send(port, '/validate-allow', big).catch((error: unknown) => error as Error);
    // The server answers before reading the body and closes: the client sees 413 or, having not
    // finished writing, a reset. Either way it is never a 200.
    if (!(declared instanceof Error)) assert.equal(declared.status, 413);
    const streamed = await send(port, '/validate-allow', big, { headers: { 'transfer-encoding': 'chunked' } }).catch(
      (error: unknown) => error as Error,
    );
    if (!(streamed instanceof Error)) {
      assert.equal(streamed.status, 413);
      assert.equal(streamed.headers.connection, 'close');
    }
    assert.ok(!(declared instanceof Error) || !(streamed instanceof Error), 'at least one 413 reached the client');
  });

  it('answers 400 with a one-line reason naming the field', async () => {
    const cases: [string, RegExp][] = [
      ['{"apiVersion":', /^\(body\): is not valid JSON$/],
      ['[1,2]', /^\(body\): must be a JSON object/],
      [body({ ...admissionReview(), apiVersion: 'admission.k8s.io/v2' }), /^apiVersion: must be one of/],
      [body({ ...admissionReview(), kind: 'Pod' }), /^kind: must be AdmissionReview$/],
      [body(admissionReview({ uid: 7 })), /^request\.uid: must be string, found number$/],
      [body(admissionReview({ operation: 'PATCH' })), /^request\.operation: must be one of CREATE, UPDATE/],
      [body(admissionReview({ userInfo: { groups: ['a', 3] } })), /^request\.userInfo\.groups\[1\]: must be string/],
    ];
    for (const [text, reason] of cases) {
      const reply = await send(port, '/validate-allow', text);
      assert.equal(reply.status, 400, text);
      const status = JSON.parse(reply.text) as { message: string; reason: string };
      assert.equal(status.reason, 'BadRequest');
      assert.match(status.message, reason);
      assert.doesNotMatch(status.message, /\n/);
    }
    const invalidUtf8 = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const reply = await send(port, '/validate-allow', invalidUtf8);
    assert.equal(reply.status, 400);
    assert.match(reply.text, /not valid UTF-8/);
  });

  it('logs a denial with the request reference and nothing of the object or userInfo.extra', async () => {
    await send(port, '/validate-deny', body(admissionReview({ uid: 'deny-log-uid' })));
    const line = log.lines.find((entry) => entry.uid === 'deny-log-uid');
    assert.ok(line);
    assert.equal(line.msg, 'admission request denied');
    assert.equal(line.webhook, '/validate-deny');
    assert.equal(line.kind, 'konflux-ci.dev/v1alpha1/NudgeConfig');
    assert.equal(line.namespace, 'tenant-a');
    assert.equal(line.name, 'nudge-config');
    assert.equal(line.operation, 'CREATE');
    assert.equal(line.code, 422);
    // The object (its spec names `base-image`) and userInfo.extra never reach the log.
    assert.doesNotMatch(JSON.stringify(log.lines), /base-image|sekrit-scope/);
  });

  it('keeps a connection alive across requests', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await send(port, '/validate-allow', body(admissionReview()), { agent });
      const second = await send(port, '/validate-allow', body(admissionReview()), { agent });
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.notEqual(first.headers.connection, 'close');
    } finally {
      agent.destroy();
    }
  });

  it('counts requests by webhook and code, and latency by webhook', async () => {
    const text = await registry.metrics();
    assert.match(text, /controller_runtime_webhook_requests_total\{webhook="\/validate-allow",code="200"\} [1-9]/);
    assert.match(text, /controller_runtime_webhook_requests_total\{webhook="\/validate-hang",code="504"\} 1/);
    assert.match(text, /controller_runtime_webhook_requests_total\{webhook="\/validate-allow",code="415"\} 1/);
    assert.match(text, /controller_runtime_webhook_latency_seconds_count\{webhook="\/validate-deny"\} [1-9]/);
    assert.match(text, /controller_runtime_webhook_requests_in_flight\{webhook="\/validate-allow"\} 0/);
    assert.doesNotMatch(text, /webhook="\/validate-nothing"/);
  });
});

describe('WebhookServer certificate reload', () => {
  it('serves a new pair after a Secret-volume swap and keeps the old one when the new pair is invalid', async () => {
    const [first, second, third] = await Promise.all([
      selfSignedCertificate('first'),
      selfSignedCertificate('second'),
      selfSignedCertificate('third'),
    ]);
    const parent = await certDirWith(first);
    const certDir = `${parent}/volume`;
    await writeSecretVolume(certDir, { 'tls.crt': first.cert, 'tls.key': first.key });
    const log = memoryLog();
    const server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      certDir,
      handlers: new Map([['/validate-allow', () => ({ allowed: true as const })]]),
      logger: log.logger,
    });
    const { port } = await server.start();
    try {
      assert.equal(await servedFingerprint(port), first.fingerprint256);

      await writeSecretVolume(certDir, { 'tls.crt': second.cert, 'tls.key': second.key });
      await eventually(async () => (await servedFingerprint(port)) === second.fingerprint256);

      // A certificate with somebody else's key: rejected, logged, and the second pair stays.
      await writeSecretVolume(certDir, { 'tls.crt': third.cert, 'tls.key': first.key });
      await eventually(() =>
        log.lines.some((line) => line.msg === 'new serving certificate rejected; keeping the current one'),
      );
      assert.equal(await servedFingerprint(port), second.fingerprint256);
      const reply = await send(port, '/validate-allow', body(admissionReview()));
      assert.equal(reply.status, 200);
      assert.doesNotMatch(JSON.stringify(log.lines), /PRIVATE KEY/);
    } finally {
      await server.stop();
      await removeDir(parent);
    }
  });

  it('refuses to start without a usable pair', async () => {
    const certificate = await selfSignedCertificate();
    const dir = await certDirWith({ ...certificate, key: 'not a key' });
    const server = new WebhookServer({ port: 0, certDir: dir, handlers: new Map(), logger: memoryLog().logger });
    try {
      await assert.rejects(server.start(), { name: 'CertificateLoadError', message: /tls\.key/ });
      assert.equal(server.ready, false);
    } finally {
      await removeDir(dir);
    }
  });
});

describe('WebhookServer.stop', () => {
  it('stops accepting connections but finishes the request in flight', async () => {
    const certificate = await selfSignedCertificate();
    const certDir = await certDirWith(certificate);
    const entered = deferred();
    const release = deferred();
    const server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      certDir,
      handlers: new Map<string, AdmissionHandler>([
        [
          '/validate-slow',
          async () => {
            entered.resolve();
            await release.promise;
            return { allowed: true };
          },
        ],
      ]),
      logger: memoryLog().logger,
    });
    const { port } = await server.start();
    try {
      const inFlight = send(port, '/validate-slow', body(admissionReview()));
      await entered.promise;
      let stopped = false;
      const stopping = server.stop(30_000).then(() => {
        stopped = true;
      });
      assert.equal(server.ready, false);
      const refused = await new Promise<string>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port }, () => {
          socket.destroy();
          resolve('connected');
        });
        socket.on('error', (error: NodeJS.ErrnoException) => {
          resolve(error.code ?? 'error');
        });
      });
      assert.equal(refused, 'ECONNREFUSED');
      assert.equal(stopped, false);
      release.resolve();
      const reply = await inFlight;
      assert.equal(reply.status, 200);
      assert.equal(reviewOf(reply).response.allowed, true);
      await stopping;
      assert.equal(stopped, true);
    } finally {
      release.resolve();
      await server.stop();
      await removeDir(certDir);
    }
  });
});

/** Sends the headers of a POST declaring `length` body bytes (and `prefix` of the body), not the rest. */
function partialPost(
  port: number,
  path: string,
  headers: Record<string, string>,
  prefix?: Buffer,
): { reply: Promise<{ status: number; retryAfter: string | undefined }>; abort(): void } {
  const req = httpsRequest({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    agent: false,
    rejectUnauthorized: false,
  });
  const reply = new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      const retryAfter = res.headers['retry-after'];
      resolve({ status: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined });
    });
    req.on('error', reject);
  });
  if (prefix === undefined) req.flushHeaders();
  else req.write(prefix);
  return {
    reply,
    abort: () => {
      req.destroy();
    },
  };
}

describe('WebhookServer in-flight byte budget', () => {
  // A review of about 40 KiB: under the 64 KiB cap, and three of them overrun the 96 KiB budget.
  const annotations = Object.fromEntries(
    Array.from({ length: 600 }, (_, i) => [`example.com/note-${String(i)}`, 'x'.repeat(48)]),
  );
  const big = Buffer.from(
    body(
      admissionReview({
        object: {
          apiVersion: 'konflux-ci.dev/v1alpha1',
          kind: 'NudgeConfig',
          metadata: { name: 'nudge-config', namespace: 'tenant-a', annotations },
          spec: { nudges: [{ from: 'base-image', to: 'app' }] },
        },
      }),
    ),
  );

  it('answers 429 with Retry-After past the budget, unread, and serves again once requests finish', async () => {
    assert.ok(big.length > 32 * 1024 && big.length < 48 * 1024, `fixture is ${String(big.length)} bytes`);
    const certDir = await certDirWith(await selfSignedCertificate());
    const registry = new Registry();
    let entered = 0;
    let release = deferred();
    const server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      certDir,
      handlers: new Map<string, AdmissionHandler>([
        [
          '/validate-slow',
          async () => {
            entered += 1;
            await release.promise;
            return { allowed: true };
          },
        ],
      ]),
      maxBodyBytes: 64 * 1024,
      maxInflightBytes: 96 * 1024,
      registry,
      logger: memoryLog().logger,
    });
    const { port } = await server.start();
    const inflight = async () =>
      (await registry.getSingleMetric('nudger_webhook_inflight_body_bytes')?.get())?.values[0]?.value;
    try {
      // Two requests in the handler hold about 80 KiB of the 96 KiB.
      const held = [send(port, '/validate-slow', big), send(port, '/validate-slow', big)];
      await eventually(() => entered === 2);
      assert.equal(await inflight(), 2 * big.length);

      // Declared: refused from the headers alone, before a byte of the body is sent.
      const declared = partialPost(port, '/validate-slow', { 'content-length': String(big.length) });
      assert.deepEqual(await declared.reply, { status: 429, retryAfter: '1' });
      declared.abort();

      // Streamed (no Content-Length): refused once the bytes read overrun the budget.
      const streamed = partialPost(port, '/validate-slow', { 'transfer-encoding': 'chunked' }, big);
      assert.equal((await streamed.reply).status, 429);
      streamed.abort();
      assert.equal(entered, 2, 'no refused request reached the handler');

      // A client that goes away mid-body gives its reservation back.
      release.resolve();
      for (const reply of await Promise.all(held)) assert.equal(reply.status, 200);
      release = deferred();
      const gone = partialPost(port, '/validate-slow', { 'content-length': String(big.length) }, big.subarray(0, 1024));
      await eventually(async () => (await inflight()) === big.length);
      gone.abort();
      gone.reply.catch(() => undefined);
      await eventually(async () => (await inflight()) === 0);

      // Recovered: the budget holds two again.
      release.resolve();
      const again = await Promise.all([send(port, '/validate-slow', big), send(port, '/validate-slow', big)]);
      assert.deepEqual(
        again.map((reply) => reply.status),
        [200, 200],
      );
      await eventually(async () => (await inflight()) === 0);
      const limit = (await registry.getSingleMetric('nudger_webhook_inflight_body_bytes_limit')?.get())?.values[0];
      assert.equal(limit?.value, 96 * 1024);
    } finally {
      release.resolve();
      await server.stop();
      await removeDir(certDir);
    }
  });

  it('never budgets less than one largest request', async () => {
    const certDir = await certDirWith(await selfSignedCertificate());
    const server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      certDir,
      handlers: new Map<string, AdmissionHandler>([['/validate-allow', () => ({ allowed: true })]]),
      maxBodyBytes: 64 * 1024,
      maxInflightBytes: 1024,
      logger: memoryLog().logger,
    });
    const { port } = await server.start();
    try {
      assert.equal((await send(port, '/validate-allow', big)).status, 200);
    } finally {
      await server.stop();
      await removeDir(certDir);
    }
  });
});
