// Where `nudger manager` finds its cluster, in this order (issue 3, `--kubeconfig`):
//   1. an explicit path (`--kubeconfig`);
//   2. in-cluster: KUBERNETES_SERVICE_HOST/PORT plus the mounted service-account token;
//   3. the KUBECONFIG list (first file's current-context wins, as kubectl does);
//   4. ~/.kube/config.
// In-cluster comes before KUBECONFIG so a stray KUBECONFIG baked into an image cannot redirect the
// manager away from the cluster it runs in. Unlike client-node's loadFromDefault, finding nothing
// is an error, never a silent fallback to http://localhost:8080.
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { reasonOf } from '../fs/errors.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export type KubeConfigSource = 'flag' | 'in-cluster' | 'KUBECONFIG' | 'home';

export interface KubeConfigLoadOptions {
  /** `--kubeconfig`: when set, the only place looked at. */
  readonly kubeconfigPath?: string;
  /** A context other than the file's current-context. */
  readonly context?: string;
  /** Defaults to process.env; tests pass their own. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where the service-account token, ca.crt and namespace are mounted. */
  readonly serviceAccountDir?: string;
  readonly homeDir?: string;
}

export interface LoadedKubeConfig {
  readonly kubeConfig: KubeConfig;
  readonly source: KubeConfigSource;
  /** The file(s) or directory it came from, for a startup log line. */
  readonly location: string;
  /** The namespace of the current context (in-cluster: the pod's own), if any. */
  readonly namespace: string | undefined;
}

/** No usable cluster configuration; the message says where nudger looked and why it failed. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
  readonly source: KubeConfigSource | undefined;
  readonly location: string | undefined;
  readonly reason: string;

  constructor(source: KubeConfigSource | undefined, location: string | undefined, reason: string) {
    super(location === undefined ? `kubeconfig: ${reason}` : `kubeconfig ${location}: ${reason}`);
    this.source = source;
    this.location = location;
    this.reason = reason;
  }
}

export function loadKubeConfig(options: KubeConfigLoadOptions = {}): LoadedKubeConfig {
  const env = options.env ?? process.env;
  const loaded = findKubeConfig(options, env);
  if (options.context !== undefined) {
    if (loaded.kubeConfig.getContextObject(options.context) === null) {
      throw new KubeConfigError(loaded.source, loaded.location, `no context named ${options.context}`);
    }
    loaded.kubeConfig.setCurrentContext(options.context);
  }
  const context = loaded.kubeConfig.getContextObject(loaded.kubeConfig.getCurrentContext());
  if (context === null) throw new KubeConfigError(loaded.source, loaded.location, 'no current context');
  const cluster = loaded.kubeConfig.getCurrentCluster();
  if (cluster === null || cluster.server === '') {
    throw new KubeConfigError(loaded.source, loaded.location, `context ${context.name} names no cluster with a server`);
  }
  return { ...loaded, namespace: loaded.namespace ?? context.namespace };
}

function findKubeConfig(
  options: KubeConfigLoadOptions,
  env: Readonly<Record<string, string | undefined>>,
): Omit<LoadedKubeConfig, 'namespace'> & { namespace?: string } {
  if (options.kubeconfigPath !== undefined) {
    return {
      kubeConfig: fromFiles('flag', [options.kubeconfigPath]),
      source: 'flag',
      location: options.kubeconfigPath,
    };
  }
  const serviceAccountDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (
    host !== undefined &&
    host !== '' &&
    port !== undefined &&
    port !== '' &&
    existsSync(join(serviceAccountDir, 'token'))
  ) {
    return inCluster(host, port, serviceAccountDir);
  }
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((file) => file !== '');
  if (listed.length > 0) {
    // kubectl skips list entries that do not exist; all of them missing is a mistake worth naming.
    const present = listed.filter((file) => existsSync(file));
    if (present.length === 0) throw new KubeConfigError('KUBECONFIG', listed.join(delimiter), 'no such file');
    return { kubeConfig: fromFiles('KUBECONFIG', present), source: 'KUBECONFIG', location: present.join(delimiter) };
  }
  const home = join(options.homeDir ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return { kubeConfig: fromFiles('home', [home]), source: 'home', location: home };
  throw new KubeConfigError(
    undefined,
    undefined,
    `none found: not running in a cluster (no KUBERNETES_SERVICE_HOST or no ${join(serviceAccountDir, 'token')}), ` +
      `KUBECONFIG is unset and ${home} does not exist; pass --kubeconfig`,
  );
}

function fromFiles(source: KubeConfigSource, files: readonly string[]): KubeConfig {
  let merged: KubeConfig | undefined;
  for (const file of files) {
    const kc = new KubeConfig();
    try {
      kc.loadFromFile(file);
    } catch (error) {
      throw new KubeConfigError(source, file, `cannot load: ${reasonOf(error)}`);
    }
    if (merged === undefined) merged = kc;
    else {
      try {
        merged.mergeConfig(kc, true);
      } catch (error) {
        throw new KubeConfigError(source, file, `cannot merge: ${reasonOf(error)}`);
      }
    }
  }
  if (merged === undefined) throw new KubeConfigError(source, undefined, 'no file');
  return merged;
}

function inCluster(
  host: string,
  port: string,
  serviceAccountDir: string,
): Omit<LoadedKubeConfig, 'namespace'> & { namespace?: string } {
  const caFile = join(serviceAccountDir, 'ca.crt');
  if (!existsSync(caFile)) throw new KubeConfigError('in-cluster', serviceAccountDir, 'ca.crt is missing');
  const namespaceFile = join(serviceAccountDir, 'namespace');
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : undefined;
  const kubeConfig = new KubeConfig();
  // A tokenFile auth provider rereads the token periodically: projected tokens rotate (about hourly).
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'in-cluster', server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`, caFile }],
    users: [
      {
        name: 'in-cluster',
        authProvider: { name: 'tokenFile', config: { tokenFile: join(serviceAccountDir, 'token') } },
      },
    ],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', ...(namespace ? { namespace } : {}) }],
    currentContext: 'in-cluster',
  });
  return { kubeConfig, source: 'in-cluster', location: serviceAccountDir, ...(namespace ? { namespace } : {}) };
}
