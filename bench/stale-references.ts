// Reconciles per second of the stale-reference controller against a real kube-apiserver: N
// namespaces, each with a NudgeConfig and two Components. Measured twice: the initial burst after
// the manager starts (every NudgeConfig gets its first `Valid` condition), then a churn wave (one
// Component deleted in every namespace; every NudgeConfig turns `Valid=False`).
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { KubeClient } from '../src/adapters/kubernetes/client.ts';
import { COMPONENTS, NAMESPACES, NUDGE_CONFIGS } from '../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../src/adapters/kubernetes/types.ts';
import type { ClusterNudgeConfig } from '../src/schema/nudgeconfig.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane } from '../test/integration/harness/control-plane.ts';
import { startTestManager } from '../test/integration/manager-fixture.ts';

async function allValid(client: KubeClient, status: 'True' | 'False', count: number): Promise<boolean> {
  const page = await client.list<ClusterNudgeConfig>(NUDGE_CONFIGS, {});
  return (
    page.items.filter((c) => c.status?.conditions?.find((x) => x.type === 'Valid')?.status === status).length === count
  );
}

async function waitAll(client: KubeClient, status: 'True' | 'False', count: number): Promise<number> {
  const start = performance.now();
  while (!(await allValid(client, status, count))) await delay(20);
  return performance.now() - start;
}

export async function benchStaleReferences(namespaces = 200): Promise<string> {
  const plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, ...NUDGER_CRDS] });
  const client = new KubeClient(plane.kubeConfig);
  try {
    for (let i = 0; i < namespaces; i += 1) {
      const namespace = `tenant-${String(i)}`;
      await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      for (const name of ['a', 'b']) {
        await client.create(COMPONENTS, {
          apiVersion: 'appstudio.redhat.com/v1alpha1',
          kind: 'Component',
          metadata: { name, namespace },
          spec: { componentName: name, application: 'app', source: { git: { url: 'https://example.com/x' } } },
        } as KubeObject);
      }
      await client.create(NUDGE_CONFIGS, {
        apiVersion: 'konflux-ci.dev/v1alpha1',
        kind: 'NudgeConfig',
        metadata: { name: 'nudge-config', namespace },
        spec: { nudges: [{ from: 'a', to: 'b' }] },
      } as KubeObject);
    }
    const started = performance.now();
    const manager = await startTestManager(plane.kubeConfig, { logLevel: 'error' });
    await waitAll(client, 'True', namespaces);
    const burstMs = performance.now() - started;
    const churnStart = performance.now();
    await Promise.all(
      Array.from({ length: namespaces }, (_, i) => client.delete(COMPONENTS, `tenant-${String(i)}`, 'b')),
    );
    await waitAll(client, 'False', namespaces);
    const churnMs = performance.now() - churnStart;
    await manager.stop();
    const rate = (ms: number): string => (namespaces / (ms / 1000)).toFixed(0);
    return `stale-reference controller on a real kube-apiserver, ${String(namespaces)} NudgeConfigs (1 worker): initial burst ${rate(burstMs)} reconciles/s (${burstMs.toFixed(0)} ms incl. cache sync), churn wave ${rate(churnMs)} reconciles/s (${churnMs.toFixed(0)} ms incl. deletes)`;
  } finally {
    client.close();
    await plane.close();
  }
}

if (import.meta.main) console.log(await benchStaleReferences());
