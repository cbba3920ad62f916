// Issue 13: a stack update over 500 CF apps in 50 spaces (docs/korifi.md, docs/decisions.md D13,
// N42, N44). Real kube-apiserver and etcd with Korifi's and kpack's CRDs, a real OCI registry on
// loopback, nudger's manager in process with the korifi controllers (build reconciler and
// stack-update propagator), the kpack stand-in, and the CF API's part played per space by the
// sandbox (src/sandbox/korifi/cf-api.ts). Every app is staged through the build reconciler first
// (10 per space, the default ClusterBuilder); then the operator updates the ClusterStack once.
//
// Figures: from the ClusterStack write until every app's `currentDropletRef` has switched (polled
// every 100 ms by this driver, whose requests are not counted); when kpack's last STACK rebuild was
// Ready (the stand-in pushes every rebuilt image to the registry, so this part is kpack's, not
// nudger's) and the propagation lag per app (its Image seen Ready with the new image → its app
// seen switched), p50/p99; CFBuilds the propagator created (must be exactly one per app, checked
// again after a quiet period); the manager's API requests in that window, per app, by verb. The
// manager reaches the API server only through a counting proxy in this process (plain HTTP on
// loopback to the proxy, mTLS on to kube-apiserver), so every request it sends is counted, watches
// included (a watch is one request, however long it streams). Printed, not asserted.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { CF_APPS, CF_BUILDS, KPACK_IMAGES } from '../src/adapters/kubernetes/korifi-resources.ts';
import { mapWithConcurrency } from '../src/domain/concurrency.ts';
import { STACK_UPDATE_LABEL } from '../src/domain/korifi/stack-update.ts';
import { createLogger } from '../src/runtime/logger.ts';
import type { CFApp, CFBuild } from '../src/schema/korifi.ts';
import { buildpackLifecycle, CfApiStandIn } from '../src/sandbox/korifi/cf-api.ts';
import { startKorifiEnvironment, type KorifiEnvironment } from '../src/sandbox/korifi/environment.ts';
import type { KpackObject } from '../src/sandbox/korifi/kpack-objects.ts';
import { seconds } from './dispatch-common.ts';
import { ms, summarizeMs } from './stats.ts';

const STACK = 'io.buildpacks.stacks.jammy';
const BUILDPACKS = ['paketo-buildpacks/nodejs', 'paketo-buildpacks/java', 'paketo-buildpacks/go'];
const STAGES_IN_FLIGHT = 16;
const SAMPLE_MS = 100;
const TIMEOUT_MS = 20 * 60_000;
/** After the last switch: long enough for a duplicate CFBuild to show up if the propagator made one. */
const QUIET_MS = 5_000;

export interface KorifiStackUpdateOptions {
  readonly spaces: number;
  readonly appsPerSpace: number;
}

/** Requests the manager sent, by verb (`WATCH` for a GET with watch=true). */
export class RequestCounts {
  readonly byVerb = new Map<string, number>();
  add(verb: string): void {
    this.byVerb.set(verb, (this.byVerb.get(verb) ?? 0) + 1);
  }
  total(): number {
    return [...this.byVerb.values()].reduce((a, b) => a + b, 0);
  }
  reset(): void {
    this.byVerb.clear();
  }
  describe(per: number): string {
    return [...this.byVerb.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([verb, n]) => `${verb} ${String(n)} (${(n / per).toFixed(2)}/app)`)
      .join(', ');
  }
}

interface CountingProxy {
  readonly kubeConfig: KubeConfig;
  readonly counts: RequestCounts;
  close(): Promise<void>;
}

