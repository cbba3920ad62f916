// Peak memory of the admission webhook server under concurrent bodies just under its per-request
// cap (issue 8, part 2 item 4): the server runs alone in a child process, as the manager does in
// its pod, with the Deployment's 512 MiB memory limit handed over the way deploy/manager does
// (NUDGER_MEMORY_LIMIT_BYTES from the Downward API); the figure is its VmHWM (peak resident set).
//
// Loopback only, one burst per concurrency, each run bounded in time. Run alone with
// `node bench/webhook-memory.ts` (also part of `npm run bench`).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Agent, request as httpsRequest } from 'node:https';
import { createLogger } from '../src/runtime/logger.ts';
import { createRegistry } from '../src/runtime/metrics.ts';
import { inflightBudgetFromEnvironment } from '../src/webhooks/inflight-budget.ts';
import { DEFAULT_MAX_BODY_BYTES, WebhookServer } from '../src/webhooks/server.ts';
import { certDirWith, removeDir, selfSignedCertificate } from '../test/webhooks/tls-fixture.ts';
import { benchHandler } from './webhook.ts';

const PATH = '/validate-konflux-ci-dev-v1alpha1-nudgeconfig';
const MEMORY_LIMIT_BYTES = 512 * 2 ** 20;
const HEAP_LIMIT_MIB = 256;
const RUN_DEADLINE_MS = 120_000;
const MiB = 2 ** 20;

/** What one burst came to: the child's peak RSS and how the requests were answered. */
export interface MemoryFigures {
  readonly concurrency: number;
  readonly bodyBytes: number;
  readonly budgetBytes: number;
  readonly idleRssBytes: number;
  readonly peakRssBytes: number;
  readonly statuses: ReadonlyMap<string, number>;
}

/**
 * An AdmissionReview for a NudgeConfig padded to just under the cap with many small annotations:
 * many small values are the costly shape once parsed (a multiple of the body's size).
 */
export function paddedReviewBody(targetBytes = DEFAULT_MAX_BODY_BYTES - 4096): Buffer {
  const annotations: Record<string, string> = {};
  const value = 'x'.repeat(64);
  const entry = `"bench.example.com/key-0000000":"${value}",`.length;
  const count = Math.floor((targetBytes - 2048) / entry);
  for (let i = 0; i < count; i += 1) annotations[`bench.example.com/key-${String(i).padStart(7, '0')}`] = value;
  const object = {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: 'tenant-bench', annotations },
    spec: { nudges: [{ from: 'base-image', to: 'application' }] },
  };
  const gvk = { group: 'konflux-ci.dev', version: 'v1alpha1', kind: 'NudgeConfig' };
  const body = Buffer.from(
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: '2b0e4f7c-5a61-4c0e-9d7b-3f1a6c2e8d90',
        kind: gvk,
        resource: { group: 'konflux-ci.dev', version: 'v1alpha1', resource: 'nudgeconfigs' },
        name: 'nudge-config',
        namespace: 'tenant-bench',
        operation: 'CREATE',
        userInfo: { username: 'bench' },
        object,
        oldObject: null,
      },
    }),
  );
  if (body.length > DEFAULT_MAX_BODY_BYTES) throw new Error('padded body exceeds the per-request cap');
  return body;
}

async function serveChild(certDir: string): Promise<void> {
  const budget = inflightBudgetFromEnvironment(DEFAULT_MAX_BODY_BYTES);
  const server = new WebhookServer({
    port: 0,
    host: '127.0.0.1',
    certDir,
    handlers: new Map([[PATH, benchHandler]]),
    maxInflightBytes: budget.bytes,
    registry: createRegistry(),
    logger: createLogger({ level: 'error', destination: { write: () => undefined } }),
  });
  const { port } = await server.start();
  process.stdout.write(`${JSON.stringify({ port, budget: budget.bytes })}\n`);
  // The parent ends this process; this timer only makes sure it never outlives a crashed parent.
  setTimeout(() => process.exit(0), RUN_DEADLINE_MS).unref();
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

async function vmHwm(pid: number): Promise<{ hwm: number; rss: number }> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (match === null) throw new Error(`/proc/${String(pid)}/status has no ${name}`);
    return Number(match[1]) * 1024;
  };
  return { hwm: field('VmHWM'), rss: field('VmRSS') };
}

