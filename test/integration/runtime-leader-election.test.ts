// Leader election on a real coordination.k8s.io/v1 Lease with short timings (lease 3 s, renew 2 s,
// retry 0.5 s). Timing claims are checked on the Lease's own renewTime/acquireTime fields, not on
// the test's wall clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { KubeLeaseLock } from '../../src/adapters/kubernetes/lease-lock.ts';
import { LEASES } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { LeaderElector } from '../../src/runtime/leader-election.ts';
import { startControlPlane, type ControlPlane } from './harness/control-plane.ts';

const LEASE_MS = 3000;
const RETRY_MS = 500;

interface Lease extends KubeObject {
  spec: {
    holderIdentity?: string;
    renewTime?: string;
    acquireTime?: string;
    leaseTransitions?: number;
    leaseDurationSeconds?: number;
  };
}

interface Replica {
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly done: Promise<void>;
  leading: AbortSignal | undefined;
}

async function waitFor(condition: () => boolean, what: string, deadlineMs = 30_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`gave up waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('leader election against a real kube-apiserver', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  const replicas: Replica[] = [];
  let bothLeading = false;
  let sampler: NodeJS.Timeout | undefined;

  function start(identity: string, leaseName: string, releaseOnCancel: boolean): Replica {
    const elector = new LeaderElector({
      lock: new KubeLeaseLock(client, 'default', leaseName),
      identity,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: 2000,
      retryPeriodMs: RETRY_MS,
      releaseOnCancel,
    });
    const stop = new AbortController();
    const replica: Replica = { elector, stop, leading: undefined, done: Promise.resolve() };
    const done = elector.run(stop.signal, {
      onStartedLeading: (leading) => {
        replica.leading = leading;
      },
    });
    const started = Object.assign(replica, { done });
    replicas.push(started);
    return started;
  }

  const lease = (name: string): Promise<Lease> => client.get<Lease>(LEASES, 'default', name);

  before(async () => {
    cp = await startControlPlane();
    client = new KubeClient(cp.kubeConfig);
    // "Exactly one leads" is an invariant: sample it for the whole file.
    sampler = setInterval(() => {
      const groups = new Map<string, number>();
      for (const r of replicas) {
        if (!r.elector.isLeader()) continue;
        const group = r.elector.identity.split('-')[0] ?? '';
        groups.set(group, (groups.get(group) ?? 0) + 1);
      }
      if ([...groups.values()].some((count) => count > 1)) bothLeading = true;
    }, 10);
  });

  after(async () => {
    clearInterval(sampler);
    for (const r of replicas) r.stop.abort();
    await Promise.all(replicas.map((r) => r.done));
    client.close();
    await cp.close();
  });

  it('elects one leader; a killed leader is replaced once its lease expires', async () => {
    const a = start('kill-a', 'kill', false);
    await waitFor(() => a.elector.isLeader(), 'a to lead');
    const b = start('kill-b', 'kill', false);
    // Let b observe a renewing a few times.
    const firstRenew = (await lease('kill')).spec.renewTime;
    let renewed = firstRenew;
    while (renewed === firstRenew) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      renewed = (await lease('kill')).spec.renewTime;
    }
    assert.equal(b.elector.isLeader(), false);

    a.stop.abort(); // a dies without releasing
    await a.done;
    const abandoned = await lease('kill');
    assert.equal(abandoned.spec.holderIdentity, 'kill-a');
    await waitFor(() => b.elector.isLeader(), 'b to take over');
    const taken = await lease('kill');
    assert.equal(taken.spec.holderIdentity, 'kill-b');
    assert.equal(taken.spec.leaseTransitions, (abandoned.spec.leaseTransitions ?? 0) + 1);
    const gapMs = Date.parse(taken.spec.acquireTime ?? '') - Date.parse(abandoned.spec.renewTime ?? '');
    assert.ok(
      gapMs >= LEASE_MS,
      `b waited for the lease to expire (took over ${String(gapMs)} ms after a's last renewal)`,
    );
    assert.ok(
      gapMs <= LEASE_MS + 3 * RETRY_MS + 1000,
      `b took over within the lease period plus a retry (${String(gapMs)} ms)`,
    );
    assert.equal(bothLeading, false, 'never two leaders at once');
  });

  it('releases on clean shutdown so the takeover does not wait for expiry', async () => {
    const a = start('clean-a', 'clean', true);
    await waitFor(() => a.elector.isLeader(), 'a to lead');
    const b = start('clean-b', 'clean', true);
    await waitFor(() => !b.elector.isLeader() && a.elector.isLeader(), 'both running');
    // Read while a still holds it: b may take a released lease within one retry, before any read
    // after the release could see it empty, so the release is proven by the takeover time instead.
    const held = await lease('clean');
    assert.equal(held.spec.holderIdentity, 'clean-a');
    a.stop.abort();
    await a.done;
    assert.equal(a.leading?.aborted, true);
    await waitFor(() => b.elector.isLeader(), 'b to take over');
    const taken = await lease('clean');
    assert.equal(taken.spec.holderIdentity, 'clean-b');
    // a renewed at or after `held`, so a takeover that waited for expiry would come at least
    // LEASE_MS after it; sooner means a released the lease.
    const gapMs = Date.parse(taken.spec.acquireTime ?? '') - Date.parse(held.spec.renewTime ?? '');
    assert.ok(gapMs < LEASE_MS, `takeover ${String(gapMs)} ms after a's renewal, before the lease would have expired`);
    assert.equal(bothLeading, false, 'never two leaders at once');
  });
});
