// A real local control plane (docs/decisions.md D7): etcd plus kube-apiserver on free loopback ports, token
// authentication, RBAC, CRDs adapted for v1.20. `nudger sandbox` runs one; so does every
// integration test file (through the re-export in test/integration/harness/control-plane.ts):
//
//   const cp = await startControlPlane({ crds: [...NUDGER_CRDS, UPSTREAM_CRDS.components] });
//   after(() => cp.close());
//   const core = cp.kubeConfig.makeApiClient(CoreV1Api);
//
// The flag set is the one docs/control-plane.md documents and scripts/lib/control-plane-smoke.sh
// proves; change them together.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { controlPlaneBinDirectory, resolveControlPlaneBinaries, type ControlPlaneBinaries } from './binaries.ts';
import { installCrdFiles } from './crds.ts';
import { ControlPlaneStartError, UnknownIdentityError } from './errors.ts';
import { freeLoopbackPorts } from './ports.ts';
import { describeExit, ManagedProcess, onExitCleanup } from './processes.ts';
import { delay, rawRequest, requestJson, type RestTarget } from './rest.ts';
import { isRecord } from '../../domain/records.ts';

export { adaptCrdForV120 } from './crd-adapt.ts';
export { generateServingCert, type ServingCert } from './certs.ts';
export { KORIFI_CRDS, NUDGER_CRDS, SANDBOX_CRDS, UPSTREAM_CRDS } from './paths.ts';
export { controlPlaneBinDirectory } from './binaries.ts';
export {
  ControlPlaneBinariesError,
  ControlPlaneRequestError,
  ControlPlaneStartError,
  CrdInstallError,
  UnknownIdentityError,
} from './errors.ts';

export interface ControlPlaneUser {
  readonly name: string;
  /** Absent or empty: an ordinary authenticated user, so RBAC decides what it may do. */
  readonly groups?: string[];
}

/** The identity of `ControlPlane.kubeConfig`: cluster-admin through RBAC's bootstrap binding. */
export const ADMIN_USER: ControlPlaneUser = { name: 'nudger-admin', groups: ['system:masters'] };

/**
 * Identities every control plane has tokens for besides the admin, none in any group (so only the
 * RBAC the test grants applies): the manager's own identity and two humans.
 */
export const DEFAULT_USERS: readonly ControlPlaneUser[] = [
  { name: 'nudger-manager' },
  { name: 'alice' },
  { name: 'bob' },
];

export interface ControlPlaneOptions {
  /** CRD files to install (after adapting them for v1.20) before startControlPlane resolves. */
  readonly crds?: readonly string[];
  /** More identities than ADMIN_USER and DEFAULT_USERS; the token file is fixed at start. */
  readonly users?: readonly { name: string; groups?: string[] }[];
  /** Where etcd and kube-apiserver are; default KUBEBUILDER_ASSETS, then the provisioning script. */
  readonly binDirectory?: string;
}

