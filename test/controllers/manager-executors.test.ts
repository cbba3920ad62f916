// One executor set per manager (src/controllers/dispatch/default-executors.ts): the dispatcher and the
// paths that hand held nudges back (src/controllers/redispatch.ts) fire through the same instances,
// and with dispatch off there are none, so a partial hold is held whole (docs/decisions.md N26).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { managerExecutors } from '../../src/controllers/dispatch/default-executors.ts';
import { managerRedispatcher, Redispatcher } from '../../src/controllers/redispatch.ts';
import type { ControllerSettings } from '../../src/controllers/settings.ts';
import { Store } from '../../src/runtime/store.ts';
import { FakeObjectClient } from '../runtime/fakes.ts';
import { recordingExecutors } from './dispatch-env.ts';

const client = new FakeObjectClient();
const sources = { components: new Store(), nudgeConfigs: new Store() };

describe('managerExecutors', () => {
  it('gives one set per settings object, shared by every caller', () => {
    const settings: ControllerSettings = { dispatch: { enabled: true, defaultExecutor: 'direct' } };
    const first = managerExecutors(client, settings);
    assert.ok(first?.direct !== undefined && first.renovate !== undefined);
    assert.equal(managerExecutors(client, settings), first);
    assert.notEqual(managerExecutors(client, { dispatch: { enabled: true, defaultExecutor: 'direct' } }), first);
  });

  it('gives the executors the settings name, and none with dispatch off', () => {
    const executors = recordingExecutors(['renovate']);
    assert.equal(
      managerExecutors(client, { dispatch: { enabled: true, defaultExecutor: 'renovate', executors } }),
      executors,
    );
    assert.equal(managerExecutors(client, { dispatch: { enabled: false, defaultExecutor: 'direct' } }), undefined);
    assert.equal(managerExecutors(client, {}), undefined);
  });
});

describe('managerRedispatcher', () => {
  it('fires through the manager executors; none with dispatch off (the whole run is held)', () => {
    const on: ControllerSettings = { dispatch: { enabled: true, defaultExecutor: 'direct' } };
    assert.ok(managerRedispatcher(client, on, sources) instanceof Redispatcher);
    assert.equal(
      managerRedispatcher(client, { dispatch: { enabled: false, defaultExecutor: 'direct' } }, sources),
      undefined,
    );
  });
});
