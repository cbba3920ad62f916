// The admission webhook server: bare node:https (HTTP/1.1 only; HTTP/2 is off because of the
// Rapid Reset attacks), one handler per path in controller-runtime's `/validate-<group>-<version>-
// <kind>` convention, certificates hot-reloaded from a directory.
//
// What the API server sees:
// - a decision: HTTP 200 with an AdmissionReview in the request's own version;
// - a handler that throws: HTTP 500 with a metav1.Status body and a generic message naming the
//   request uid (details go to the log only);
// - a handler that overruns `handlerTimeoutMs`: HTTP 504 with a metav1.Status body. Both are
//   webhook *call* failures, so the webhook configuration's failurePolicy decides: `Fail` (what the
//   validating webhooks use) rejects the request, `Ignore` (the mutating one) admits it unchanged.
//   An allowed:false answer would instead reject even where the configuration says to fail open;
// - a request that is not an AdmissionReview this server can answer: HTTP 4xx with a metav1.Status
//   body whose message is one line (client-go shows Status messages in its errors).
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { SecureContextOptions } from 'node:tls';
import { Registry, type Counter, type Gauge, type Histogram } from 'prom-client';
import { createLogger, type Logger } from '../runtime/logger.ts';
import { LATENCY_BUCKETS_SECONDS, counter, gauge, histogram } from '../runtime/metrics.ts';
import {
  AdmissionReviewError,
  admissionResponse,
  readAdmissionReview,
  type AdmissionDecision,
  type AdmissionHandler,
  type AdmissionRequest,
  type AdmissionReview,
} from './admission.ts';
import { CertWatcher, type CertificatePair } from './cert-watcher.ts';
import { DEFAULT_INFLIGHT_BYTES, InflightBudget } from './inflight-budget.ts';

export interface WebhookServerOptions {
  /** Default 0.0.0.0. */
  host?: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Holds tls.crt and tls.key; reloaded when they change. */
  certDir: string;
  /** Path to handler, e.g. `/validate-konflux-ci-dev-v1alpha1-nudgeconfig`. */
  handlers: ReadonlyMap<string, AdmissionHandler>;
  /** Default 7 MiB, like controller-runtime; larger bodies get 413 unread. */
  maxBodyBytes?: number;
  /** Default 9 s: under the API server's default 10 s webhook timeout. */
  handlerTimeoutMs?: number;
  /**
   * Body bytes held at once by all requests together (see inflight-budget.ts); past it a request
   * gets 429 unread. Default: DEFAULT_INFLIGHT_BYTES, at least `maxBodyBytes`.
   */
  maxInflightBytes?: number;
  registry?: Registry;
  logger?: Logger;
}

export const DEFAULT_MAX_BODY_BYTES = 7 * 1024 * 1024;
export const DEFAULT_HANDLER_TIMEOUT_MS = 9_000;

// Slow-client limits. The API server sends a whole request at once; anything slower is a fault or
// an attack. Idle keep-alive connections are kept longer than Go's 90 s client idle timeout, so
// the client, not the server, closes them: a POST on a connection the server just closed fails.
const HANDSHAKE_TIMEOUT_MS = 10_000;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 120_000;
const DEFAULT_STOP_GRACE_MS = 10_000;
/** What a request refused for want of budget is told to wait; the API server retries on its own. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** What one request came to; the server logs and counts it, the benchmark times it. */
export type AdmissionOutcome =
  | { kind: 'decided'; status: 200; body: string; review: AdmissionReview; decision: AdmissionDecision }
  | { kind: 'handler-error'; status: 500; body: string; review: AdmissionReview; error: unknown }
  | { kind: 'timeout'; status: 504; body: string; review: AdmissionReview }
  | { kind: 'bad-request'; status: 400; body: string; problem: string };

export interface AnswerOptions {
  readonly timeoutMs: number;
  /** Aborted by the caller when the client goes away; the timeout aborts it too. */
  readonly controller?: AbortController;
}

/**
 * Body bytes in, response body out: decoding, schema check, handler (with its timeout) and
 * response building, with no I/O. The server runs every request through this.
 */