/** A plain-HTTP reverse proxy on loopback to the control plane, counting each request. */
export async function startCountingProxy(target: KubeConfig): Promise<CountingProxy> {
  const cluster = target.getCurrentCluster();
  if (cluster === null) throw new Error('the control plane kubeconfig has no cluster');
  const tls: RequestOptions = { headers: {} };
  await target.applyToHTTPSOptions(tls);
  const agent = new HttpsAgent({
    keepAlive: true,
    maxSockets: 64,
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
  });
  const auth = (tls.headers as Record<string, string> | undefined)?.Authorization;
  const counts = new RequestCounts();
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', cluster.server);
    const watch = req.method === 'GET' && ['true', '1'].includes(url.searchParams.get('watch') ?? '');
    counts.add(watch ? 'WATCH' : (req.method ?? 'GET'));
    const headers = { ...req.headers, host: url.host, ...(auth === undefined ? {} : { authorization: auth }) };
    const upstream = httpsRequest(url, { method: req.method, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      // A watch's headers come before its first event: pass them on at once, as kube-apiserver does.
      res.flushHeaders();
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (process.env.BENCH_LOG_LEVEL !== undefined)
        progress(`proxy: ${req.method ?? ''} ${req.url ?? ''}: ${error.message}`);
      res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  };
  const server: Server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeConfig = new KubeConfig();
  // Plain HTTP on loopback: client-node wants skipTLSVerify for an http:// server, and there is no TLS to verify.
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'counting-proxy', server: `http://127.0.0.1:${String(port)}`, skipTLSVerify: true }],
    users: [{ name: 'counting-proxy' }],
    contexts: [{ name: 'counting-proxy', cluster: 'counting-proxy', user: 'counting-proxy' }],
    currentContext: 'counting-proxy',
  });
  return {
    kubeConfig,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      agent.destroy();
    },
  };
}

/** Progress on stderr: a 500-app setup takes minutes. */
function progress(text: string): void {
  process.stderr.write(`korifi-stack-update: ${text}\n`);
}

