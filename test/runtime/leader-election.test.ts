import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeLeaseLock } from '../../src/adapters/kubernetes/lease-lock.ts';
import { LEASES } from '../../src/adapters/kubernetes/resources.ts';
import {
  decideLease,
  formatMicroTime,
  LeaderElectionConfigError,
  LeaderElector,
  type LeaseRecord,
} from '../../src/runtime/leader-election.ts';
import { FakeObjectClient, status, waitFor } from './fakes.ts';

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);
const held: LeaseRecord = {
  holderIdentity: 'other',
  leaseDurationSeconds: 15,
  acquireTime: formatMicroTime(T0 - 60_000),
  renewTime: formatMicroTime(T0),
  leaseTransitions: 3,
};

describe('decideLease', () => {
  it('creates the lease when there is none', () => {
    const decision = decideLease(undefined, T0, T0, 'me', 15_000);
    assert.deepEqual(decision, {
      action: 'create',
      record: {
        holderIdentity: 'me',
        leaseDurationSeconds: 15,
        acquireTime: '2025-01-01T12:00:00.000000Z',
        renewTime: '2025-01-01T12:00:00.000000Z',
        leaseTransitions: 0,
      },
    });
  });

  it('waits while another holder’s lease is unexpired, by the local observation time', () => {
    assert.deepEqual(decideLease({ record: held, resourceVersion: '7' }, T0, T0 + 14_999, 'me', 15_000), {
      action: 'wait',
      holder: 'other',
    });
  });

  it('takes over an expired lease and counts the transition', () => {
    const decision = decideLease({ record: held, resourceVersion: '7' }, T0, T0 + 15_000, 'me', 15_000);
    assert.ok(decision.action === 'update', decision.action);
    assert.equal(decision.takeover, true);
    assert.equal(decision.resourceVersion, '7');
    assert.equal(decision.record.holderIdentity, 'me');
    assert.equal(decision.record.leaseTransitions, 4);
    assert.equal(decision.record.acquireTime, formatMicroTime(T0 + 15_000));
  });

  it('renews its own lease keeping acquireTime and transitions', () => {
    const mine = { ...held, holderIdentity: 'me' };
    const decision = decideLease({ record: mine, resourceVersion: '8' }, T0, T0 + 2_000, 'me', 15_000);
    assert.ok(decision.action === 'update');
    assert.equal(decision.takeover, false);
    assert.equal(decision.record.acquireTime, held.acquireTime);
    assert.equal(decision.record.renewTime, formatMicroTime(T0 + 2_000));
    assert.equal(decision.record.leaseTransitions, 3);
  });

  it('takes a released lease (no holder) at once', () => {
    const released = { ...held, holderIdentity: '', leaseDurationSeconds: 1 };
    const decision = decideLease({ record: released, resourceVersion: '9' }, T0, T0, 'me', 15_000);
    assert.ok(decision.action === 'update');
    assert.equal(decision.takeover, true);
  });
});

interface Replica {
  readonly elector: LeaderElector;
  readonly stop: AbortController;
  readonly done: Promise<void>;
  leading: AbortSignal | undefined;
  stopped: boolean;
  readonly leaders: string[];
}

function replica(client: FakeObjectClient, identity: string, releaseOnCancel = true): Replica {
  const elector = new LeaderElector({
    lock: new KubeLeaseLock(client, 'system', 'nudger'),
    identity,
    leaseDurationMs: 400,
    renewDeadlineMs: 250,
    retryPeriodMs: 40,
    releaseOnCancel,
  });
  const stop = new AbortController();
  const r: Replica = {
    elector,
    stop,
    leading: undefined,
    stopped: false,
    leaders: [],
    done: Promise.resolve(),
  };
  const done = elector.run(stop.signal, {
    onStartedLeading: (leading) => {
      r.leading = leading;
    },
    onStoppedLeading: () => {
      r.stopped = true;
    },
    onNewLeader: (id) => r.leaders.push(id),
  });
  return Object.assign(r, { done });
}