export async function answerAdmission(
  handler: AdmissionHandler,
  bytes: Buffer,
  { timeoutMs, controller = new AbortController() }: AnswerOptions,
): Promise<AdmissionOutcome> {
  let review: AdmissionReview;
  try {
    review = readAdmissionReview(decodeJson(bytes));
  } catch (error) {
    const problem = error instanceof AdmissionReviewError ? error.message : 'request body is not an AdmissionReview';
    return { kind: 'bad-request', status: 400, body: statusBody(400, 'BadRequest', problem), problem };
  }
  const { apiVersion, request } = review;
  try {
    let decision = handler(request, controller.signal);
    if (isPromiseLike(decision)) {
      const settled = await withTimeout(decision, timeoutMs);
      if (settled === TIMED_OUT) {
        controller.abort(new HandlerTimeoutError(timeoutMs));
        const message = `admission webhook handler did not answer within ${String(timeoutMs)} ms`;
        return { kind: 'timeout', status: 504, body: statusBody(504, 'Timeout', message), review };
      }
      decision = settled;
    }
    const body = JSON.stringify(admissionResponse(apiVersion, request.uid, decision));
    return { kind: 'decided', status: 200, body, review, decision };
  } catch (error) {
    // A call failure, not a decision: the API server then applies the webhook's failurePolicy, so a
    // validating webhook (Fail) still refuses while a mutating one (Ignore) never blocks a build
    // because of a nudger fault (docs/decisions.md D2). An allowed:false answer would bypass that policy.
    const message = `internal error in the admission webhook; the webhook log has the details under request uid ${request.uid}`;
    return { kind: 'handler-error', status: 500, body: statusBody(500, 'InternalError', message), review, error };
  }
}

export class HandlerTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`admission handler timed out after ${String(timeoutMs)} ms`);
    this.name = 'HandlerTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

function decodeJson(bytes: Buffer): unknown {
  // toString() would quietly replace invalid bytes, and the handler would judge a different object.
  if (!isUtf8(bytes)) throw new AdmissionReviewError('(body)', 'is not valid UTF-8');
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    // V8's message quotes the input; the reason stays generic so nothing of the body is echoed.
    throw new AdmissionReviewError('(body)', 'is not valid JSON');
  }
}

const TIMED_OUT = Symbol('timed out');

async function withTimeout<T>(promise: PromiseLike<T>, timeoutMs: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, TIMED_OUT);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** A metav1.Status body, which client-go (and so the API server's error message) understands. */
function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

type BodyRead = { kind: 'body'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'over-budget' } | { kind: 'aborted' };

/** `reserve` is asked for each chunk's bytes (a body without Content-Length); false stops reading. */
function readBody(request: IncomingMessage, maxBytes: number, reserve?: (bytes: number) => boolean): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyRead): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onAbort);
      request.off('close', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        request.pause();
        finish({ kind: 'too-large' });
        return;
      }
      if (reserve !== undefined && !reserve(chunk.length)) {
        request.pause();
        finish({ kind: 'over-budget' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      finish({ kind: 'body', bytes: chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size) });
    };
    const onAbort = (): void => {
      finish({ kind: 'aborted' });
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onAbort);
    request.on('close', onAbort);
  });
}

function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(';');
  const mediaType = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return mediaType === 'application/json';
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  // The API server appends `?timeout=10s` to every webhook call.
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Log fields naming a request; never its object, old object or userInfo. */
function requestFields(request: AdmissionRequest): Record<string, unknown> {
  const { group, version, kind } = request.kind;
  return {
    uid: clip(request.uid),
    kind: clip(group === '' ? `${version}/${kind}` : `${group}/${version}/${kind}`),
    namespace: request.namespace === undefined ? undefined : clip(request.namespace),
    name: request.name === undefined ? undefined : clip(request.name),
    operation: request.operation,
    dryRun: request.dryRun,
  };
}

// Request strings are the client's; a huge one must not become a huge log line.
function clip(text: string): string {
  return text.length <= 256 ? text : `${text.slice(0, 256)}…`;
}

interface WebhookMetrics {
  readonly latency: Histogram.Internal<'webhook'>;
  readonly inFlight: Gauge.Internal<'webhook'>;
  requests(code: number): Counter.Internal;
}

export class WebhookServer {
  readonly #options: WebhookServerOptions;
  readonly #logger: Logger;
  readonly #maxBodyBytes: number;
  readonly #handlerTimeoutMs: number;
  readonly #budget: InflightBudget;
  readonly #inflightBytes: Gauge;
  readonly #certs: CertWatcher;
  readonly #metrics = new Map<string, WebhookMetrics>();
  #server: Server | undefined;
  #ready = false;
  #stopping = false;

