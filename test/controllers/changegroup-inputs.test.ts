// What the ChangeGroup controller reads from the informer caches: who nudges the target, the
// promoted digests, and which nudge PipelineRuns a ChangeGroup holds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import {
  changeGroupsHolding,
  heldNudges,
  nudgingComponentsOf,
  promotedDigests,
  RELEASED_TARGETS_ANNOTATION,
} from '../../src/controllers/changegroup/inputs.ts';
import { COMPONENTS_KIND, NUDGE_CONFIGS_KIND } from '../../src/cluster/watched-kinds.ts';
import { HELD_TARGETS_ANNOTATION } from '../../src/domain/changegroup/hold-decision.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ClusterComponent } from '../../src/schema/component.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import { DIGEST, nudgeRun } from '../domain/changegroup/fixtures.ts';

const NS = 'my-tenant';

function component(name: string, extra: { refs?: unknown; promoted?: unknown; namespace?: string } = {}): KubeObject {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace: extra.namespace ?? NS },
    spec: { componentName: name, ...(extra.refs === undefined ? {} : { 'build-nudges-ref': extra.refs }) },
    ...(extra.promoted === undefined ? {} : { status: { lastPromotedImage: extra.promoted } }),
  } as KubeObject;
}

function nudgeConfig(nudges: unknown, name = 'nudge-config', namespace = NS): KubeObject {
  return {
    apiVersion: 'nudger.konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name, namespace },
    spec: { nudges },
  } as KubeObject;
}

/** The caches as the informers fill them: each object decoded, those that do not decode left out. */
function stores(configs: KubeObject[], components: KubeObject[]) {
  const nudgeConfigs = new Store<ClusterNudgeConfig>();
  for (const c of configs) {
    const decoded = NUDGE_CONFIGS_KIND.decode(c);
    if (decoded.ok) nudgeConfigs.upsert(decoded.object);
  }
  const componentStore = new Store<ClusterComponent>();
  for (const c of components) {
    const decoded = COMPONENTS_KIND.decode(c);
    if (decoded.ok) componentStore.upsert(decoded.object);
  }
  return { nudgeConfigs, components: componentStore };
}

describe('nudgingComponentsOf', () => {
  it('merges NudgeConfig entries and build-nudges-ref, sorted and deduplicated', () => {
    const { nudgeConfigs, components } = stores(
      [
        nudgeConfig([
          { from: 'operand-b', to: 'bundle' },
          { from: 'operand-a', to: 'bundle' },
          { from: 'operand-a', to: 'other' },
          { from: 'unrelated', to: 'elsewhere' },
        ]),
      ],
      [
        component('operator', { refs: ['bundle', 'other'] }),
        component('operand-a', { refs: ['bundle'] }),
        component('loner', { refs: ['other'] }),
        component('bundle'),
      ],
    );
    assert.deepEqual(nudgingComponentsOf(NS, 'bundle', nudgeConfigs, components), [
      'operand-a',
      'operand-b',
      'operator',
    ]);
    assert.deepEqual(nudgingComponentsOf(NS, 'other', nudgeConfigs, components), ['loner', 'operand-a', 'operator']);
  });

  it('never lists the target itself', () => {
    const { nudgeConfigs, components } = stores(
      [
        nudgeConfig([
          { from: 'bundle', to: 'bundle' },
          { from: 'a', to: 'bundle' },
        ]),
      ],
      [component('bundle', { refs: ['bundle'] })],
    );
    assert.deepEqual(nudgingComponentsOf(NS, 'bundle', nudgeConfigs, components), ['a']);
  });

  it('reads only the namespace asked for and only the NudgeConfig singleton', () => {
    const { nudgeConfigs, components } = stores(
      [
        nudgeConfig([{ from: 'x', to: 'bundle' }], 'nudge-config', 'other-ns'),
        nudgeConfig([{ from: 'y', to: 'bundle' }], 'not-the-singleton'),
      ],
      [component('z', { refs: ['bundle'], namespace: 'other-ns' })],
    );
    assert.deepEqual(nudgingComponentsOf(NS, 'bundle', nudgeConfigs, components), []);
  });

  it('never sees malformed entries and references: the informer keeps their objects out of the cache', () => {
    const { nudgeConfigs, components } = stores(
      [nudgeConfig([{ from: 'ok', to: 'bundle' }, null, 'x', { from: 3, to: 'bundle' }, { from: 'no-to' }])],
      [component('str', { refs: 'bundle' }), component('list', { refs: [7, 'bundle'] }), component('good')],
    );
    assert.equal(nudgeConfigs.size, 0);
    assert.deepEqual(components.keys(), [`${NS}/good`]);
    assert.deepEqual(nudgingComponentsOf(NS, 'bundle', nudgeConfigs, components), []);
    const empty = stores([nudgeConfig('not a list')], []);
    assert.deepEqual(nudgingComponentsOf(NS, 'bundle', empty.nudgeConfigs, empty.components), []);
  });
});

