// Plain-HTTP probe and metrics endpoint: /healthz (liveness), /readyz (readiness), /metrics.
// Output follows the Kubernetes convention (`[+]name ok` / `[-]name failed: reason`) so the lines
// read the same as the API server's own probes in `kubectl describe pod` events.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { MetricsAccess, MetricsAuthorizer } from './metrics-auth.ts';

/** `true` when healthy, otherwise the reason it is not. */
export type CheckResult = true | string;
export type Check = () => CheckResult | Promise<CheckResult>;

export interface HealthServerOptions {
  readonly port: number;
  /** Default 0.0.0.0: the kubelet probes the pod IP. */
  readonly host?: string;
  readonly registry: Registry;
  /**
   * Who may read /metrics (TokenReview + SubjectAccessReview in the manager); undefined serves it
   * to anyone. /healthz and /readyz stay open: the kubelet probes them without a token.
   */
  readonly metricsAuthorizer?: MetricsAuthorizer;
}

export class DuplicateCheckError extends Error {
  readonly check: string;
  constructor(kind: string, check: string) {
    super(`${kind} check ${JSON.stringify(check)} is already registered`);
    this.name = 'DuplicateCheckError';
    this.check = check;
  }
}

interface Outcome {
  readonly name: string;
  readonly result: CheckResult;
}

export class HealthServer {
  readonly #options: HealthServerOptions;
  // Liveness must not depend on anything outside the process, or a slow API server would get
  // every replica restarted at once: the only default check is that the event loop answers.
  readonly #healthChecks = new Map<string, Check>([['ping', () => true]]);
  readonly #readinessChecks = new Map<string, Check>();
  #server: Server | undefined;

  constructor(options: HealthServerOptions) {
    this.#options = options;
  }

  addHealthCheck(name: string, check: Check): void {
    addCheck(this.#healthChecks, 'health', name, check);
  }

  addReadinessCheck(name: string, check: Check): void {
    addCheck(this.#readinessChecks, 'readiness', name, check);
  }

  async start(): Promise<{ port: number }> {
    const server = createServer((request, response) => {
      this.#route(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('internal error\n');
      });
    });
    // Probes and scrapes are tiny: a client that dawdles over its headers is not a probe.
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    this.#server = server;
    return { port: await listenOn(server, this.#options.port, this.#options.host ?? '0.0.0.0') };
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    await closeNow(server);
  }

  async #route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://probe');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
      return;
    }
    switch (url.pathname) {
      case '/healthz':
      case '/livez':
        await this.#probe(response, 'healthz', this.#healthChecks, url.searchParams.has('verbose'));
        return;
      case '/readyz':
        await this.#probe(response, 'readyz', this.#readinessChecks, url.searchParams.has('verbose'));
        return;
      case '/metrics': {
        const authorizer = this.#options.metricsAuthorizer;
        const access = authorizer === undefined ? 'allowed' : await authorizer.authorize(request.headers.authorization);
        if (access !== 'allowed') {
          const [status, text, headers] = REFUSALS[access];
          send(response, status, text, headers);
          return;
        }
        const body = await this.#options.registry.metrics();
        send(response, 200, body, { 'content-type': this.#options.registry.contentType });
        return;
      }
      default:
        send(response, 404, 'not found\n');
    }
  }

  async #probe(response: ServerResponse, endpoint: string, checks: Map<string, Check>, verbose: boolean) {
    const outcomes = await Promise.all([...checks].map(([name, check]) => runCheck(name, check)));
    const failed = outcomes.some((outcome) => outcome.result !== true);
    if (!failed && !verbose) {
      send(response, 200, 'ok\n');
      return;
    }
    const lines = outcomes.map(({ name, result }) =>
      result === true ? `[+]${name} ok` : `[-]${name} failed: ${oneLine(result)}`,
    );
    lines.push(`${endpoint} check ${failed ? 'failed' : 'passed'}`);
    send(response, failed ? 503 : 200, `${lines.join('\n')}\n`);
  }
}

const REFUSALS: Readonly<Record<Exclude<MetricsAccess, 'allowed'>, [number, string, Record<string, string>]>> = {
  unauthenticated: [401, 'Unauthorized\n', { 'www-authenticate': 'Bearer realm="nudger-metrics"' }],
  forbidden: [403, 'Forbidden: this identity may not get /metrics\n', {}],
  unavailable: [503, 'cannot review the credentials now\n', { 'retry-after': '5' }],
};

/** Listens on `port` (0: any free one) and `host`; resolves with the port, rejects on a listen error. */
export async function listenOn(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Stops listening and closes every connection at once, open streams too. */
export async function closeNow(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  server.closeAllConnections();
  await closed;
}

function addCheck(checks: Map<string, Check>, kind: string, name: string, check: Check): void {
  if (checks.has(name)) throw new DuplicateCheckError(kind, name);
  checks.set(name, check);
}

async function runCheck(name: string, check: Check): Promise<Outcome> {
  try {
    const result = await check();
    return { name, result: result === true ? true : result };
  } catch (error) {
    return { name, result: `check threw: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim() || 'no reason given';
}

function send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
