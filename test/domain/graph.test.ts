import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildNudgeGraphs, edgeKey, formatOrigin, originFieldPath } from '../../src/domain/graph.ts';
import { component, components, manifestSet, nudgeConfig } from './fixtures.ts';

function only<T>(map: ReadonlyMap<string, T>, key: string): T {
  const value = map.get(key);
  assert.ok(value !== undefined, `no entry for ${JSON.stringify(key)}`);
  return value;
}

describe('buildNudgeGraphs', () => {
  it('merges NudgeConfig entries and build-nudges-ref items, each with its origin, in declaration order', () => {
    const config = nudgeConfig('tenant', [
      ['a', 'b'],
      { from: 'b', to: 'c', mode: 'validated', gatingGroup: 'frontend' },
    ]);
    const legacy = component('tenant', 'c', ['d']);
    const graph = only(buildNudgeGraphs(manifestSet({ components: [legacy], nudgeConfigs: [config] })), 'tenant');

    assert.deepEqual(
      graph.edges.map((e) => [e.from, e.to, e.mode, e.gatingGroup, e.origin.via, e.origin.index]),
      [
        ['a', 'b', 'immediate', undefined, 'NudgeConfig', 0],
        ['b', 'c', 'validated', 'frontend', 'NudgeConfig', 1],
        ['c', 'd', 'immediate', undefined, 'build-nudges-ref', 0],
      ],
    );
    const [first, , last] = graph.edges;
    assert.ok(first !== undefined && last !== undefined);
    assert.equal(first.origin.object, config.ref);
    assert.deepEqual(first.origin.location, config.entries[0]?.location);
    assert.equal(last.origin.object, legacy.ref);
    assert.deepEqual(last.origin.location, legacy.buildNudgesRef[0]?.location);
    assert.ok(graph.edges.every((e) => e.namespace === 'tenant'));
    assert.ok(!('gatingGroup' in first), 'no gatingGroup key when none was written');
  });

  it('turns an entry with an invalid mode into an immediate edge so that cycles through it are still found', () => {
    const graph = only(
      buildNudgeGraphs(manifestSet({ nudgeConfigs: [nudgeConfig('ns', [{ from: 'a', to: 'b', mode: 'later' }])] })),
      'ns',
    );
    assert.deepEqual(
      graph.edges.map((e) => e.mode),
      ['immediate'],
    );
  });

  it('counts both NudgeConfig flavours and misnamed or repeated NudgeConfigs', () => {
    const set = manifestSet({
      nudgeConfigs: [
        nudgeConfig('ns', [['a', 'b']]),
        nudgeConfig('ns', [['b', 'c']], { flavour: 'upstream-v1beta2' }),
        nudgeConfig('ns', [['c', 'd']], { name: 'other' }),
      ],
    });
    assert.deepEqual(only(buildNudgeGraphs(set), 'ns').nodes, ['a', 'b', 'c', 'd']);
  });

  it('keys graphs by namespace, the unset namespace included, in namespace order', () => {
    const set = manifestSet({
      components: [component('zeta', 'z'), component('', 'u')],
      nudgeConfigs: [nudgeConfig('alpha', [['a', 'b']])],
    });
    assert.deepEqual([...buildNudgeGraphs(set).keys()], ['', 'alpha', 'zeta']);
  });

  it('knows the components of a namespace only when the input held some', () => {
    const set = manifestSet({
      components: [component('with', 'a'), component('with', 'a', ['b'], { file: 'dup.yaml' })],
      nudgeConfigs: [nudgeConfig('without', [['a', 'b']])],
    });
    const graphs = buildNudgeGraphs(set);
    assert.equal(only(graphs, 'without').components, undefined);
    const known = only(graphs, 'with').components;
    assert.deepEqual([...(known?.keys() ?? [])], ['a']);
    assert.equal(known?.get('a')?.location.file, 'with/a.yaml', 'the first document of a name wins');
  });

  it('lists every name, components without edges included, sorted by code point', () => {
    const set = manifestSet({
      components: components('ns', ['lonely', 'B-upper']),
      nudgeConfigs: [nudgeConfig('ns', [['zed', 'alpha']])],
    });
    assert.deepEqual(only(buildNudgeGraphs(set), 'ns').nodes, ['B-upper', 'alpha', 'lonely', 'zed']);
  });

  it('gives distinct sorted successors and predecessors, counting an edge declared twice once', () => {
    const set = manifestSet({
      components: [component('ns', 'a', ['c', 'b'])],
      nudgeConfigs: [
        nudgeConfig('ns', [
          ['a', 'c'],
          ['d', 'c'],
          ['a', 'b'],
        ]),
      ],
    });
    const graph = only(buildNudgeGraphs(set), 'ns');
    assert.equal(graph.edges.length, 5);
    assert.deepEqual(graph.successors('a'), ['b', 'c']);
    assert.deepEqual(graph.predecessors('c'), ['a', 'd']);
    assert.deepEqual(graph.successors('c'), []);
    assert.deepEqual(graph.predecessors('a'), []);
    assert.deepEqual(graph.successors('nobody'), []);
  });

  it('returns an empty map for an empty input', () => {
    assert.equal(buildNudgeGraphs(manifestSet({})).size, 0);
  });
});

describe('edgeKey', () => {
  it('is equal for equal ends and different for any differing part, whatever characters names hold', () => {
    const key = edgeKey({ namespace: 'ns', from: 'a', to: 'b' });
    assert.equal(key, edgeKey({ namespace: 'ns', from: 'a', to: 'b' }));
    assert.notEqual(key, edgeKey({ namespace: 'ns', from: 'b', to: 'a' }));
    assert.notEqual(key, edgeKey({ namespace: '', from: 'a', to: 'b' }));
    assert.notEqual(
      edgeKey({ namespace: 'n', from: 's/a', to: 'b' }),
      edgeKey({ namespace: 'n/s', from: 'a', to: 'b' }),
    );
  });
});

describe('formatOrigin', () => {
  it('names the object and the field path of a NudgeConfig entry or a build-nudges-ref item', () => {
    const set = manifestSet({
      components: [component('ns', 'a', ['x', 'y'])],
      nudgeConfigs: [nudgeConfig('', [['p', 'q']])],
    });
    const graphs = buildNudgeGraphs(set);
    const [configEdge] = only(graphs, '').edges;
    const [, refEdge] = only(graphs, 'ns').edges;
    assert.ok(configEdge !== undefined && refEdge !== undefined);
    assert.equal(formatOrigin(configEdge.origin), 'NudgeConfig nudge-config spec.nudges[0]');
    assert.equal(formatOrigin(refEdge.origin), 'Component ns/a spec.build-nudges-ref[1]');
    assert.equal(originFieldPath(refEdge.origin), 'spec.build-nudges-ref[1]');
  });
});
