import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sha256Hex } from '../../../src/domain/pr-description/sha256.ts';

const reference = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex', () => {
  it('matches the FIPS 180-4 test vectors', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('agrees with node:crypto across block boundaries and on any text', () => {
    for (const length of [55, 56, 63, 64, 65, 119, 120, 1000])
      assert.equal(sha256Hex('x'.repeat(length)), reference('x'.repeat(length)));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        assert.equal(sha256Hex(text), reference(text));
      }),
      { numRuns: 300 },
    );
  });
});
