// A real OCI distribution registry on loopback (docs/decisions.md N40), for the sandbox's kpack
// stand-in and for the tests: Debian's docker-registry, started with a configuration written here,
// filesystem storage in a temp directory, on a port the kernel picks (read back from the registry's
// JSON log, so two registries never race for a port), ready once `GET /v2/` answers.
//
//   const registry = await startLocalRegistry();
//   after(() => registry.stop());
//   await pushImage(`${registry.host}/apps/my-app:latest`, { labels, exposedPorts: [8080] });
import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './control-plane/paths.ts';
import { describeExit, ManagedProcess, onExitCleanup } from './control-plane/processes.ts';

export interface LocalRegistryOptions {
  /** The docker-registry binary; default NUDGER_REGISTRY_BIN, then scripts/provision-registry.sh. */
  readonly binary?: string;
  /**
   * htpasswd lines (`user:<bcrypt hash>`): the registry then wants HTTP Basic auth for everything
   * but answers 401 with a Basic challenge first, as a password-protected registry does.
   */
  readonly htpasswd?: string;
}

export interface LocalRegistry {
  /** `127.0.0.1:<port>`: the host part of image references. */
  readonly host: string;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Temp directory holding the configuration, the storage and the log. */
  readonly directory: string;
  readonly logPath: string;
  /** SIGTERM (SIGKILL after 10 s), wait, remove the directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** The registry did not start, or its binary cannot be found. */
export class RegistryStartError extends Error {
  override readonly name = 'RegistryStartError';
  readonly reason: string;
  readonly logTail: string;

  constructor(reason: string, logTail = '') {
    super(
      `local OCI registry did not start: ${reason}` +
        (logTail === '' ? '' : `. Last lines of its log:\n${logTail}`) +
        '\nSet NUDGER_REGISTRY_BIN or run `bash scripts/provision-registry.sh` (docs/decisions.md N40).',
    );
    this.reason = reason;
    this.logTail = logTail;
  }
}

const PROVISION_SCRIPT = join(REPO_ROOT, 'scripts', 'provision-registry.sh');

/** NUDGER_REGISTRY_BIN, else what the provisioning script prints (cached after the first run). */
export function registryBinary(fromEnv: string | undefined = process.env.NUDGER_REGISTRY_BIN): string {
  let binary = fromEnv ?? '';
  if (binary === '') {
    try {
      const out = execFileSync('bash', [PROVISION_SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      binary = out.trim().split('\n').at(-1) ?? '';
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
      throw new RegistryStartError(`NUDGER_REGISTRY_BIN is unset and ${PROVISION_SCRIPT} failed: ${reason}`);
    }
  }
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    throw new RegistryStartError(`${binary === '' ? '(no path)' : binary} is not an executable docker-registry`);
  }
  return binary;
}

function configYaml(storage: string, htpasswdPath: string | undefined): string {
  // JSON is YAML: no YAML library needed, and every value is quoted as JSON quotes it.
  return JSON.stringify({
    version: 0.1,
    log: { level: 'info', formatter: 'json', accesslog: { disabled: true } },
    storage: { filesystem: { rootdirectory: storage }, delete: { enabled: true } },
    // Port 0: the kernel picks, the log says which.
    http: { addr: '127.0.0.1:0', secret: 'nudger-local-registry' },
    ...(htpasswdPath === undefined
      ? {}
      : { auth: { htpasswd: { realm: 'nudger-local-registry', path: htpasswdPath } } }),
  });
}

/** The `listening on 127.0.0.1:<port>` line of the JSON log, once there. */
function listeningAddress(logPath: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(logPath, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const match = /"msg":"listening on (127\.0\.0\.1:\d+)"/.exec(line);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

const delay = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

export async function startLocalRegistry(options: LocalRegistryOptions = {}): Promise<LocalRegistry> {
  const binary = options.binary ?? registryBinary();
  const directory = mkdtempSync(join(tmpdir(), 'nudger-registry-'));
  const unregister = onExitCleanup(() => {
    rmSync(directory, { recursive: true, force: true });
  });
  const logPath = join(directory, 'registry.log');
  const configPath = join(directory, 'config.yml');
  let htpasswdPath: string | undefined;
  if (options.htpasswd !== undefined) {
    htpasswdPath = join(directory, 'htpasswd');
    writeFileSync(htpasswdPath, options.htpasswd.endsWith('\n') ? options.htpasswd : `${options.htpasswd}\n`, {
      mode: 0o600,
    });
  }
  writeFileSync(configPath, configYaml(join(directory, 'storage'), htpasswdPath));
  const child = new ManagedProcess('docker-registry', binary, ['serve', configPath], logPath);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await child.stop('SIGTERM', 10_000);
    rmSync(directory, { recursive: true, force: true });
    unregister();
  };
  const release = child.hold();
  try {
    // Bounded by count: about 30 s at 50 ms a step, generous for a binary that starts in < 100 ms.
    for (let attempt = 0; attempt < 600; attempt++) {
      if (!child.running) {
        throw new RegistryStartError(describeExit(child.exitStatus ?? { code: null, signal: null }), child.logTail());
      }
      const address = listeningAddress(logPath);
      if (address !== undefined) {
        const url = `http://${address}`;
        const answer = await fetch(`${url}/v2/`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
        await answer?.body?.cancel();
        // 200 open, 401 when htpasswd auth is on: either way the API is up.
        if (answer !== undefined && (answer.status === 200 || answer.status === 401)) {
          return { host: address, url, directory, logPath, stop };
        }
      }
      await delay(50);
    }
    throw new RegistryStartError('no answer from GET /v2/ after 30 s', child.logTail());
  } catch (error) {
    await stop();
    throw error;
  } finally {
    release();
  }
}
