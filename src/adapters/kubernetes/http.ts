// Raw JSON requests to the API server on node:http(s), authenticated from a client-node
// KubeConfig (CA, client certificate, bearer token, exec and OIDC plugins, proxy). The runtime uses
// this rather than client-node's generated clients so that it can talk to any resource (including
// `/status`), stream watches with its own timeouts, and see `metav1.Status` bodies for every failure.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { errorFromResponse, errorFromTransport, type RequestTarget } from './errors.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface KubeRequest {
  readonly method: HttpMethod;
  /** Starts with `/api` or `/apis`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  /** Defaults to `application/json` when there is a body. */
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  /** Client-side limit on the whole request; defaults to the client's `requestTimeoutMs`. */
  readonly timeoutMs?: number;
}

export interface KubeHttpOptions {
  readonly userAgent?: string;
  /** Default per-request timeout for non-streaming requests. */
  readonly requestTimeoutMs?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** A streamed response: NDJSON lines until the server ends it, an error, or `close()`. */
export interface LineStream {
  readonly lines: AsyncIterable<string>;
  close(): void;
}

export class KubeHttp {
  readonly #kubeConfig: KubeConfig;
  readonly #userAgent: string;
  readonly #requestTimeoutMs: number;
  #agent: HttpAgent | undefined;

  constructor(kubeConfig: KubeConfig, options: KubeHttpOptions = {}) {
    this.#kubeConfig = kubeConfig;
    this.#userAgent = options.userAgent ?? 'nudger';
    this.#requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** Sends one request and parses the JSON response; any non-2xx status becomes a `KubeApiError`. */
  async json<R>(request: KubeRequest, target: RequestTarget): Promise<R> {
    const response = await this.#send(request, target, request.timeoutMs ?? this.#requestTimeoutMs);
    const text = await readBody(response, target);
    const body = parseJson(text);
    if (!isSuccess(response.statusCode)) throw failure(target, response, body);
    return body as R;
  }

  /**
   * Opens a streaming GET (a watch). Resolves once the response headers arrive with 2xx; the lines
   * then flow until the server ends the response. No overall timeout applies: the caller bounds the
   * stream with `timeoutSeconds` and its own idle watchdog.
   */
  async stream(request: KubeRequest, target: RequestTarget): Promise<LineStream> {
    const response = await this.#send(request, target, undefined);
    if (!isSuccess(response.statusCode)) {
      const text = await readBody(response, target).catch(() => '');
      throw failure(target, response, parseJson(text));
    }
    return {
      lines: splitLines(response, target),
      close: () => {
        response.destroy();
      },
    };
  }

  async #send(request: KubeRequest, target: RequestTarget, timeoutMs: number | undefined): Promise<IncomingMessage> {
    const cluster = this.#kubeConfig.getCurrentCluster();
    if (cluster === null) throw errorFromTransport(target, new Error('the kubeconfig has no current cluster'));
    const url = new URL(cluster.server.replace(/\/+$/, '') + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const options: RequestOptions = { headers: {} };
    await this.#kubeConfig.applyToHTTPSOptions(options);
    const headers: Record<string, string> = {
      ...stringHeaders(options.headers),
      accept: 'application/json',
      'user-agent': this.#userAgent,
    };
    let payload: Buffer | undefined;
    if (request.body !== undefined) {
      payload = Buffer.from(JSON.stringify(request.body));
      headers['content-type'] = request.contentType ?? 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const agent = cluster.proxyUrl === undefined ? this.#keepAliveAgent(url, options) : options.agent;
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(url, {
        method: request.method,
        headers,
        agent,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(options.auth === undefined ? {} : { auth: options.auth }),
      });
      let timer: NodeJS.Timeout | undefined;
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          req.destroy(Object.assign(new Error(`no response within ${String(timeoutMs)} ms`), { name: 'TimeoutError' }));
        }, timeoutMs);
        timer.unref();
      }
      req.on('response', (response) => {
        // For JSON requests the timeout keeps running until the body has been read.
        response.on('close', () => {
          if (timer !== undefined) clearTimeout(timer);
        });
        resolve(response);
      });
      req.on('error', (error) => {
        if (timer !== undefined) clearTimeout(timer);
        reject(errorFromTransport(target, error));
      });
      req.end(payload);
    });
  }

  /**
   * client-node's cached agent has keep-alive off, which costs a TLS handshake per request; the
   * runtime makes many small requests, so it keeps its own pooled agent with the same TLS material.
   * TCP keep-alive probes also surface half-dead watch connections.
   */
  #keepAliveAgent(url: URL, options: RequestOptions): HttpAgent {
    if (this.#agent !== undefined) return this.#agent;
    const common = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: 64 };
    this.#agent =
      url.protocol === 'http:'
        ? new HttpAgent(common)
        : new HttpsAgent({
            ...common,
            ...(options.ca === undefined ? {} : { ca: options.ca }),
            ...(options.cert === undefined ? {} : { cert: options.cert }),
            ...(options.key === undefined ? {} : { key: options.key }),
            ...(options.pfx === undefined ? {} : { pfx: options.pfx }),
            ...(options.passphrase === undefined ? {} : { passphrase: options.passphrase }),
            ...(options.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: options.rejectUnauthorized }),
            ...(options.servername === undefined ? {} : { servername: options.servername }),
          });
    return this.#agent;
  }

  /** Closes pooled connections; in-flight streams end with an error. */
  close(): void {
    this.#agent?.destroy();
    this.#agent = undefined;
  }
}

function isSuccess(statusCode: number | undefined): boolean {
  return statusCode !== undefined && statusCode >= 200 && statusCode < 300;
}

function failure(target: RequestTarget, response: IncomingMessage, body: unknown) {
  const retryAfter = response.headers['retry-after'];
  return errorFromResponse(
    target,
    response.statusCode ?? 0,
    body,
    typeof retryAfter === 'string' ? retryAfter : undefined,
  );
}

function stringHeaders(headers: RequestOptions['headers']): Record<string, string> {
  const result: Record<string, string> = {};
  if (headers === undefined || Array.isArray(headers)) return result;
  for (const [key, value] of Object.entries(headers)) {
    if (typeof value === 'string') result[key.toLowerCase()] = value;
    else if (typeof value === 'number') result[key.toLowerCase()] = String(value);
  }
  return result;
}

async function readBody(response: IncomingMessage, target: RequestTarget): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response) chunks.push(chunk as Buffer);
  } catch (error) {
    throw errorFromTransport(target, error);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function* splitLines(response: IncomingMessage, target: RequestTarget): AsyncGenerator<string> {
  let pending = '';
  response.setEncoding('utf8');
  try {
    for await (const chunk of response) {
      pending += chunk as string;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line.trim() !== '') yield line;
        newline = pending.indexOf('\n');
      }
    }
  } catch (error) {
    throw errorFromTransport(target, error);
  }
  if (pending.trim() !== '') yield pending;
}
