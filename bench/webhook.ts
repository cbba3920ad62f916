// Admission webhook benchmark: nudger's WebhookServer against a bare node:https server answering a
// fixed AdmissionReview, both over HTTPS on loopback at 50 connections (autocannon), plus the
// in-process path (parse, handler, response) without the network.
//
// Each server runs alone in a worker thread while autocannon drives it from the main thread, so
// server and client have an event loop each. Run alone with `node bench/webhook.ts`.
import { nudgeConfigValidator } from '../src/webhooks/nudgeconfig.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, createServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import { createLogger } from '../src/runtime/logger.ts';
import { createRegistry } from '../src/runtime/metrics.ts';
import type { AdmissionHandler } from '../src/webhooks/admission.ts';
import { WebhookServer, answerAdmission } from '../src/webhooks/server.ts';
import { selfSignedCertificate } from '../test/webhooks/tls-fixture.ts';
import { ms, summarizeMs, verdict } from './stats.ts';

const PATH = '/validate-konflux-ci-dev-v1alpha1-nudgeconfig';
const CONNECTIONS = 50;
const WARMUP_SECONDS = 2;
/** Each figure comes from ROUNDS rounds of ROUND_SECONDS, the two servers alternating. */
const ROUNDS = 2;
const ROUND_SECONDS = 5;
/**
 * Latency is read at a paced rate well under saturation. With 50 connections each sending as soon
 * as answered, latency is just 50 / throughput (Little's law): it measures the queue, not the
 * server. The saturated runs give the throughput comparison instead.
 */
const PACED_RATE_PER_SECOND = 1_000;

/**
 * The handler under test: the real NudgeConfig validator (schema, every ADR 67 rule, cycles), with
 * the Component lookup answered from memory as the informer cache answers it in production.
 */
export const benchHandler: AdmissionHandler = nudgeConfigValidator({
  missing: () => Promise.resolve(new Set<string>()),
});

/** A CREATE of a 20-edge NudgeConfig with managedFields, about 4 KB like a real request. */
export function benchReviewBody(): Buffer {
  const nudges = Array.from({ length: 20 }, (_, i) => ({
    from: `base-image-${String(i)}`,
    to: `application-component-${String(i)}`,
  }));
  const object = {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: {
      name: 'nudge-config',
      namespace: 'tenant-bench',
      uid: '8f1c5a9e-2f6e-4d7b-9a51-0c1b7d2e4f10',
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { 'app.kubernetes.io/managed-by': 'gitops' },
      managedFields: [
        {
          manager: 'argocd-controller',
          operation: 'Apply',
          apiVersion: 'konflux-ci.dev/v1alpha1',
          time: '2026-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:spec': { 'f:nudges': {} },
            'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/managed-by': {} } },
          },
        },
      ],
    },
    spec: { nudges },
  };
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
        kind: { group: 'konflux-ci.dev', version: 'v1alpha1', kind: 'NudgeConfig' },
        resource: { group: 'konflux-ci.dev', version: 'v1alpha1', resource: 'nudgeconfigs' },
        requestKind: { group: 'konflux-ci.dev', version: 'v1alpha1', kind: 'NudgeConfig' },
        requestResource: { group: 'konflux-ci.dev', version: 'v1alpha1', resource: 'nudgeconfigs' },
        name: 'nudge-config',
        namespace: 'tenant-bench',
        operation: 'CREATE',
        userInfo: {
          username: 'system:serviceaccount:argocd:argocd-application-controller',
          uid: 'x',
          groups: ['system:serviceaccounts', 'system:authenticated'],
        },
        object,
        oldObject: null,
        dryRun: false,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'argocd-controller' },
      },
    }),
  );
}

/** `bare-parse` is a reference: the bare server plus JSON.parse of the body, what any webhook pays. */
/** `nudger-allow` is the same server with an allow-all handler: the framework's own cost. */
type ServerKind = 'nudger' | 'nudger-allow' | 'bare' | 'bare-parse';
const SERVER_KINDS = ['bare', 'bare-parse', 'nudger-allow', 'nudger'] as const;
const allowAll: AdmissionHandler = () => ({ allowed: true });

interface WorkerInput {
  readonly role: 'webhook-bench-server';
  readonly kind: ServerKind;
  readonly certDir: string;
  readonly cert: string;
  readonly key: string;
}

