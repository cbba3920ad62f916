// Existence checks for NudgeConfig admission come from the informer cache; a name the cache lacks
// costs at most one live GET, single-flight and rate-limited, never a LIST (issue 8, part 2 item 7).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListQuery } from '../../src/adapters/kubernetes/client.ts';
import { COMPONENTS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ListPage, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { ManualClock } from '../../src/runtime/clock.ts';
import { Store } from '../../src/runtime/store.ts';
import type { AdmissionDecision, AdmissionRequest } from '../../src/webhooks/admission.ts';
import { changeGroupValidator } from '../../src/webhooks/changegroup.ts';
import { CachedComponentLookup } from '../../src/webhooks/component-lookup.ts';
import { ComponentCheckUnavailableError, nudgeConfigValidator } from '../../src/webhooks/nudgeconfig.ts';
import { FakeObjectClient } from '../runtime/fakes.ts';

/** Records every API call by verb; GETs can be held open to observe single-flight. */
class RecordingClient extends FakeObjectClient {
  readonly verbs: string[] = [];
  holdGets: Promise<void> | undefined;

  override async get<T extends KubeObject>(ref: ResourceRef, namespace: string, name: string): Promise<T> {
    this.verbs.push(`get ${ref.plural}/${namespace}/${name}`);
    if (this.holdGets !== undefined) await this.holdGets;
    return super.get<T>(ref, namespace, name);
  }

  override list<T extends KubeObject>(ref: ResourceRef, query: ListQuery = {}): Promise<ListPage<T>> {
    this.verbs.push(`list ${ref.plural}/${query.namespace ?? ''}`);
    return super.list<T>(ref, query);
  }
}

function component(namespace: string, name: string): KubeObject {
  return { apiVersion: 'appstudio.redhat.com/v1alpha1', kind: 'Component', metadata: { namespace, name } };
}

/** The payments tenant: the cache holds two Components; a third exists on the API server only. */
function tenant(options: { perSecond?: number; burst?: number } = {}) {
  const store = new Store<KubeObject>();
  store.upsert(component('payments', 'payments-api'));
  store.upsert(component('payments', 'payments-bundle'));
  const client = new RecordingClient();
  for (const name of ['payments-api', 'payments-bundle', 'payments-worker']) {
    client.objects.set(`${COMPONENTS.plural}/payments/${name}`, component('payments', name));
  }
  const clock = new ManualClock();
  const lookup = new CachedComponentLookup(store, client, {
    clock,
    liveChecksPerSecond: options.perSecond ?? 2,
    liveCheckBurst: options.burst ?? 4,
  });
  return { store, client, clock, lookup, validate: nudgeConfigValidator(lookup) };
}

function review(
  nudges: { from: string; to: string }[],
  options: { namespace?: string; objectNamespace?: string; uid?: string } = {},
): AdmissionRequest {
  const namespace = options.namespace ?? 'payments';
  return {
    uid: options.uid ?? '0c9a7e51-payments',
    kind: { group: 'konflux-ci.dev', version: 'v1alpha1', kind: 'NudgeConfig' },
    resource: { group: 'konflux-ci.dev', version: 'v1alpha1', resource: 'nudgeconfigs' },
    name: 'nudge-config',
    namespace,
    operation: 'CREATE',
    userInfo: { username: 'system:serviceaccount:argocd:argocd-application-controller' },
    object: {
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace: options.objectNamespace ?? namespace },
      spec: { nudges },
    },
  };
}

const signal = new AbortController().signal;

function denial(decision: AdmissionDecision): { code: number | undefined; message: string } {
  if (decision.allowed) assert.fail('expected a denial');
  return { code: decision.code, message: decision.message };
}

describe('CachedComponentLookup', () => {
  it('answers cached names without calling the API server', async () => {
    const { client, lookup } = tenant();
    assert.deepEqual(await lookup.missing('payments', ['payments-api', 'payments-bundle']), new Set());
    assert.deepEqual(client.verbs, []);
  });

  it('confirms a name the cache lacks with one GET by name, never a LIST', async () => {
    const { client, lookup } = tenant();
    const missing = await lookup.missing('payments', ['payments-worker', 'payments-typo', 'payments-api']);
    assert.deepEqual(missing, new Set(['payments-typo']));
    assert.deepEqual(client.verbs.sort(), [
      'get components/payments/payments-typo',
      'get components/payments/payments-worker',
    ]);
  });

  it('shares one GET among concurrent askers of the same name', async () => {
    const { client, lookup } = tenant();
    let release = (): void => undefined;
    client.holdGets = new Promise((resolve) => {
      release = resolve;
    });
    const asks = Array.from({ length: 10 }, () => lookup.missing('payments', ['payments-worker']));
    release();
    for (const answer of await Promise.all(asks)) assert.deepEqual(answer, new Set());
    assert.deepEqual(client.verbs, ['get components/payments/payments-worker']);
  });

  it('refuses to guess once the live checks are spent, and checks again as tokens return', async () => {
    const { client, clock, lookup } = tenant({ perSecond: 2, burst: 4 });
    const names = Array.from({ length: 6 }, (_, i) => `payments-unknown-${String(i)}`);
    await assert.rejects(lookup.missing('payments', names), (error: unknown) => {
      assert.ok(error instanceof ComponentCheckUnavailableError);
      assert.deepEqual(error.names, ['payments-unknown-4', 'payments-unknown-5']);
      return true;
    });
    assert.equal(client.verbs.length, 4);
    clock.advance(1_000);
    assert.deepEqual(
      await lookup.missing('payments', ['payments-worker', 'payments-gone']),
      new Set(['payments-gone']),
    );
    assert.equal(client.verbs.length, 6);
  });
});