const spaceName = (n: number): string => `cf-space-${String(n).padStart(3, '0')}`;
const key = (object: { metadata?: { namespace?: string; name?: string } }): string =>
  `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;

function imageReady(image: KpackObject): boolean {
  const conditions = Array.isArray(image.status?.conditions)
    ? (image.status.conditions as Record<string, unknown>[])
    : [];
  return (
    conditions.some((c) => c.type === 'Ready' && c.status === 'True') &&
    image.status?.observedGeneration === image.metadata?.generation
  );
}

/** Stages every app once and waits until each runs its first droplet. */
async function stageAll(env: KorifiEnvironment, options: KorifiStackUpdateOptions): Promise<CfApiStandIn[]> {
  const spaces = Array.from({ length: options.spaces }, (_, n) => {
    const cf = new CfApiStandIn({
      client: env.client,
      space: spaceName(n),
      builderName: env.builderName,
      packageRepositoryPrefix: env.imageRepositoryPrefix,
    });
    return cf;
  });
  const lifecycle = buildpackLifecycle({ buildpacks: [], stack: STACK });
  await mapWithConcurrency(spaces, 8, async (cf) => {
    await cf.createSpace();
    for (let a = 0; a < options.appsPerSpace; a++) await cf.createApp(`app-${String(a)}`, lifecycle);
  });
  for (const cf of spaces) cf.start(env.pollIntervalMs, () => undefined);
  const stages = spaces.flatMap((cf) => cf.apps.map((app) => ({ cf, app: app.name })));
  const staged = await mapWithConcurrency(stages, STAGES_IN_FLIGHT, ({ cf, app }) => cf.stage(app));
  progress(`${String(staged.length)} stages submitted`);
  const deadline = Date.now() + TIMEOUT_MS;
  let reported = -1;
  for (;;) {
    const waiting = spaces.reduce((n, cf) => n + staged.filter((name) => cf.isStaging(name)).length, 0);
    if (waiting === 0) break;
    if (waiting !== reported) progress(`${String(waiting)} still staging`);
    reported = waiting;
    if (Date.now() > deadline) throw new Error(`${String(waiting)} apps still staging after ${seconds(TIMEOUT_MS)}`);
    await sleep(250);
  }
  await Promise.all(spaces.map((cf) => cf.stop()));
  return spaces;
}

export async function benchKorifiStackUpdate(options: KorifiStackUpdateOptions): Promise<string> {
  let proxy: CountingProxy | undefined;
  const env = await startKorifiEnvironment({
    logger: createLogger({ level: process.env.BENCH_LOG_LEVEL ?? 'error', destination: process.stderr }),
    clusterBuilder: { stack: STACK, buildpacks: BUILDPACKS },
    managerKubeConfig: async (plane) => {
      proxy = await startCountingProxy(plane.kubeConfig);
      return proxy.kubeConfig;
    },
  });
  try {
    const counts = proxy?.counts;
    if (counts === undefined) throw new Error('the counting proxy did not start');
    const appCount = options.spaces * options.appsPerSpace;
    const setUpStart = performance.now();
    await stageAll(env, options);
    const apps = (await env.client.list<CFApp>(CF_APPS)).items;
    const failed = apps.filter((app) => app.spec?.currentDropletRef?.name === undefined);
    if (apps.length !== appCount || failed.length > 0)
      throw new Error(`${String(failed.length)} of ${String(apps.length)} apps have no droplet after staging`);
    const initial = new Map(apps.map((app) => [key(app), app.spec?.currentDropletRef?.name ?? '']));
    const initialImage = new Map(
      (await env.client.list<KpackObject>(KPACK_IMAGES)).items.map((image) => [key(image), image.status?.latestImage]),
    );
    const setUpMs = performance.now() - setUpStart;
    // Settle: the propagator has nothing to do before the update (first builds are ignored).
    await sleep(2_000);
    const setUpRequests = counts.total();

    counts.reset();
    const start = performance.now();
    await env.kpack.updateStack();
    const imageSeenAt = new Map<string, number>();
    const switchedAt = new Map<string, number>();
    const appOfImage = (image: KpackObject): string =>
      image.metadata?.labels?.['korifi.cloudfoundry.org/app-guid'] ?? image.metadata?.name ?? '';
    while (switchedAt.size < appCount) {
      if (performance.now() - start > TIMEOUT_MS)
        throw new Error(`${String(appCount - switchedAt.size)} apps not switched after ${seconds(TIMEOUT_MS)}`);
      const now = performance.now();
      for (const image of (await env.client.list<KpackObject>(KPACK_IMAGES)).items) {
        const at = `${image.metadata?.namespace ?? ''}/${appOfImage(image)}`;
        if (!imageSeenAt.has(at) && imageReady(image) && image.status?.latestImage !== initialImage.get(key(image)))
          imageSeenAt.set(at, now);
      }
      for (const app of (await env.client.list<CFApp>(CF_APPS)).items) {
        const at = key(app);
        if (!switchedAt.has(at) && app.spec?.currentDropletRef?.name !== initial.get(at)) switchedAt.set(at, now);
      }
      await sleep(SAMPLE_MS);
    }
    const allSwitched = Math.max(...switchedAt.values()) - start;
    const windowRequests = counts.total();
    const windowByVerb = counts.describe(appCount);
    await sleep(QUIET_MS);
    const withQuiet = counts.total();
    const created = (await env.client.list<CFBuild>(CF_BUILDS, { labelSelector: `${STACK_UPDATE_LABEL}=true` })).items
      .length;
    const kpackDone = imageSeenAt.size === 0 ? Number.NaN : Math.max(...imageSeenAt.values()) - start;
    const lags = [...switchedAt.entries()].map(([app, at]) => at - (imageSeenAt.get(app) ?? at));
    const lag = summarizeMs(lags);
    // Both seen in one sample: the lag is below the sampling interval.
    const lagText = (value: number): string => (value === 0 ? `< ${String(SAMPLE_MS)} ms` : ms(value));
    return [
      `korifi stack update (real kube-apiserver + etcd, local OCI registry, manager in process with the korifi controllers, kpack stand-in): ` +
        `${String(appCount)} apps in ${String(options.spaces)} spaces, staged through nudger's build reconciler in ${seconds(setUpMs)} ` +
        `(manager requests for it: ${String(setUpRequests)})`,
      `  every currentDropletRef switched ${seconds(allSwitched)} after the ClusterStack write; ` +
        `kpack's last STACK rebuild Ready (image pushed) at ${seconds(kpackDone)}; ` +
        `propagation lag per app (Image seen Ready → app seen switched, ${String(SAMPLE_MS)} ms sampling): p50 ${lagText(lag.p50)}, p99 ${lagText(lag.p99)}, max ${lagText(lag.max)}`,
      `  CFBuilds created by the propagator: ${String(created)} (target exactly ${String(appCount)}, counted ${seconds(QUIET_MS)} after the last switch); apps switched ${String(switchedAt.size)}/${String(appCount)}`,
      `  manager API requests from the ClusterStack write to the last switch: ${String(windowRequests)}, ${(windowRequests / appCount).toFixed(2)} per app (${windowByVerb}); ${String(withQuiet)} with the ${seconds(QUIET_MS)} after`,
    ].join('\n');
  } finally {
    await env.close();
    await proxy?.close();
  }
}