  constructor(options: WebhookServerOptions) {
    this.#options = options;
    this.#logger = options.logger ?? createLogger({ level: 'info' });
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#handlerTimeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
    // Never below one largest request, or a request of the maximum size could never be served.
    this.#budget = new InflightBudget(Math.max(options.maxInflightBytes ?? DEFAULT_INFLIGHT_BYTES, this.#maxBodyBytes));
    const registry = options.registry ?? new Registry();
    this.#inflightBytes = gauge(registry, {
      name: 'nudger_webhook_inflight_body_bytes',
      help: 'Request body bytes held by the admission webhook server, all requests together.',
    });
    gauge(registry, {
      name: 'nudger_webhook_inflight_body_bytes_limit',
      help: 'The most request body bytes the admission webhook server holds at once; past it requests get 429.',
    }).set(this.#budget.limit);
    const requests = counter(registry, {
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
    });
    const latency = histogram(registry, {
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      buckets: LATENCY_BUCKETS_SECONDS,
    });
    const inFlight = gauge(registry, {
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
    });
    // Children bound once per path: prom-client otherwise hashes the label set on every call.
    for (const webhook of options.handlers.keys()) {
      const byCode = new Map<number, Counter.Internal>();
      this.#metrics.set(webhook, {
        latency: latency.labels({ webhook }),
        inFlight: inFlight.labels({ webhook }),
        requests: (code) => {
          let child = byCode.get(code);
          if (child === undefined) {
            child = requests.labels({ webhook, code: String(code) });
            byCode.set(code, child);
          }
          return child;
        },
      });
    }
    this.#certs = new CertWatcher({
      dir: options.certDir,
      logger: this.#logger,
      registry,
      onChange: (pair) => {
        this.#server?.setSecureContext(tlsOptions(pair));
      },
    });
  }

  /** True from listening until stop() begins: the readiness check for the webhook. */
  get ready(): boolean {
    return this.#ready;
  }

  async start(): Promise<{ port: number }> {
    if (this.#server !== undefined) throw new Error('webhook server already started');
    const pair = await this.#certs.start();
    const server = createServer(
      { ...tlsOptions(pair), ALPNProtocols: ['http/1.1'], handshakeTimeout: HANDSHAKE_TIMEOUT_MS },
      (request, response) => {
        this.#serve(request, response);
      },
    );
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.on('tlsClientError', (error) => {
      this.#logger.debug({ err: error }, 'TLS handshake failed');
    });
    this.#server = server;
    this.#stopping = false;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.#options.port, this.#options.host ?? '0.0.0.0', () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      this.#certs.stop();
      this.#server = undefined;
      throw error;
    }
    this.#ready = true;
    const { port } = server.address() as AddressInfo;
    this.#logger.info(
      { port, paths: [...this.#options.handlers.keys()], fingerprint256: pair.fingerprint256 },
      'webhook server listening',
    );
    return { port };
  }

  /** Stops accepting connections, lets in-flight requests finish for up to `graceMs`, then closes. */
  async stop(graceMs = DEFAULT_STOP_GRACE_MS): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#ready = false;
    this.#stopping = true;
    this.#certs.stop();
    const closed = new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    server.closeIdleConnections();
    const deadline = setTimeout(() => {
      server.closeAllConnections();
    }, graceMs);
    try {
      await closed;
    } finally {
      clearTimeout(deadline);
      this.#server = undefined;
    }
  }

  #serve(request: IncomingMessage, response: ServerResponse): void {
    const path = pathOf(request.url);
    const handler = this.#options.handlers.get(path);
    // Unknown paths are not counted: their label values would be chosen by whoever sends them.
    if (handler === undefined) {
      this.#sendStatus(response, 404, 'NotFound', 'no admission webhook is served at this path');
      return;
    }
    const metrics = this.#metrics.get(path);
    const started = performance.now();
    metrics?.inFlight.inc();
    const controller = new AbortController();
    // Reserved for the whole life of the request (body, parsed object, handler, answer); given
    // back once the response is done or the connection is gone, whichever way it ends.
    let reserved = 0;
    response.once('finish', () => {
      metrics?.requests(response.statusCode).inc();
      metrics?.latency.observe((performance.now() - started) / 1000);
    });
    // One listener for everything the end of a request gives back (docs/decisions.md N49).
    response.once('close', () => {
      metrics?.inFlight.dec();
      if (!response.writableFinished) controller.abort(new Error('client closed the connection'));
      if (reserved > 0) {
        this.#budget.release(reserved);
        this.#inflightBytes.dec(reserved);
        reserved = 0;
      }
    });

    if (request.method !== 'POST') {
      this.#sendStatus(response, 405, 'MethodNotAllowed', 'only POST is allowed', { allow: 'POST' });
      return;
    }
    if (!isJsonContentType(request.headers['content-type'])) {
      this.#sendStatus(response, 415, 'UnsupportedMediaType', 'Content-Type must be application/json');
      return;
    }
    const header = request.headers['content-length'];
    const declared = header === undefined ? undefined : Number(header);
    if (declared !== undefined && declared > this.#maxBodyBytes) {
      this.#tooLarge(response);
      return;
    }
    const reserve = (bytes: number): boolean => {
      if (!this.#budget.tryReserve(bytes)) return false;
      reserved += bytes;
      this.#inflightBytes.inc(bytes);
      return true;
    };
    if (declared !== undefined && !reserve(declared)) {
      this.#busy(response);
      return;
    }
    readBody(request, this.#maxBodyBytes, declared === undefined ? reserve : undefined)
      .then(async (read) => {
        if (read.kind === 'aborted') return;
        if (read.kind === 'too-large') {
          this.#tooLarge(response);
          return;
        }
        if (read.kind === 'over-budget') {
          this.#busy(response);
          return;
        }
        const outcome = await answerAdmission(handler, read.bytes, { timeoutMs: this.#handlerTimeoutMs, controller });
        this.#send(response, outcome.status, outcome.body);
        this.#log(path, outcome);
      })
      .catch((error: unknown) => {
        // Only a fault of the server itself gets here (answerAdmission catches handler errors); an
        // unhandled rejection would end the process, so answer and carry on.
        this.#sendStatus(response, 500, 'InternalError', 'internal error in the admission webhook server');
        try {
          this.#logger.error({ err: error, webhook: path }, 'webhook server fault');
        } catch {
          // Nothing left to report to.
        }
      });
  }

  #tooLarge(response: ServerResponse): void {
    // Closing the connection is what lets the server skip the rest of the body.
    this.#sendStatus(
      response,
      413,
      'RequestEntityTooLarge',
      `request body exceeds ${String(this.#maxBodyBytes)} bytes`,
      { connection: 'close' },
    );
  }

  #busy(response: ServerResponse): void {
    // Answered before the body is read: holding it would cost the memory the budget protects, so
    // the connection closes. Any non-200 answer is a webhook call failure for the API server, so
    // the registration's failurePolicy decides, as for a timeout.
    this.#sendStatus(
      response,
      429,
      'TooManyRequests',
      `the admission webhook is holding its most request bytes at once (${String(this.#budget.limit)}); retry`,
      { connection: 'close', 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) },
    );
  }

  #log(webhook: string, outcome: AdmissionOutcome): void {
    switch (outcome.kind) {
      case 'bad-request':
        this.#logger.warn({ webhook, code: 400, problem: outcome.problem }, 'malformed admission request');
        return;
      case 'timeout':
        this.#logger.error(
          { webhook, code: 504, timeoutMs: this.#handlerTimeoutMs, ...requestFields(outcome.review.request) },
          'admission handler timed out',
        );
        return;
      case 'handler-error':
        this.#logger.error(
          { webhook, code: 500, err: outcome.error, ...requestFields(outcome.review.request) },
          'admission handler failed',
        );
        return;
      case 'decided': {
        const { decision } = outcome;
        if (decision.allowed) {
          // The common case: build no log fields unless they will be written.
          if (!this.#logger.isLevelEnabled('debug')) return;
          const fields = { webhook, ...requestFields(outcome.review.request) };
          this.#logger.debug({ ...fields, patched: (decision.patch?.length ?? 0) > 0 }, 'admission request allowed');
          return;
        }
        this.#logger.info(
          {
            webhook,
            ...requestFields(outcome.review.request),
            code: decision.code ?? 403,
            reason: decision.reason,
            message: decision.message,
          },
          'admission request denied',
        );
        return;
      }
    }
  }

  #sendStatus(
    response: ServerResponse,
    code: number,
    reason: string,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    this.#send(response, code, statusBody(code, reason, message), headers);
  }

  #send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
    if (response.destroyed || response.headersSent) return;
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      // While stopping, each connection closes after its in-flight response.
      ...(this.#stopping ? { connection: 'close' } : {}),
      ...headers,
    });
    response.end(body);
  }
}

function tlsOptions(pair: CertificatePair): SecureContextOptions {
  return { cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2' };
}