async function serveInWorker(input: WorkerInput): Promise<number> {
  if (input.kind === 'nudger' || input.kind === 'nudger-allow') {
    const server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      certDir: input.certDir,
      handlers: new Map([[PATH, input.kind === 'nudger' ? benchHandler : allowAll]]),
      registry: createRegistry(),
      // Info level as in production; the benchmark request is allowed, which logs at debug.
      logger: createLogger({ level: 'info', destination: { write: () => undefined } }),
    });
    return (await server.start()).port;
  }
  const fixed = Buffer.from(
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true },
    }),
  );
  const parse = input.kind === 'bare-parse';
  const server = createServer({ cert: input.cert, key: input.key, minVersion: 'TLSv1.2' }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      if (parse) chunks.push(chunk);
    });
    request.on('end', () => {
      if (parse) JSON.parse(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': fixed.length });
      response.end(fixed);
    });
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function isWorkerInput(value: unknown): value is WorkerInput {
  return typeof value === 'object' && value !== null && (value as { role?: unknown }).role === 'webhook-bench-server';
}

if (!isMainThread && isWorkerInput(workerData)) {
  const port = await serveInWorker(workerData);
  parentPort?.postMessage(port);
}

async function startWorker(input: WorkerInput): Promise<{ port: number; worker: Worker }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: input });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: number) => {
      resolve(message);
    });
    worker.once('error', reject);
  });
  return { port, worker };
}

interface LoadFigures {
  readonly p50: number;
  readonly p99: number;
  readonly rps: number;
  readonly requests: number;
  readonly failed: number;
}

/** Closed loop: every connection sends again as soon as it is answered. Figures from autocannon. */
async function saturate(port: number, body: Buffer, seconds: number): Promise<LoadFigures> {
  const result = await autocannon({
    url: `https://127.0.0.1:${String(port)}${PATH}?timeout=10s`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: CONNECTIONS,
    duration: seconds,
  });
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.total / result.duration,
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * Open loop: requests start at evenly spaced times over a pool of CONNECTIONS keep-alive
 * connections, whatever the answers do, timed from their scheduled start (so a stalled server
 * cannot hide its queue). autocannon's own rate limit sends each second's quota in one burst.
 */
async function paced(port: number, body: Buffer, rate: number, seconds: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, rejectUnauthorized: false });
  const total = rate * seconds;
  const interval = 1000 / rate;
  const samples: number[] = [];
  let failed = 0;
  const pending = new Set<Promise<void>>();
  const send = (scheduled: number): Promise<void> =>
    new Promise((resolve) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: `${PATH}?timeout=10s`,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) samples.push(performance.now() - scheduled);
            else failed += 1;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failed += 1;
        resolve();
      });
      req.end(body);
    });
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
    for (; sent < due; sent += 1) {
      const request = send(start + sent * interval);
      pending.add(request);
      void request.then(() => pending.delete(request));
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + sent * interval - performance.now())));
  }
  await Promise.all(pending);
  agent.destroy();
  if (failed > 0) throw new Error(`${String(failed)} paced requests failed`);
  return samples;
}

async function inProcess(body: Buffer): Promise<{ p50: number; p99: number; n: number }> {
  const run = async (count: number, samples?: number[]) => {
    for (let i = 0; i < count; i += 1) {
      const start = performance.now();
      const outcome = await answerAdmission(benchHandler, body, { timeoutMs: 9_000 });
      samples?.push(performance.now() - start);
      if (outcome.kind !== 'decided' || !outcome.decision.allowed)
        throw new Error(`bench request not allowed: ${outcome.body}`);
    }
  };
  await run(2_000);
  const samples: number[] = [];
  await run(20_000, samples);
  return summarizeMs(samples);
}

function line(name: string, figures: LoadFigures): string {
  return `    ${name.padEnd(22)} p50 ${ms(figures.p50)}, p99 ${ms(figures.p99)} (worst round), ${figures.rps.toFixed(0)} req/s (${String(figures.requests)} requests, ${String(figures.failed)} failed)`;
}

function combine(rounds: readonly LoadFigures[]): LoadFigures {
  const requests = rounds.reduce((sum, round) => sum + round.requests, 0);
  return {
    p50: Math.max(...rounds.map((round) => round.p50)),
    p99: Math.max(...rounds.map((round) => round.p99)),
    rps: requests / (ROUND_SECONDS * rounds.length),
    requests,
    failed: rounds.reduce((sum, round) => sum + round.failed, 0),
  };
}

