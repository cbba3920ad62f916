// Events told once per fact (src/controllers/dispatch/once-events.ts): the API server keeps the
// memory across replicas and restarts; each process also remembers a while what it told, so a
// fact met on every nudge costs no request on every nudge (docs/decisions.md N49).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectClient } from '../../src/adapters/kubernetes/client.ts';
import { KubeApiError } from '../../src/adapters/kubernetes/errors.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { ONCE_MEMORY_MS, OnceEvents } from '../../src/controllers/dispatch/once-events.ts';

/** Creates Events, AlreadyExists for a name taken; `down` fails every create with a 503. */
function fakeApi() {
  const stored = new Map<string, KubeObject>();
  const api = { creates: 0, down: false, stored };
  const create = (_ref: unknown, object: KubeObject) => {
    api.creates += 1;
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    const target = { verb: 'create', resource: 'events', namespace, name };
    if (api.down) return Promise.reject(new KubeApiError(target, 503, 'ServiceUnavailable', 'down'));
    if (stored.has(`${namespace}/${name}`)) {
      return Promise.reject(new KubeApiError(target, 409, 'AlreadyExists', 'exists'));
    }
    stored.set(`${namespace}/${name}`, object);
    return Promise.resolve(object);
  };
  return { api, client: { create } as unknown as ObjectClient };
}

const component: KubeObject = { apiVersion: 'v1', kind: 'Component', metadata: { namespace: 'tenant', name: 'op' } };
const event = { type: 'Warning', reason: 'NudgeSettingUnsupported', message: 'labels: not on this forge' } as const;
const T0 = Date.parse('2025-01-15T10:00:00Z');

describe('OnceEvents', () => {
  it('tells a fact once, and asks the API server nothing more while it remembers', async () => {
    const { api, client } = fakeApi();
    let now = T0;
    const once = new OnceEvents(client, 'nudger-dispatch', () => now);
    assert.equal(await once.tell(component, ['fact'], event), true);
    now += ONCE_MEMORY_MS - 1;
    assert.equal(await once.tell(component, ['fact'], event), false);
    assert.equal(api.creates, 1);
    // Another fact, or the same fact of another object, is told.
    assert.equal(await once.tell(component, ['other'], event), true);
    assert.equal(await once.tell({ ...component, metadata: { namespace: 'b', name: 'op' } }, ['fact'], event), true);
    assert.equal(api.creates, 3);
  });

  it('asks again after a while: a fact another process told is found told, and an expired Event is told anew', async () => {
    const { api, client } = fakeApi();
    let now = T0;
    const first = new OnceEvents(client, 'nudger-dispatch', () => now);
    const second = new OnceEvents(client, 'nudger-dispatch', () => now);
    assert.equal(await first.tell(component, ['fact'], event), true);
    assert.equal(await second.tell(component, ['fact'], event), false, 'found told: another replica told it');
    assert.equal(await second.tell(component, ['fact'], event), false);
    assert.equal(api.creates, 2, 'found told is remembered too');
    now += ONCE_MEMORY_MS;
    api.stored.clear(); // the API server's Event TTL passed
    assert.equal(await first.tell(component, ['fact'], event), true);
    assert.equal(api.creates, 3);
  });

  it('remembers nothing of a failed telling: the next meeting tries again', async () => {
    const { api, client } = fakeApi();
    const once = new OnceEvents(client, 'nudger-dispatch', () => T0);
    api.down = true;
    await assert.rejects(once.tell(component, ['fact'], event), /503/);
    api.down = false;
    assert.equal(await once.tell(component, ['fact'], event), true);
    assert.equal(api.creates, 2);
  });
});