describe('NudgeConfig webhook under a flood of forged reviews', () => {
  it('makes at most the rate-limited number of API calls and still admits the real NudgeConfig', async () => {
    const { client, clock, validate } = tenant({ perSecond: 2, burst: 4 });
    // 50 forged reviews, each naming 100 Components that exist nowhere, in 5 s of manual time.
    let seconds = 0;
    for (let i = 0; i < 50; i += 1) {
      if (i % 10 === 0 && i > 0) {
        clock.advance(1_000);
        seconds += 1;
      }
      const nudges = Array.from({ length: 100 }, (_, j) => ({
        from: `forged-${String(i)}-${String(j)}`,
        to: 'payments-bundle',
      }));
      const decision = await validate(review(nudges, { uid: `forged-${String(i)}` }), signal);
      assert.equal(decision.allowed, false);
    }
    assert.ok(
      client.verbs.every((verb) => verb.startsWith('get ')),
      'no LIST',
    );
    assert.ok(
      client.verbs.length <= 4 + 2 * seconds,
      `${String(client.verbs.length)} API calls for a budget of ${String(4 + 2 * seconds)}`,
    );

    // The tenant's own NudgeConfig, all names cached: admitted with no API call.
    const before = client.verbs.length;
    const real = await validate(review([{ from: 'payments-api', to: 'payments-bundle' }]), signal);
    assert.equal(real.allowed, true);
    assert.equal(client.verbs.length, before);

    // One whose Component the cache has not seen yet: confirmed live once tokens are back.
    clock.advance(1_000);
    const fresh = await validate(review([{ from: 'payments-worker', to: 'payments-bundle' }]), signal);
    assert.equal(fresh.allowed, true);
    // A dangling name is still denied (422), once confirmed.
    const dangling = denial(await validate(review([{ from: 'payments-typo', to: 'payments-bundle' }]), signal));
    assert.equal(dangling.code, 422);
    assert.match(dangling.message, /payments-typo/);
  });

  it('denies with a retry message (429) when a name can be confirmed neither way', async () => {
    const { validate } = tenant({ perSecond: 1, burst: 1 });
    const nudges = Array.from({ length: 30 }, (_, j) => ({ from: `payments-new-${String(j)}`, to: 'payments-bundle' }));
    const { code, message } = denial(await validate(review(nudges), signal));
    assert.equal(code, 429);
    assert.match(message, /not found in the webhook's cache, and the live check is rate-limited; retry/);
    assert.match(message, /and 24 more/);
  });

  it('denies a ChangeGroup the same way when its nudged Component can be confirmed neither way', async () => {
    const { lookup } = tenant({ perSecond: 1, burst: 1 });
    await lookup.missing('payments', ['payments-spent']);
    const handler = changeGroupValidator({
      components: lookup,
      edges: { withoutEdge: () => Promise.resolve(new Set<string>()) },
      changeGroups: { inNamespace: () => [] },
    });
    const decision = await handler(
      {
        uid: '5d2f8c1a-payments-cg',
        kind: { group: 'appstudio.redhat.com', version: 'v1alpha1', kind: 'ChangeGroup' },
        resource: { group: 'appstudio.redhat.com', version: 'v1alpha1', resource: 'changegroups' },
        name: 'release-2026-11',
        namespace: 'payments',
        operation: 'CREATE',
        userInfo: { username: 'alice' },
        object: {
          apiVersion: 'appstudio.redhat.com/v1alpha1',
          kind: 'ChangeGroup',
          metadata: { name: 'release-2026-11', namespace: 'payments' },
          spec: { nudgedComponent: 'payments-new-bundle' },
        },
      },
      signal,
    );
    const { code, message } = denial(decision);
    assert.equal(code, 429);
    assert.match(message, /"payments-new-bundle" in namespace "payments" not found in the webhook's cache/);
  });

  it('answers only about the request namespace: a disagreeing object namespace is refused unread', async () => {
    const { client, validate } = tenant();
    const forged = review([{ from: 'secret-project', to: 'payments-bundle' }], {
      namespace: 'payments',
      objectNamespace: 'other-tenant',
    });
    const { code, message } = denial(await validate(forged, signal));
    assert.equal(code, 400);
    assert.match(message, /object\.metadata\.namespace "other-tenant" is not the request's namespace "payments"/);
    const unnamespaced = { ...review([{ from: 'payments-api', to: 'payments-bundle' }]) };
    delete (unnamespaced as { namespace?: string }).namespace;
    assert.equal(denial(await validate(unnamespaced, signal)).code, 400);
    assert.deepEqual(client.verbs, []);
  });
});
