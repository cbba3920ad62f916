import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONFIG_MAPS, CORE_EVENTS } from '../../src/adapters/kubernetes/resources.ts';
import { ManualClock } from '../../src/runtime/clock.ts';
import { EventRecorder, MAX_EVENT_MESSAGE_BYTES, truncateUtf8 } from '../../src/runtime/events.ts';
import { addFinalizer, removeFinalizer, updateStatus } from '../../src/runtime/status.ts';
import { configMap, FakeObjectClient, status, type ConfigMap } from './fakes.ts';

const subject = {
  apiVersion: 'konflux-ci.dev/v1alpha1',
  kind: 'NudgeConfig',
  metadata: { namespace: 'team', name: 'nudge-config', uid: 'u1' },
};

function events(client: FakeObjectClient): { count: number; message: string; reason: string }[] {
  return [...client.objects.entries()]
    .filter(([key]) => key.startsWith(`${CORE_EVENTS.plural}/`))
    .map(([, e]) => e as unknown as { count: number; message: string; reason: string });
}

describe('EventRecorder', () => {
  it('folds repeats into one Event with a growing count, and keeps distinct events apart', async () => {
    const client = new FakeObjectClient();
    const clock = new ManualClock();
    const recorder = new EventRecorder({ client, component: 'nudger', clock });
    recorder.event(subject, 'Warning', 'StaleReferences', 'component a is missing');
    recorder.event(subject, 'Warning', 'StaleReferences', 'component a is missing');
    clock.advance(1000);
    recorder.event(subject, 'Warning', 'StaleReferences', 'component a is missing');
    recorder.event(subject, 'Normal', 'AllComponentsExist', 'all good');
    await recorder.flush();
    const written = events(client).sort((x, y) => x.reason.localeCompare(y.reason));
    assert.equal(written.length, 2);
    assert.equal(written[1]?.count, 3);
    assert.equal(written[0]?.count, 1);
    assert.equal(client.calls.filter((c) => c.verb === 'create').length, 2);
    assert.equal(client.calls.filter((c) => c.verb === 'patch').length, 2);
    const created = client.calls.find((c) => c.verb === 'create')?.body as { involvedObject: unknown; source: unknown };
    assert.deepEqual(created.involvedObject, {
      ...subject.metadata,
      apiVersion: subject.apiVersion,
      kind: subject.kind,
    });
  });

  it('starts a new Event when the old one expired, and after the aggregation window', async () => {
    const client = new FakeObjectClient();
    const clock = new ManualClock();
    const recorder = new EventRecorder({ client, component: 'nudger', clock, aggregationWindowMs: 5000 });
    recorder.event(subject, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    for (const key of client.objects.keys()) client.objects.delete(key); // the API server's TTL
    recorder.event(subject, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    assert.equal(events(client).length, 1);
    clock.advance(6000);
    recorder.event(subject, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    assert.equal(events(client).length, 2);
  });

  it('truncates messages to 1 KiB of UTF-8 and never throws when the write fails', async () => {
    const client = new FakeObjectClient();
    client.fault = () => status(403, 'Forbidden');
    const recorder = new EventRecorder({ client, component: 'nudger' });
    recorder.event(subject, 'Warning', 'X', 'é'.repeat(2000));
    await recorder.flush();
    const body = client.calls[0]?.body as { message: string };
    assert.ok(Buffer.byteLength(body.message) <= MAX_EVENT_MESSAGE_BYTES);
    assert.ok(body.message.endsWith('...'));
    assert.equal(truncateUtf8('short', 1024), 'short');
  });
});

describe('updateStatus', () => {
  it('re-reads and retries on conflict, then writes', async () => {
    const client = new FakeObjectClient();
    await client.create(CONFIG_MAPS, configMap('ns', 'a', ''));
    let conflicts = 2;
    const original = client.fault;
    client.fault = (verb, ...rest) => {
      if (verb === 'replaceStatus' && conflicts-- > 0) return status(409, 'Conflict');
      return original?.(verb, ...rest);
    };
    const written = await updateStatus<ConfigMap>(
      client,
      CONFIG_MAPS,
      { namespace: 'ns', name: 'a' },
      (cm) => ({ ...cm, data: { seen: 'yes' } }),
      { initialDelayMs: 1 },
    );
    assert.deepEqual(written?.data, { seen: 'yes' });
    assert.equal(client.calls.filter((c) => c.verb === 'get').length, 3);
  });

  it('gives up after maxAttempts conflicts with the conflict error', async () => {
    const client = new FakeObjectClient();
    await client.create(CONFIG_MAPS, configMap('ns', 'a', ''));
    client.fault = (verb) => (verb === 'replaceStatus' ? status(409, 'Conflict') : undefined);
    await assert.rejects(
      updateStatus<ConfigMap>(client, CONFIG_MAPS, { namespace: 'ns', name: 'a' }, (cm) => cm, {
        maxAttempts: 3,
        initialDelayMs: 1,
      }),
      /replaceStatus configmaps ns\/a: 409 Conflict/,
    );
    assert.equal(client.calls.filter((c) => c.verb === 'replaceStatus').length, 3);
  });

  it('writes nothing when the mutation returns undefined, and resolves undefined for a deleted object', async () => {
    const client = new FakeObjectClient();
    await client.create(CONFIG_MAPS, configMap('ns', 'a', ''));
    await updateStatus<ConfigMap>(client, CONFIG_MAPS, { namespace: 'ns', name: 'a' }, () => undefined);
    assert.equal(client.calls.filter((c) => c.verb === 'replaceStatus').length, 0);
    assert.equal(await updateStatus(client, CONFIG_MAPS, { namespace: 'ns', name: 'gone' }, (o) => o), undefined);
  });
});

describe('finalizers', () => {
  it('adds and removes with a resourceVersion guard, recomputing after a conflict', async () => {
    const client = new FakeObjectClient();
    const created = await client.create(CONFIG_MAPS, configMap('ns', 'a', ''));
    // Someone else adds their finalizer after we read the object.
    await client.patch(CONFIG_MAPS, 'ns', 'a', 'merge', { metadata: { finalizers: ['other.io/x'] } });
    const added = await addFinalizer(client, CONFIG_MAPS, created, 'nudger.konflux-ci.dev/cleanup', {
      initialDelayMs: 1,
    });
    assert.ok(added !== undefined);
    assert.deepEqual(added.metadata?.finalizers, ['other.io/x', 'nudger.konflux-ci.dev/cleanup']);
    const again = await addFinalizer(client, CONFIG_MAPS, added, 'nudger.konflux-ci.dev/cleanup');
    assert.equal(again, added, 'already present: no write');
    const removed = await removeFinalizer(client, CONFIG_MAPS, added, 'nudger.konflux-ci.dev/cleanup');
    assert.deepEqual(removed?.metadata?.finalizers, ['other.io/x']);
    await client.delete(CONFIG_MAPS, 'ns', 'a');
    assert.equal(await removeFinalizer(client, CONFIG_MAPS, added, 'other.io/x'), undefined);
  });
});
