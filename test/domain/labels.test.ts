import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isDns1123Label, labelProblem } from '../../src/domain/labels.ts';
import { dns1123LabelProblem } from '../../src/schema/names.ts';

describe('isDns1123Label', () => {
  it('accepts labels and rejects the edge cases of the rule', () => {
    for (const name of ['a', '0', 'a-b', 'a--b', 'x'.repeat(63), 'web-1'])
      assert.equal(isDns1123Label(name), true, name);
    for (const name of ['', '-a', 'a-', 'A', 'a_b', 'a.b', 'x'.repeat(64), 'a\n', 'é']) {
      assert.equal(isDns1123Label(name), false, JSON.stringify(name));
    }
  });

  it('agrees with dns1123LabelProblem on any string', () => {
    const labelish = fc.string({ unit: fc.constantFrom('a', 'z', '0', '9', '-', 'A', '_', '.', '\n'), maxLength: 70 });
    fc.assert(
      fc.property(fc.oneof(labelish, fc.string({ unit: 'binary', maxLength: 70 })), (name) => {
        assert.equal(isDns1123Label(name), dns1123LabelProblem(name) === undefined);
        assert.equal(labelProblem(name), dns1123LabelProblem(name));
      }),
      { numRuns: 2000 },
    );
  });
});
