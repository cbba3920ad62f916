// The manager as its own process for the scale benchmark and the soak (issue 14, docs/decisions.md
// N45): its RSS is then its own, read from /proc, not the driver's plus the stand-ins'. The child
// runs what the sandbox runs in process (src/sandbox/environment.ts): nudger's manager with the
// dispatcher on and its `direct` executor on the local forge, which is bare git repositories on
// disk, so the driver (this process) and the manager share it through the file system.
//
// The child counts its own requests to the API server: `node:https`'s request, wrapped before the
// manager sends any (builtin ESM exports re-synced), keyed by method and resource, watches apart. Nothing else in
// the manager speaks HTTPS to the API server's address.
//
// Run by the benchmarks, never alone: `node bench/child-manager.ts child <json>`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalForge } from '../src/adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../src/adapters/forges/local/local-resolver.ts';
import { KubeClient } from '../src/adapters/kubernetes/client.ts';
import { loadKubeConfig } from '../src/adapters/kubernetes/kubeconfig.ts';
import { defaultExecutors } from '../src/controllers/dispatch/default-executors.ts';
import { startManager } from '../src/manager/manager.ts';
import { createLogger } from '../src/runtime/logger.ts';
import {
  generateServingCert,
  SANDBOX_CRDS,
  startControlPlane,
  type ControlPlane,
} from '../src/sandbox/control-plane/control-plane.ts';
import { SANDBOX_DISPATCH_POLICY, type SandboxEnvironment } from '../src/sandbox/environment.ts';
import { LocalSandboxForge } from '../src/sandbox/forges/sandbox-forge.ts';
import { IntegrationStandIn } from '../src/sandbox/integration.ts';
import { KonfluxStandIn } from '../src/sandbox/konflux.ts';
import { PacStandIn } from '../src/sandbox/pac.ts';
import { LocalForgeRenovateAccess } from '../src/sandbox/renovate-access.ts';
import { TektonStandIn } from '../src/sandbox/tekton.ts';
import { registerWebhooks } from '../src/sandbox/webhooks.ts';

/** deploy/manager's memory limit, and the heap limit Node 24 derives from it. */
const MEMORY_LIMIT_BYTES = 512 * 2 ** 20;
const HEAP_LIMIT_MIB = 256;

/** What the child is started with (one JSON argument). */
interface ChildConfig {
  readonly kubeconfigPath: string;
  readonly forgeRoot: string;
  readonly certDir: string;
  readonly gitCacheDir: string;
  readonly pollIntervalMs: number;
  /** How often the ChangeGroup controller re-reads an active group's pull request. */
  readonly changeGroupPollMs: number;
  /** The manager's log level; warnings and errors go to the child's stderr, which the parent keeps. */
  readonly logLevel: 'warn' | 'error';
}

/** What the child answers on its IPC channel when asked `stats`. */
export interface ChildStats {
  /** Requests to the API server by `<method> <resource>[/<subresource>]`; `WATCH …` for watches. */
  readonly requests: Readonly<Record<string, number>>;
}

/** `/apis/g/v/namespaces/ns/pipelineruns/name/status` → `pipelineruns/status`. */
export function resourceOf(path: string): string {
  const parts = path.split('/').filter((part) => part !== '');
  const rest = parts.slice(parts[0] === 'api' ? 2 : 3);
  const scoped = rest[0] === 'namespaces' && rest.length > 2 ? rest.slice(2) : rest;
  return [scoped[0] ?? '', scoped[2]].filter((part) => part !== undefined).join('/');
}