describe('promotedDigests', () => {
  it('takes the digest of repo@sha256:<64 hex> only', () => {
    const { components } = stores(
      [],
      [
        component('a', { promoted: `quay.io/org/a@${DIGEST('1')}` }),
        component('b', { promoted: `quay.io/org/b:v1@${DIGEST('2')}` }),
        component('port', { promoted: `registry:5000/org/p@${DIGEST('3')}` }),
        component('tag', { promoted: 'quay.io/org/tag:latest' }),
        component('short', { promoted: 'quay.io/org/short@sha256:abc' }),
        component('upper', { promoted: `quay.io/org/u@sha256:${'A'.repeat(64)}` }),
        component('long', { promoted: `quay.io/org/l@${DIGEST('4')}0` }),
        component('bare', { promoted: DIGEST('5') }),
        component('number', { promoted: 7 }),
        component('none'),
      ],
    );
    const names = ['a', 'b', 'port', 'tag', 'short', 'upper', 'long', 'bare', 'number', 'none', 'missing'];
    assert.deepEqual(promotedDigests(NS, names, components), { a: DIGEST('1'), b: DIGEST('2'), port: DIGEST('3') });
  });

  it('answers only for the names asked for, in the namespace asked for', () => {
    const { components } = stores(
      [],
      [
        component('a', { promoted: `q/a@${DIGEST('1')}` }),
        component('b', { promoted: `q/b@${DIGEST('2')}`, namespace: 'x' }),
      ],
    );
    assert.deepEqual(promotedDigests(NS, ['b'], components), {});
    assert.deepEqual(promotedDigests(NS, ['a', 'b'], components), { a: DIGEST('1') });
  });
});

function run(name: string, annotations: Record<string, string>, options: { namespace?: string; source?: string } = {}) {
  const object = nudgeRun({
    name,
    targets: 'bundle other',
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(options.source === undefined ? {} : { source: options.source }),
    extraAnnotations: annotations,
  }) as KubeObject;
  return object;
}

/** A list response's item: no apiVersion or kind. */
function listed(object: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = object;
  return rest;
}

describe('heldNudges', () => {
  const cg = { name: 'bundle-update', namespace: NS, nudgedComponent: 'bundle' };

  it('returns the nudges whose held-targets name <target>=<changegroup>, in name order', () => {
    const runs = new Store<KubeObject>();
    runs.upsert(run('r3', { [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update' }));
    runs.upsert(run('r1', { [HELD_TARGETS_ANNOTATION]: 'other=cg2  bundle=bundle-update' }));
    runs.upsert(listed(run('r2', { [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update' })));
    // Same ChangeGroup name for another target, another ChangeGroup for this target, no annotation.
    runs.upsert(run('x1', { [HELD_TARGETS_ANNOTATION]: 'other=bundle-update' }));
    runs.upsert(run('x2', { [HELD_TARGETS_ANNOTATION]: 'bundle=another-cg' }));
    runs.upsert(run('x3', { [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update-2' }));
    runs.upsert(run('x4', {}));
    runs.upsert(run('x5', { [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update' }, { namespace: 'other-ns' }));
    const held = heldNudges(runs, cg);
    assert.deepEqual(
      held.map((n) => n.pipelineRun.name),
      ['r1', 'r2', 'r3'],
    );
    assert.equal(held[0]?.nudgingComponent, 'operand-a');
    assert.equal(held[0].nudgingPipeline, 'operand-a-on-push-x7k2p');
  });

  it('skips a pair already released, but not a release of another pair', () => {
    const runs = new Store<KubeObject>();
    runs.upsert(
      run('released', {
        [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update',
        [RELEASED_TARGETS_ANNOTATION]: 'other=cg2 bundle=bundle-update',
      }),
    );
    runs.upsert(
      run('kept', {
        [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update other=cg2',
        [RELEASED_TARGETS_ANNOTATION]: 'other=cg2',
      }),
    );
    assert.deepEqual(
      heldNudges(runs, cg).map((n) => n.pipelineRun.name),
      ['kept'],
    );
  });

  it('skips runs that are not readable nudges', () => {
    const runs = new Store<KubeObject>();
    const notNudge = run('plain', { [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update' });
    notNudge.metadata = { ...notNudge.metadata, labels: {} };
    runs.upsert(notNudge);
    runs.upsert(run('bad-source', { [HELD_TARGETS_ANNOTATION]: 'bundle=bundle-update' }, { source: 'Not_A_Name' }));
    assert.deepEqual(heldNudges(runs, cg), []);
  });
});

describe('changeGroupsHolding', () => {
  it('names each ChangeGroup of the held-targets pairs once', () => {
    const r = run('r', { [HELD_TARGETS_ANNOTATION]: 'bundle=cg1 other=cg2\tthird=cg1' });
    assert.deepEqual(changeGroupsHolding(r).sort(), ['cg1', 'cg2']);
  });

  it('names none without the annotation, or for an empty ChangeGroup name', () => {
    assert.deepEqual(changeGroupsHolding(run('r', {})), []);
    assert.deepEqual(changeGroupsHolding({ metadata: { name: 'bare' } }), []);
    assert.deepEqual(changeGroupsHolding(run('r', { [HELD_TARGETS_ANNOTATION]: 'bundle=' })), []);
  });

  it('ignores a malformed entry without "="', () => {
    assert.deepEqual(changeGroupsHolding(run('r', { [HELD_TARGETS_ANNOTATION]: 'garbage bundle=cg1' })), ['cg1']);
  });
});
