// Two `nudger manager` processes with leader election on a real kube-apiserver: exactly one runs
// the controllers; SIGKILL it (no release, as in a crash) and the other takes over once the lease
// expires. Who reconciles is read from each process's own /metrics, as an operator would.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { COMPONENTS, LEASES, NAMESPACES, NUDGE_CONFIGS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import { builtCli } from '../cli/run-cli.ts';
import {
  NUDGER_CRDS,
  UPSTREAM_CRDS,
  generateServingCert,
  startControlPlane,
  type ControlPlane,
} from './harness/control-plane.ts';
import { eventually } from './wait.ts';

const LEASE_MS = 3000;
const RETRY_MS = 500;
const NAMESPACE = 'ha';

interface ManagerProcess {
  readonly child: ChildProcess;
  identity: string;
  metricsPort: number;
}

let plane: ControlPlane;
let client: KubeClient;
let certDir: string;
const managers: ManagerProcess[] = [];

function startManagerProcess(): Promise<ManagerProcess> {
  const child = spawn(
    process.execPath,
    [
      builtCli,
      'manager',
      '--kubeconfig',
      plane.kubeconfigPath,
      '--leader-elect',
      '--leader-election-namespace',
      'default',
      '--leader-elect-lease-duration',
      `${String(LEASE_MS)}ms`,
      '--leader-elect-renew-deadline',
      '2s',
      '--leader-elect-retry-period',
      `${String(RETRY_MS)}ms`,
      '--webhook-port',
      '0',
      '--health-port',
      '0',
      '--metrics-port',
      '0',
      // Read as an operator would, without a token: this test is about leadership, not access.
      '--metrics-auth',
      'none',
      '--webhook-cert-dir',
      certDir,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const started = new Promise<ManagerProcess>((resolve, reject) => {
    const lines = createInterface({ input: child.stderr });
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; identity?: string; metricsPort?: number };
        if (entry.msg === 'manager started' && entry.identity !== undefined && entry.metricsPort !== undefined) {
          resolve({ child, identity: entry.identity, metricsPort: entry.metricsPort });
        }
      } catch {
        // not a log line of ours
      }
    });
    child.once('exit', (code) => {
      reject(new Error(`manager exited with ${String(code)} before starting`));
    });
  });
  return started;
}

async function reconciles(manager: ManagerProcess): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${String(manager.metricsPort)}/metrics`);
  const text = await response.text();
  let total = 0;
  for (const match of text.matchAll(/^controller_runtime_reconcile_total\{([^}]*)\} (\d+)$/gm)) {
    if (match[1]?.includes('controller="nudgeconfig-stale-references"') === true) total += Number(match[2]);
  }
  return total;
}

interface LeaseObject extends KubeObject {
  spec?: { holderIdentity?: string; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

const lease = () => client.get<LeaseObject>(LEASES, 'default', 'nudger-manager-leader');

async function validStatus(): Promise<string | undefined> {
  const config = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS, NAMESPACE, 'nudge-config');
  return config.status?.conditions?.find((c) => c.type === 'Valid')?.status;
}

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, ...NUDGER_CRDS] });
  client = new KubeClient(plane.kubeConfig);
  const cert = generateServingCert();
  certDir = mkdtempSync(join(tmpdir(), 'nudger-ha-certs-'));
  writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
  writeFileSync(join(certDir, 'tls.key'), cert.keyPem);
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  for (const name of ['a', 'b']) {
    await client.create(COMPONENTS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'Component',
      metadata: { name, namespace: NAMESPACE },
      spec: { componentName: name, application: 'app', source: { git: { url: `https://example.com/${name}` } } },
    } as KubeObject);
  }
  managers.push(...(await Promise.all([startManagerProcess(), startManagerProcess()])));
});

after(async () => {
  for (const m of managers) m.child.kill('SIGKILL');
  client.close();
  await plane.close();
  rmSync(certDir, { recursive: true, force: true });
});

describe('two managers with leader election', () => {
  it('exactly one reconciles; after a SIGKILL the other takes over within the lease period', async () => {
    await client.create(NUDGE_CONFIGS, {
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace: NAMESPACE },
      spec: { nudges: [{ from: 'a', to: 'b' }] },
    } as KubeObject);
    await eventually('Valid=True', async () => ((await validStatus()) === 'True' ? true : undefined));

    const first = await lease();
    const leader = managers.find((m) => m.identity === first.spec?.holderIdentity);
    const follower = managers.find((m) => m !== leader);
    assert.ok(
      leader !== undefined && follower !== undefined,
      `lease holder ${String(first.spec?.holderIdentity)} is one of the managers`,
    );
    assert.ok((await reconciles(leader)) > 0, 'the leader reconciled');
    assert.equal(await reconciles(follower), 0, 'the follower never reconciled');

    leader.child.kill('SIGKILL');
    const lastRenew = Date.parse((await lease()).spec?.renewTime ?? '');
    await client.delete(COMPONENTS, NAMESPACE, 'b');
    await eventually('Valid=False after takeover', async () => ((await validStatus()) === 'False' ? true : undefined));

    const taken = await lease();
    assert.equal(taken.spec?.holderIdentity, follower.identity);
    assert.equal(taken.spec.leaseTransitions, (first.spec?.leaseTransitions ?? 0) + 1);
    assert.ok((await reconciles(follower)) > 0, 'the new leader reconciled');
    // From the Lease's own record: the new term began once the old lease expired, not much later.
    const acquired = Date.parse(taken.spec.acquireTime ?? '');
    assert.ok(
      acquired - lastRenew <= LEASE_MS + 3 * RETRY_MS + 1000,
      `took over ${String(acquired - lastRenew)} ms after the last renewal`,
    );
  });
});