async function runChild(config: ChildConfig): Promise<void> {
  const requests: Record<string, number> = {};
  const original = https.request.bind(https) as (...args: unknown[]) => ReturnType<typeof https.request>;
  (https as { request: unknown }).request = (...args: unknown[]) => {
    const [target, options] = args as [unknown, { method?: string } | undefined];
    const url = target instanceof URL ? target : undefined;
    const method = url?.searchParams.get('watch') === 'true' ? 'WATCH' : (options?.method ?? 'GET');
    const key = `${method} ${url === undefined ? '?' : resourceOf(url.pathname)}`;
    requests[key] = (requests[key] ?? 0) + 1;
    return original(...args);
  };
  syncBuiltinESMExports();

  const logger = createLogger({ level: config.logLevel, destination: process.stderr });
  const { kubeConfig } = loadKubeConfig({ kubeconfigPath: config.kubeconfigPath });
  const client = new KubeClient(kubeConfig, { userAgent: 'nudger-bench-executors' });
  const forge = new LocalForge({ root: config.forgeRoot });
  const changeGroups = {
    forgeResolver: new LocalForgeResolver(forge),
    gitCacheDir: config.gitCacheDir,
    pollIntervalMs: config.changeGroupPollMs,
  };
  const manager = await startManager({
    kubeConfig,
    leaderElect: false,
    leaderElectionNamespace: 'default',
    leaderElectionId: 'nudger-bench',
    webhookHost: '127.0.0.1',
    webhookPort: 0,
    webhookCertDir: config.certDir,
    healthHost: '127.0.0.1',
    healthPort: 0,
    metricsPort: 0,
    metricsAuth: 'none',
    logger,
    changeGroups,
    dispatch: {
      enabled: true,
      defaultExecutor: 'direct',
      executors: {
        ...defaultExecutors(client, changeGroups),
        renovate: new (await import('../src/controllers/dispatch/renovate/renovate-executor.ts')).RenovateExecutor({
          client,
          forgeAccess: new LocalForgeRenovateAccess(forge),
        }),
      },
      policy: SANDBOX_DISPATCH_POLICY,
    },
  });
  process.on('message', (message: unknown) => {
    if (message === 'stats') process.send?.({ requests } satisfies ChildStats);
  });
  const shutdown = (): void => {
    void manager.stop().then(() => {
      client.close();
      process.exit(0);
    });
  };
  process.on('SIGTERM', shutdown);
  process.on('disconnect', shutdown);
  process.send?.({
    ports: { webhook: manager.webhookPort, health: manager.healthPort, metrics: manager.metricsPort },
  });
  await manager.done;
  process.exit(manager.failure() === undefined ? 0 : 1);
}

/** A running child manager, seen from the driver. */
export interface ChildManager {
  readonly pid: number;
  readonly webhookPort: number;
  readonly healthPort: number;
  readonly metricsPort: number;
  /** The child's stderr so far: the manager's warnings and errors. */
  readonly stderr: () => string;
  /** Requests to the API server so far (see ChildStats). */
  stats(): Promise<ChildStats>;
  /** Resident set now and its peak since the process started (VmRSS, VmHWM), in bytes. */
  memory(): Promise<{ rss: number; hwm: number }>;
  /** The manager's /metrics text. */
  metrics(): Promise<string>;
  /** Until /readyz answers 200 (every replica informer synced, webhook serving). */
  ready(timeoutMs: number): Promise<void>;
  /** SIGTERM, then until it has exited. */
  stop(): Promise<void>;
}