function lease(client: FakeObjectClient): LeaseRecord & { resourceVersion?: string } {
  const object = client.objects.get(`${LEASES.plural}/system/nudger`) as
    { spec: LeaseRecord; metadata: { resourceVersion: string } } | undefined;
  assert.ok(object !== undefined, 'the Lease exists');
  return { ...object.spec, resourceVersion: object.metadata.resourceVersion };
}

describe('LeaderElector', () => {
  it('rejects timings client-go would reject', () => {
    const lock = new KubeLeaseLock(new FakeObjectClient(), 'ns', 'l');
    assert.throws(
      () => new LeaderElector({ lock, identity: 'a', leaseDurationMs: 10, renewDeadlineMs: 10 }),
      LeaderElectionConfigError,
    );
    assert.throws(
      () => new LeaderElector({ lock, identity: 'a', renewDeadlineMs: 2000, retryPeriodMs: 2000 }),
      LeaderElectionConfigError,
    );
    assert.throws(() => new LeaderElector({ lock, identity: '' }), LeaderElectionConfigError);
  });

  it('elects exactly one of two replicas; a crashed leader is replaced after expiry', async () => {
    const client = new FakeObjectClient();
    const a = replica(client, 'a', false);
    await waitFor(() => a.elector.isLeader(), 'a to lead');
    const b = replica(client, 'b', false);
    await waitFor(() => b.leaders.includes('a'), 'b to see a');
    assert.equal(b.elector.isLeader(), false);

    const before = lease(client);
    a.stop.abort(); // a "crashes": stops renewing, does not release
    await a.done;
    assert.equal(lease(client).holderIdentity, 'a', 'no release on crash');
    await waitFor(() => b.elector.isLeader(), 'b to take over');
    const after = lease(client);
    assert.equal(after.holderIdentity, 'b');
    assert.equal(after.leaseTransitions, before.leaseTransitions + 1);
    b.stop.abort();
    await b.done;
  });

  it('releases on clean shutdown so the other replica takes over without waiting for expiry', async () => {
    const client = new FakeObjectClient();
    const a = replica(client, 'a');
    await waitFor(() => a.elector.isLeader(), 'a to lead');
    const b = replica(client, 'b');
    await waitFor(() => b.leaders.includes('a'), 'b to see a');
    a.stop.abort();
    await a.done;
    assert.equal(a.leading?.aborted, true, 'the leading signal aborted before release');
    assert.equal(a.stopped, true);
    const released = lease(client);
    assert.equal(released.holderIdentity, '');
    assert.equal(released.leaseDurationSeconds, 1);
    await waitFor(() => b.elector.isLeader(), 'b to take over');
    // b acquired within one retry period of the release: its acquireTime is not a lease later.
    const taken = lease(client);
    const gapMs = Date.parse(taken.acquireTime ?? '') - Date.parse(released.renewTime ?? '');
    assert.ok(gapMs < 400, `takeover ${String(gapMs)} ms after release, before a lease duration`);
    b.stop.abort();
    await b.done;
  });

  it('steps down when it cannot renew within the renew deadline', async () => {
    const client = new FakeObjectClient();
    const a = replica(client, 'a');
    await waitFor(() => a.elector.isLeader(), 'a to lead');
    client.fault = (verb) => (verb === 'replace' ? status(503, 'ServiceUnavailable') : undefined);
    await a.done;
    assert.equal(a.elector.isLeader(), false);
    assert.equal(a.leading?.aborted, true);
    assert.equal(a.stopped, true);
  });

  it('treats a conflicting write as a failed round, not an error', async () => {
    const client = new FakeObjectClient();
    let conflicts = 2;
    client.fault = (verb) => (verb === 'create' && conflicts-- > 0 ? status(409, 'AlreadyExists') : undefined);
    const a = replica(client, 'a');
    await waitFor(() => a.elector.isLeader(), 'a to lead after the conflicts');
    a.stop.abort();
    await a.done;
  });
});