async function startChild(certDir: string): Promise<{ child: ChildProcess; port: number; budget: number }> {
  // Node 24 sizes its heap from a container's memory limit (about half of it); outside a container
  // it would take a quarter of the host's memory, which no pod has.
  const heap = `--max-heap-size=${String(HEAP_LIMIT_MIB)}`;
  const child = spawn(process.execPath, [heap, import.meta.filename, 'serve', certDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NUDGER_MEMORY_LIMIT_BYTES: String(MEMORY_LIMIT_BYTES) },
  });
  const first = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline >= 0) resolve(text.slice(0, newline));
    });
    child.once('exit', (code) => {
      reject(new Error(`webhook child exited with ${String(code)} before listening`));
    });
  });
  const { port, budget } = JSON.parse(first) as { port: number; budget: number };
  return { child, port, budget };
}

/** Sends `concurrency` bodies at once, each on its own connection; resolves with each status. */
async function burst(port: number, body: Buffer, concurrency: number): Promise<Map<string, number>> {
  const agent = new Agent({ keepAlive: false, maxSockets: concurrency, rejectUnauthorized: false });
  const statuses = new Map<string, number>();
  const count = (key: string): void => {
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  };
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      // A server that answers 429 and closes may also make the write fail (EPIPE): count once.
      let counted = false;
      const settle = (key: string): void => {
        if (counted) return;
        counted = true;
        count(key);
        resolve();
      };
      const request = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: `${PATH}?timeout=10s`,
          method: 'POST',
          agent,
          timeout: RUN_DEADLINE_MS,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            settle(String(response.statusCode));
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', (error: NodeJS.ErrnoException) => {
        settle(error.code ?? 'error');
      });
      request.end(body);
    });
  await Promise.all(Array.from({ length: concurrency }, one));
  agent.destroy();
  return statuses;
}

export async function benchWebhookMemory(concurrencies: readonly number[] = [40, 120]): Promise<MemoryFigures[]> {
  const body = paddedReviewBody();
  const certDir = await certDirWith(await selfSignedCertificate('nudger-webhook-memory-bench'));
  const figures: MemoryFigures[] = [];
  try {
    for (const concurrency of concurrencies) {
      // A fresh process per burst: VmHWM is the peak since the process started.
      const { child, port, budget } = await startChild(certDir);
      try {
        const pid = child.pid ?? 0;
        const idle = await vmHwm(pid);
        const statuses = await burst(port, body, concurrency);
        const peak = await vmHwm(pid);
        figures.push({
          concurrency,
          bodyBytes: body.length,
          budgetBytes: budget,
          idleRssBytes: idle.rss,
          peakRssBytes: peak.hwm,
          statuses,
        });
      } finally {
        child.stdin?.end();
        child.kill();
      }
    }
  } finally {
    await removeDir(certDir);
  }
  return figures;
}

export function formatWebhookMemory(figures: readonly MemoryFigures[]): string {
  const lines = figures.map((figure) => {
    const answers = [...figure.statuses].map(([status, n]) => `${String(n)}×${status}`).join(', ');
    const peak = figure.peakRssBytes / MiB;
    return `  ${String(figure.concurrency).padStart(4)} concurrent: peak RSS ${peak.toFixed(0)} MiB (idle ${(figure.idleRssBytes / MiB).toFixed(0)} MiB; answers ${answers}) — ${peak < MEMORY_LIMIT_BYTES / MiB ? 'meets' : 'MISSES'} target < ${String(MEMORY_LIMIT_BYTES / MiB)} MiB`;
  });
  const first = figures[0];
  const head =
    first === undefined
      ? 'webhook memory: no figures'
      : `webhook server memory, ${(first.bodyBytes / MiB).toFixed(2)} MiB request bodies at once over HTTPS on loopback, in-flight budget ${(first.budgetBytes / MiB).toFixed(0)} MiB (a quarter of the heap limit, ${String(HEAP_LIMIT_MIB)} MiB, under a 512 MiB memory limit):`;
  return [head, ...lines].join('\n');
}

if (import.meta.main) {
  if (process.argv[2] === 'serve' && process.argv[3] !== undefined) await serveChild(process.argv[3]);
  else console.log(formatWebhookMemory(await benchWebhookMemory()));
}