export async function benchWebhook(): Promise<void> {
  const body = benchReviewBody();
  const local = await inProcess(body);
  console.log(
    `webhook handler in process (parse + validate + response, ${String(body.length)} B request): p50 ${ms(local.p50)}, p99 ${ms(local.p99)} (n=${String(local.n)}) — ${verdict(local.p99, 1)}`,
  );

  const certificate = await selfSignedCertificate('nudger-webhook-bench');
  const certDir = await mkdtemp(join(tmpdir(), 'nudger-bench-certs-'));
  const workers: Worker[] = [];
  try {
    await writeFile(join(certDir, 'tls.crt'), certificate.cert);
    await writeFile(join(certDir, 'tls.key'), certificate.key);
    const files = { certDir, cert: certificate.cert, key: certificate.key };
    const ports: Record<ServerKind, number> = { bare: 0, 'bare-parse': 0, 'nudger-allow': 0, nudger: 0 };
    for (const kind of SERVER_KINDS) {
      const { port, worker } = await startWorker({ role: 'webhook-bench-server', kind, ...files });
      workers.push(worker);
      ports[kind] = port;
      await saturate(port, body, WARMUP_SECONDS);
    }
    // The two servers take turns, so a neighbour's load on a shared machine hits both alike.
    const saturated: Record<ServerKind, LoadFigures[]> = { bare: [], 'bare-parse': [], 'nudger-allow': [], nudger: [] };
    const pacedSamples: Record<ServerKind, number[]> = { bare: [], 'bare-parse': [], 'nudger-allow': [], nudger: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const kind of SERVER_KINDS) {
        saturated[kind].push(await saturate(ports[kind], body, ROUND_SECONDS));
        if (kind === 'bare-parse') continue;
        pacedSamples[kind].push(...(await paced(ports[kind], body, PACED_RATE_PER_SECOND, ROUND_SECONDS)));
      }
    }
    const bare = combine(saturated.bare);
    const nudger = combine(saturated.nudger);
    const pacedBare = summarizeMs(pacedSamples.bare);
    const pacedNudger = summarizeMs(pacedSamples.nudger);
    const pacedAllow = summarizeMs(pacedSamples['nudger-allow']);
    const allow = combine(saturated['nudger-allow']);
    const ratio = nudger.rps / bare.rps;
    const frameworkRatio = allow.rps / bare.rps;
    const seconds = String(ROUNDS * ROUND_SECONDS);
    console.log(
      `webhook over HTTPS on loopback, ${String(CONNECTIONS)} connections, ${seconds} s per server and mode:`,
    );
    console.log(`  paced at ${String(PACED_RATE_PER_SECOND)} req/s (latency from scheduled start):`);
    console.log(
      `    ${'bare node:https'.padEnd(22)} p50 ${ms(pacedBare.p50)}, p99 ${ms(pacedBare.p99)} (n=${String(pacedBare.n)})`,
    );
    console.log(
      `    ${'nudger, allow-all'.padEnd(22)} p50 ${ms(pacedAllow.p50)}, p99 ${ms(pacedAllow.p99)} (n=${String(pacedAllow.n)}) — ${verdict(pacedAllow.p99, 5)}`,
    );
    console.log(
      `    ${'nudger, NudgeConfig'.padEnd(22)} p50 ${ms(pacedNudger.p50)}, p99 ${ms(pacedNudger.p99)} (n=${String(pacedNudger.n)}) — ${verdict(pacedNudger.p99, 5)}`,
    );
    console.log('  saturated, autocannon (each connection sends again once answered; latency = 50 / throughput):');
    console.log(line('bare node:https', bare));
    console.log(line('nudger, allow-all', allow));
    console.log(line('nudger, NudgeConfig', nudger));
    const reference = combine(saturated['bare-parse']);
    console.log(
      `${line('(bare + JSON.parse)', reference)}: nudger is ${((nudger.rps / reference.rps) * 100).toFixed(0)} % of this`,
    );
    console.log(
      `    throughput nudger/bare: server framework (allow-all) ${(frameworkRatio * 100).toFixed(0)} % — ${frameworkRatio >= 0.5 ? 'meets' : 'MISSES'} target >= 50 %; with the full NudgeConfig validation ${(ratio * 100).toFixed(0)} % — ${ratio >= 0.5 ? 'meets' : 'MISSES'} target >= 50 %`,
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
    await rm(certDir, { recursive: true, force: true });
  }
}

if (isMainThread && import.meta.main) await benchWebhook();