export interface ControlPlane {
  /** Admin (system:masters) token user; CA = the apiserver's serving chain; server = `server`. */
  readonly kubeConfig: KubeConfig;
  /** `kubeConfig` written to a file, for child processes (`nudger manager --kubeconfig`). */
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:<port>`, the same across apiserver restarts. */
  readonly server: string;
  /** `http://127.0.0.1:<port>` */
  readonly etcdEndpoint: string;
  /** The PEM bundle that verifies `server` (kube-apiserver's self-signed leaf and its CA). */
  readonly caPem: string;
  /** The temp dir holding etcd's data, certificates, tokens and the servers' logs. */
  readonly directory: string;
  /** `gitVersion` reported by the running kube-apiserver, e.g. `v1.20.2`. */
  readonly version: string;
  /** The log of the current (or last) kube-apiserver run; one file per start. */
  readonly apiServerLogPath: string;
  readonly etcdLogPath: string;
  /** Process ids of the running servers (undefined when stopped), e.g. to check nothing outlives a test. */
  readonly pids: { readonly etcd: number | undefined; readonly apiServer: number | undefined };
  /** A KubeConfig for another identity from the token file (see DEFAULT_USERS, options.users). */
  tokenFor(user: string, groups?: string[]): KubeConfig;
  /** tokenFor written to a file in `directory` (created once per identity). */
  kubeconfigPathFor(user: string, groups?: string[]): string;
  /** SIGTERM kube-apiserver and wait for it to exit; etcd keeps running with its data. */
  stopApiServer(): Promise<void>;
  /** Start kube-apiserver again (same port, flags and serving certificate); resolves when /readyz is 200. */
  startApiServer(): Promise<void>;
  restartApiServer(): Promise<void>;
  /** Adapt for v1.20, create or update, wait until Established and served in discovery. */
  installCrds(paths: readonly string[]): Promise<void>;
  /** Stop both servers and delete `directory`; idempotent. */
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const POLL_MS = 100;
const STOP_GRACE_MS = 20_000;

interface Identity {
  readonly name: string;
  readonly groups: readonly string[];
  readonly token: string;
}

function identitiesFor(users: readonly ControlPlaneUser[]): Identity[] {
  return [ADMIN_USER, ...DEFAULT_USERS, ...users].map((user) => {
    const groups = user.groups ?? [];
    // The token file is CSV with the groups in one quoted field: keep names out of that syntax.
    for (const value of [user.name, ...groups]) {
      if (value === '' || /[",\n\r]/.test(value)) {
        throw new Error(`control-plane user or group ${JSON.stringify(value)} is not allowed`);
      }
    }
    return { name: user.name, groups, token: randomBytes(24).toString('hex') };
  });
}

function tokenFileLines(identities: readonly Identity[]): string {
  return identities.map((id, i) => `${id.token},${id.name},uid-${i}-${id.name},"${id.groups.join(',')}"\n`).join('');
}

function sameGroups(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

function kubeConfigFor(server: string, caPem: string, identity: Identity): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'nudger-test', server, caData: Buffer.from(caPem).toString('base64'), skipTLSVerify: false }],
    users: [{ name: identity.name, token: identity.token }],
    contexts: [{ name: `${identity.name}@nudger-test`, cluster: 'nudger-test', user: identity.name }],
    currentContext: `${identity.name}@nudger-test`,
  });
  return kc;
}

class LocalControlPlane implements ControlPlane {
  readonly directory: string;
  readonly server: string;
  readonly etcdEndpoint: string;
  readonly etcdLogPath: string;
  readonly #binaries: ControlPlaneBinaries;
  readonly #apiPort: number;
  readonly #identities: readonly Identity[];
  readonly #etcdArgs: readonly string[];
  readonly #kubeconfigPaths = new Map<Identity, string>();
  #etcd: ManagedProcess | undefined;
  #apiServer: ManagedProcess | undefined;
  #apiServerStarts = 0;
  #caPem: string | undefined;
  #version: string | undefined;
  #kubeConfig: KubeConfig | undefined;
  #closing: Promise<void> | undefined;
  readonly #unregisterExitCleanup: () => void;