export async function startChildManager(config: ChildConfig): Promise<ChildManager> {
  // As in its pod (deploy/manager: a 512 MiB memory limit, which Node 24 turns into a heap limit of
  // about half): outside a container Node would size its heap from the host's memory, and RSS
  // would say more about the host than about nudger.
  const child: ChildProcess = spawn(
    process.execPath,
    [
      `--max-heap-size=${String(HEAP_LIMIT_MIB)}`,
      // NUDGER_BENCH_CPU_PROF=<dir>: a V8 CPU profile of each manager process, for the top cost.
      ...(process.env.NUDGER_BENCH_CPU_PROF === undefined
        ? []
        : ['--cpu-prof', `--cpu-prof-dir=${process.env.NUDGER_BENCH_CPU_PROF}`]),
      import.meta.filename,
      'child',
      JSON.stringify(config),
    ],
    {
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      env: { ...process.env, NUDGER_MEMORY_LIMIT_BYTES: String(MEMORY_LIMIT_BYTES) },
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    // The first 64 KiB are what matters: what went wrong first.
    if (stderr.length < 65_536) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  const ports = await new Promise<{ webhook: number; health: number; metrics: number }>((resolve, reject) => {
    child.once('message', (message: { ports?: { webhook: number; health: number; metrics: number } }) => {
      if (message.ports === undefined) reject(new Error('child manager: unexpected first message'));
      else resolve(message.ports);
    });
    child.once('exit', (code) => {
      reject(new Error(`child manager exited with ${String(code)} before listening: ${stderr.slice(0, 2000)}`));
    });
  });
  const pid = child.pid ?? 0;
  const get = async (port: number, path: string): Promise<{ status: number; text: string }> => {
    const response = await fetch(`http://127.0.0.1:${String(port)}${path}`);
    return { status: response.status, text: await response.text() };
  };
  return {
    pid,
    webhookPort: ports.webhook,
    healthPort: ports.health,
    metricsPort: ports.metrics,
    stderr: () => stderr,
    stats: () =>
      new Promise((resolve) => {
        child.once('message', (message: ChildStats) => {
          resolve(message);
        });
        child.send('stats');
      }),
    memory: () => processMemory(pid),
    metrics: async () => (await get(ports.metrics, '/metrics')).text,
    ready: async (timeoutMs) => {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const answer = await get(ports.health, '/readyz').catch(() => ({ status: 0, text: '' }));
        if (answer.status === 200) return;
        if (performance.now() > deadline) throw new Error(`child manager not ready after ${String(timeoutMs)} ms`);
        await sleep(20);
      }
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** VmRSS and VmHWM of `pid`, in bytes. */
export async function processMemory(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/**
 * A Prometheus text exposition's samples of `name` (with `name_bucket`, `_sum`, `_count` for
 * histograms), each with its label text and value.
 */
export function metricSamples(text: string, name: string): { labels: string; value: number }[] {
  const samples: { labels: string; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^(\S+?)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    samples.push({ labels: match[2] ?? '', value: Number(match[3]) });
  }
  return samples;
}

/**
 * The environment the ScenarioPlayer sets namespaces up in, as the sandbox's, but with the manager
 * in a child process: control plane, local forge, the stand-ins (not polling: the benchmarks drive
 * builds themselves), the webhooks registered at the child.
 */
export interface ChildManagerEnvironment {
  readonly env: SandboxEnvironment;
  readonly controlPlane: ControlPlane;
  manager(): ChildManager;
  /** Stops the child and starts a new one on the same forge and caches; the new one, not yet ready. */
  restartManager(): Promise<ChildManager>;
  close(): Promise<void>;
}

export async function startChildManagerEnvironment(
  options: {
    readonly pollIntervalMs?: number;
    /** The ChangeGroup controller's poll; default twice pollIntervalMs, the sandbox's pace. */
    readonly changeGroupPollMs?: number;
    readonly logLevel?: 'warn' | 'error';
  } = {},
): Promise<ChildManagerEnvironment> {
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const directory = await mkdtemp(join(tmpdir(), 'nudger-bench-'));
  const closers: (() => Promise<void>)[] = [() => rm(directory, { recursive: true, force: true })];
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(() => undefined);
  };
  try {
    const controlPlane = await startControlPlane({ crds: SANDBOX_CRDS });
    closers.push(() => controlPlane.close());
    const client = new KubeClient(controlPlane.kubeConfig, { userAgent: 'nudger-bench-driver' });
    closers.push(() => {
      client.close();
      return Promise.resolve();
    });
    const forge = new LocalForge({ root: join(directory, 'forge') });
    const cert = generateServingCert();
    const certDir = join(directory, 'webhook-certs');
    await mkdir(certDir, { recursive: true });
    await writeFile(join(certDir, 'tls.crt'), cert.certPem);
    await writeFile(join(certDir, 'tls.key'), cert.keyPem);
    const config: ChildConfig = {
      kubeconfigPath: controlPlane.kubeconfigPath,
      forgeRoot: forge.root,
      certDir,
      gitCacheDir: join(directory, 'manager-git'),
      pollIntervalMs,
      changeGroupPollMs: options.changeGroupPollMs ?? pollIntervalMs * 2,
      logLevel: options.logLevel ?? 'warn',
    };
    let manager = await startChildManager(config);
    closers.push(() => manager.stop());
    await manager.ready(120_000);
    const register = (port: number) =>
      registerWebhooks(client, { url: (path) => `https://127.0.0.1:${String(port)}${path}`, caPem: cert.caPem });
    await register(manager.webhookPort);
    const env: SandboxEnvironment = {
      controlPlane,
      client,
      forge,
      sandboxForge: new LocalSandboxForge(forge),
      directory,
      konflux: new KonfluxStandIn(client, { forgeAccess: new LocalForgeRenovateAccess(forge) }),
      integration: new IntegrationStandIn(client),
      tekton: new TektonStandIn({ client, forge, gitCacheDir: join(directory, 'renovate-git') }),
      pac: new PacStandIn(new LocalSandboxForge(forge)),
      pollIntervalMs,
      stopManager: () => manager.stop(),
      startManager: async () => {
        manager = await startChildManager(config);
      },
      close,
    };
    return {
      env,
      controlPlane,
      manager: () => manager,
      restartManager: async () => {
        await manager.stop();
        manager = await startChildManager(config);
        // A new process listens on a new port: the webhooks follow it.
        await register(manager.webhookPort);
        return manager;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

if (import.meta.main && process.argv[2] === 'child' && process.argv[3] !== undefined) {
  await runChild(JSON.parse(process.argv[3]) as ChildConfig);
}
