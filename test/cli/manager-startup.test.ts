// `nudger manager` refuses a bad start-up as one line and exit 2, with nothing left listening or
// connecting (issue 8, part 2 item 5: it used to print the error and run on, its watches retrying
// for ever). The real CLI is spawned; its kubeconfig points at a port nothing answers on, so any
// attempt to connect would show up as a retry in the debug log.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateServingCert } from '../integration/harness/control-plane.ts';
import { repoRoot } from './run-cli.ts';

const CLI = join(repoRoot, 'src', 'cli', 'main.ts');
/** Only a guard against a hang: a healthy refusal takes well under a second. */
const HANG_GUARD_MS = 60_000;

interface Exit {
  readonly code: number | null;
  readonly stderr: string;
  readonly hung: boolean;
}

function runManager(args: readonly string[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'manager', '--log-level', 'debug', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // No in-cluster configuration may be picked up, whatever the machine running the test.
      env: { ...process.env, KUBERNETES_SERVICE_HOST: '', KUBECONFIG: '' },
    });
    const chunks: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    let hung = false;
    const guard = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_GUARD_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stderr: Buffer.concat(chunks).toString('utf8'), hung });
    });
  });
}

/** A port something else already listens on. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { port: address.port, server };
}

function assertRefused(exit: Exit, message: RegExp): void {
  assert.equal(exit.hung, false, `still running after ${String(HANG_GUARD_MS)} ms:\n${exit.stderr}`);
  assert.equal(exit.code, 2, exit.stderr);
  const lines = exit.stderr.trim().split('\n');
  assert.match(lines.at(-1) ?? '', message);
  assert.ok(!lines.at(-1)?.includes('    at '), 'a stack trace');
  // Nothing tried the API server (a watch would log its retries at debug level).
  assert.doesNotMatch(exit.stderr, /list\/watch|became leader|manager started/);
}

describe('nudger manager start-up errors', () => {
  let dir: string;
  let kubeconfig: string;
  let certDir: string;
  let unreachable: { port: number; server: Server };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nudger-manager-startup-'));
    unreachable = await occupiedPort();
    kubeconfig = join(dir, 'kubeconfig');
    // A plain TCP listener that never answers TLS: reaching it would hang a request, not fail it.
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${String(unreachable.port)}"}}]`,
        'users: [{name: u, user: {token: not-a-real-token}}]',
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        'current-context: c',
        '',
      ].join('\n'),
    );
    certDir = join(dir, 'certs');
    const cert = generateServingCert();
    mkdirSync(certDir);
    writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
    writeFileSync(join(certDir, 'tls.key'), cert.keyPem);
  });

  after(() => {
    unreachable.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const base = (): string[] => [
    '--kubeconfig',
    kubeconfig,
    '--webhook-port',
    '0',
    '--health-port',
    '0',
    '--metrics-port',
    '0',
  ];

  it('exits 2 naming --webhook-cert-dir when the directory does not exist', async () => {
    const missing = join(dir, 'no-such-dir');
    const exit = await runManager([...base(), '--webhook-cert-dir', missing]);
    assertRefused(exit, new RegExp(`^nudger: --webhook-cert-dir ${missing}: no such directory$`));
    assert.doesNotMatch(exit.stderr, /listening/);
  });

  it('exits 2 naming --nudge-dispatch or --nudge-executor when the value is neither allowed spelling', async () => {
    const dispatch = await runManager([...base(), '--webhook-cert-dir', certDir, '--nudge-dispatch', 'yes']);
    assertRefused(dispatch, /^nudger: --nudge-dispatch: "yes" is not true or false$/);
    const executor = await runManager([...base(), '--webhook-cert-dir', certDir, '--nudge-executor', 'Renovate']);
    // Commander's own refusal of a choice: its line, then where to find the usage.
    assert.equal(executor.code, 2, executor.stderr);
    assert.match(
      executor.stderr,
      /--nudge-executor <name>' argument 'Renovate' is invalid\. Allowed choices are direct, renovate/,
    );
  });

  it('exits 2 when the directory holds no certificate pair', async () => {
    const exit = await runManager([...base(), '--webhook-cert-dir', dir]);
    assertRefused(exit, /^nudger: --webhook-cert-dir .*: cannot read tls\.crt\/tls\.key: ENOENT$/);
  });

  it('exits 2 naming both flags when the lease duration is not above the renew deadline', async () => {
    const exit = await runManager([
      ...base(),
      '--webhook-cert-dir',
      certDir,
      '--leader-elect',
      '--leader-elect-lease-duration',
      '10s',
      '--leader-elect-renew-deadline',
      '15s',
    ]);
    assertRefused(
      exit,
      /^nudger: --leader-elect-lease-duration 10s: must be greater than --leader-elect-renew-deadline 15s /,
    );
    assert.doesNotMatch(exit.stderr, /listening/);
  });

  it('exits 2 when the renew deadline does not outlast 1.2 retry periods', async () => {
    const exit = await runManager([
      ...base(),
      '--webhook-cert-dir',
      certDir,
      '--leader-elect-renew-deadline',
      '2s',
      '--leader-elect-retry-period',
      '2s',
    ]);
    assertRefused(exit, /--leader-elect-renew-deadline 2s: must be greater than 1\.2 × --leader-elect-retry-period 2s/);
  });

  it('exits 2 on a port out of range, and on the webhook and health servers sharing a port', async () => {
    const range = await runManager([...base(), '--webhook-cert-dir', certDir, '--health-port', '70000']);
    assertRefused(range, /^nudger: --health-port: "70000" is not a port number$/);
    const shared = await runManager([
      ...base(),
      '--webhook-cert-dir',
      certDir,
      '--webhook-port',
      '18443',
      '--health-port',
      '18443',
    ]);
    assertRefused(shared, /^nudger: --webhook-port 18443 and --health-port 18443: /);
  });

  it('exits 2 naming --kubeconfig when its file cannot be loaded', async () => {
    const missing = join(dir, 'no-such-kubeconfig');
    const exit = await runManager(['--kubeconfig', missing, '--webhook-cert-dir', certDir]);
    assertRefused(exit, new RegExp(`^nudger: --kubeconfig ${missing}: cannot load: `));
    assert.doesNotMatch(exit.stderr, /listening/);
  });

  it('exits 2 when the webhook port is taken, before connecting to the API server', async () => {
    const taken = await occupiedPort();
    try {
      const exit = await runManager([...base(), '--webhook-cert-dir', certDir, '--webhook-port', String(taken.port)]);
      assertRefused(exit, new RegExp(`^nudger: --webhook-port ${String(taken.port)}: the port is already in use`));
    } finally {
      taken.server.close();
    }
  });

  it('exits 2 when the health port is taken, closing the webhook server it had already opened', async () => {
    const taken = await occupiedPort();
    try {
      const exit = await runManager([...base(), '--webhook-cert-dir', certDir, '--health-port', String(taken.port)]);
      // The webhook server did listen; a process that left it open would never exit (the guard).
      assertRefused(exit, new RegExp(`^nudger: --health-port ${String(taken.port)}: the port is already in use`));
      assert.match(exit.stderr, /webhook server listening/);
    } finally {
      taken.server.close();
    }
  });

  it('exits 2 when the dashboard port is taken, closing the servers it had already opened', async () => {
    const taken = await occupiedPort();
    try {
      const exit = await runManager([...base(), '--webhook-cert-dir', certDir, '--dashboard-port', String(taken.port)]);
      assertRefused(exit, new RegExp(`^nudger: --dashboard-port ${String(taken.port)}: the port is already in use`));
      assert.match(exit.stderr, /webhook server listening/);
    } finally {
      taken.server.close();
    }
  });

  it('exits 2 naming --dashboard-cert-dir when it holds no certificate pair', async () => {
    const exit = await runManager([
      ...base(),
      '--webhook-cert-dir',
      certDir,
      '--dashboard-port',
      '0',
      '--dashboard-cert-dir',
      dir,
    ]);
    assertRefused(exit, new RegExp(`^nudger: --dashboard-cert-dir ${dir}: cannot read tls.crt/tls.key`));
  });
});
