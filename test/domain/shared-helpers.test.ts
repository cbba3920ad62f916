// The small helpers every layer shares (one definition each): order, JSON object test, object names,
// JSON Pointer escaping and condition merging.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareStrings } from '../../src/domain/compare.ts';
import { mergeCondition } from '../../src/domain/conditions.ts';
import { escapeJsonPointerToken } from '../../src/domain/json-patch.ts';
import { formatObjectKey } from '../../src/domain/object-key.ts';
import { isRecord } from '../../src/domain/records.ts';

describe('shared domain helpers', () => {
  it('compareStrings sorts by code unit, not by locale', () => {
    assert.deepEqual(['b', 'B', 'a', 'ä', 'A', 'a'].sort(compareStrings), ['A', 'B', 'a', 'a', 'b', 'ä']);
    assert.equal(compareStrings('x', 'x'), 0);
  });

  it('isRecord accepts objects only', () => {
    assert.equal(isRecord({}), true);
    for (const value of [null, undefined, [], 'x', 1, true]) assert.equal(isRecord(value), false, String(value));
  });

  it('formatObjectKey leaves out an empty namespace', () => {
    assert.equal(formatObjectKey({ namespace: 'tenant', name: 'web' }), 'tenant/web');
    assert.equal(formatObjectKey({ namespace: '', name: 'node-1' }), 'node-1');
  });

  it('escapeJsonPointerToken escapes ~ before /', () => {
    assert.equal(escapeJsonPointerToken('a~/b'), 'a~0~1b');
  });

  it('mergeCondition keeps lastTransitionTime while the status holds and replaces by type', () => {
    const first = mergeCondition(undefined, { type: 'Ready', status: 'True', reason: 'Done', message: '' }, 't1', 1);
    const again = mergeCondition(first, { type: 'Ready', status: 'True', reason: 'Still', message: 'x' }, 't2', 2);
    assert.deepEqual(again, [
      { type: 'Ready', status: 'True', reason: 'Still', message: 'x', lastTransitionTime: 't1', observedGeneration: 2 },
    ]);
    const flipped = mergeCondition(again, { type: 'Ready', status: 'False', reason: 'Lost', message: '' }, 't3', 2);
    assert.equal(flipped[0]?.lastTransitionTime, 't3');
  });
});