  constructor(
    binaries: ControlPlaneBinaries,
    directory: string,
    ports: readonly number[],
    users: readonly ControlPlaneUser[],
  ) {
    const [etcdPort, peerPort, apiPort] = ports;
    if (etcdPort === undefined || peerPort === undefined || apiPort === undefined) throw new Error('need three ports');
    this.#binaries = binaries;
    this.directory = directory;
    this.#apiPort = apiPort;
    this.server = `https://127.0.0.1:${apiPort}`;
    this.etcdEndpoint = `http://127.0.0.1:${etcdPort}`;
    this.etcdLogPath = join(directory, 'etcd.log');
    this.#identities = identitiesFor(users);
    this.#unregisterExitCleanup = onExitCleanup(() => {
      if (process.env.NUDGER_KEEP_CONTROL_PLANE !== '1') rmSync(directory, { recursive: true, force: true });
    });
    writeFileSync(join(directory, 'tokens.csv'), tokenFileLines(this.#identities), { mode: 0o600 });
    // One RSA key both signs and verifies service-account tokens (flags required from v1.22 on).
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    writeFileSync(join(directory, 'sa.key'), privateKey, { mode: 0o600 });
    // prettier-ignore
    this.#etcdArgs = [
      '--name', 'nudger-test',
      '--data-dir', join(directory, 'etcd-data'),
      '--listen-client-urls', this.etcdEndpoint,
      '--advertise-client-urls', this.etcdEndpoint,
      '--listen-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`,
      '--initial-cluster', `nudger-test=http://127.0.0.1:${peerPort}`,
    ];
  }

  get #apiServerArgs(): string[] {
    const dir = this.directory;
    // prettier-ignore
    return [
      '--etcd-servers', this.etcdEndpoint,
      '--bind-address', '127.0.0.1',
      '--advertise-address', '127.0.0.1',
      '--secure-port', String(this.#apiPort),
      '--cert-dir', join(dir, 'certs'),
      '--service-cluster-ip-range', '10.0.0.0/24',
      '--service-account-issuer', 'https://kubernetes.default.svc.cluster.local',
      '--service-account-key-file', join(dir, 'sa.key'),
      '--service-account-signing-key-file', join(dir, 'sa.key'),
      '--token-auth-file', join(dir, 'tokens.csv'),
      '--authorization-mode', 'RBAC',
      '--disable-admission-plugins', 'ServiceAccount',
      '--allow-privileged=true',
    ];
  }

  get #admin(): Identity {
    const admin = this.#identities[0];
    if (admin === undefined) throw new Error('no admin identity');
    return admin;
  }

  get #rest(): RestTarget {
    return { server: this.server, token: this.#admin.token, ca: this.#caPem };
  }

  get caPem(): string {
    if (this.#caPem === undefined) throw new Error('the control plane has not started');
    return this.#caPem;
  }

  get version(): string {
    if (this.#version === undefined) throw new Error('the control plane has not started');
    return this.#version;
  }

  get kubeConfig(): KubeConfig {
    this.#kubeConfig ??= kubeConfigFor(this.server, this.caPem, this.#admin);
    return this.#kubeConfig;
  }

  get kubeconfigPath(): string {
    return this.kubeconfigPathFor(ADMIN_USER.name, ADMIN_USER.groups);
  }

  get pids(): { etcd: number | undefined; apiServer: number | undefined } {
    return {
      etcd: this.#etcd?.running === true ? this.#etcd.pid : undefined,
      apiServer: this.#apiServer?.running === true ? this.#apiServer.pid : undefined,
    };
  }

  get apiServerLogPath(): string {
    return join(this.directory, `kube-apiserver.${Math.max(1, this.#apiServerStarts)}.log`);
  }

  #identity(user: string, groups: string[] | undefined): Identity {
    const found = this.#identities.find(
      (id) => id.name === user && (groups === undefined || sameGroups(id.groups, groups)),
    );
    if (found === undefined) {
      const available = this.#identities.map((id) => `${id.name} [${id.groups.join(', ')}]`);
      throw new UnknownIdentityError(user, groups, available);
    }
    return found;
  }

  tokenFor(user: string, groups?: string[]): KubeConfig {
    return kubeConfigFor(this.server, this.caPem, this.#identity(user, groups));
  }

  kubeconfigPathFor(user: string, groups?: string[]): string {
    const identity = this.#identity(user, groups);
    let path = this.#kubeconfigPaths.get(identity);
    if (path === undefined) {
      path = join(this.directory, `kubeconfig-${this.#kubeconfigPaths.size}-${identity.name}.yaml`);
      writeFileSync(path, kubeConfigFor(this.server, this.caPem, identity).exportConfig(), { mode: 0o600 });
      this.#kubeconfigPaths.set(identity, path);
    }
    return path;
  }

  async startEtcd(): Promise<void> {
    const etcd = new ManagedProcess('etcd', this.#binaries.etcd, this.#etcdArgs, this.etcdLogPath);
    this.#etcd = etcd;
    await this.#waitUntil(etcd, async () => {
      const response = await fetch(`${this.etcdEndpoint}/health`, { signal: AbortSignal.timeout(5_000) });
      const body: unknown = await response.json();
      return isRecord(body) && body.health === 'true' ? undefined : `health: ${JSON.stringify(body)}`;
    });
  }

  async startApiServer(): Promise<void> {
    if (this.#apiServer?.running === true) return;
    if (this.#etcd?.running !== true) throw new Error('etcd is not running; the control plane was closed or etcd died');
    this.#apiServerStarts++;
    const apiServer = new ManagedProcess(
      'kube-apiserver',
      this.#binaries.kubeApiserver,
      this.#apiServerArgs,
      this.apiServerLogPath,
    );
    this.#apiServer = apiServer;
    // Unverified until the apiserver has written its self-signed pair (done before it listens).
    const probe: RestTarget = { ...this.#rest, ca: undefined };
    await this.#waitUntil(apiServer, async () => {
      const response = await rawRequest(probe, 'GET', '/readyz');
      return response.status === 200 ? undefined : `/readyz ${response.status}: ${response.body.slice(-500)}`;
    });
    // apiserver.crt holds the leaf followed by its CA: the whole file is the client's CA bundle. It is
    // reused on restart (the apiserver only generates a pair when none exists in --cert-dir).
    this.#caPem = readFileSync(join(this.directory, 'certs', 'apiserver.crt'), 'utf8');
    const version = await requestJson(this.#rest, 'GET', '/version');
    if (!isRecord(version) || typeof version.gitVersion !== 'string') {
      throw new ControlPlaneStartError('kube-apiserver', 'malformed /version', apiServer.logPath, apiServer.logTail());
    }
    this.#version = version.gitVersion;
  }

  async stopApiServer(): Promise<void> {
    await this.#apiServer?.stop('SIGTERM', STOP_GRACE_MS);
  }

  async restartApiServer(): Promise<void> {
    await this.stopApiServer();
    await this.startApiServer();
  }

  async installCrds(paths: readonly string[]): Promise<void> {
    await installCrdFiles(this.#rest, paths);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#apiServer?.stop('SIGTERM', STOP_GRACE_MS);
      await this.#etcd?.stop('SIGTERM', STOP_GRACE_MS);
      // NUDGER_KEEP_CONTROL_PLANE=1 keeps the logs and etcd data of a failing run for inspection.
      if (process.env.NUDGER_KEEP_CONTROL_PLANE === '1')
        process.stderr.write(`# control plane kept in ${this.directory}\n`);
      else rmSync(this.directory, { recursive: true, force: true });
      this.#unregisterExitCleanup();
    })();
    return this.#closing;
  }

  /** Polls `check` (undefined = ready, else why not) until ready, the process exits, or time runs out. */
  async #waitUntil(server: ManagedProcess, check: () => Promise<string | undefined>): Promise<void> {
    const release = server.hold();
    try {
      await this.#pollUntilReady(server, check);
    } catch (error) {
      await server.stop('SIGKILL'); // a half-started server must not linger
      throw error;
    } finally {
      release();
    }
  }

  async #pollUntilReady(server: ManagedProcess, check: () => Promise<string | undefined>): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    let why: string;
    for (;;) {
      const exit = server.exitStatus;
      if (exit !== undefined) {
        throw new ControlPlaneStartError(server.name, describeExit(exit), server.logPath, server.logTail());
      }
      try {
        const notReady = await check();
        if (notReady === undefined) return;
        why = notReady;
      } catch (error) {
        why = error instanceof Error ? error.message : String(error);
      }
      if (Date.now() > deadline) {
        const reason = `not ready after ${START_TIMEOUT_MS / 1000} s (last: ${why})`;
        throw new ControlPlaneStartError(server.name, reason, server.logPath, server.logTail());
      }
      await delay(POLL_MS);
    }
  }
}

/** Starts etcd and kube-apiserver (and installs `options.crds`); on any failure stops what started. */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binaries = resolveControlPlaneBinaries(options.binDirectory ?? controlPlaneBinDirectory());
  const directory = mkdtempSync(join(tmpdir(), 'nudger-control-plane-'));
  let plane: LocalControlPlane | undefined;
  try {
    plane = new LocalControlPlane(binaries, directory, await freeLoopbackPorts(3), options.users ?? []);
    await plane.startEtcd();
    await plane.startApiServer();
    if (options.crds !== undefined && options.crds.length > 0) await plane.installCrds(options.crds);
    return plane;
  } catch (error) {
    if (plane === undefined) rmSync(directory, { recursive: true, force: true });
    else await plane.close();
    throw error;
  }
}
