import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatElapsed, parseTimeout } from '../../../src/domain/changegroup/duration.ts';

describe('parseTimeout', () => {
  it('reads Go durations of hours, minutes and seconds', () => {
    assert.deepEqual(parseTimeout('24h'), { ok: true, milliseconds: 86_400_000 });
    assert.deepEqual(parseTimeout('90m'), { ok: true, milliseconds: 5_400_000 });
    assert.deepEqual(parseTimeout('1h30m'), { ok: true, milliseconds: 5_400_000 });
    assert.deepEqual(parseTimeout('1m1m'), { ok: true, milliseconds: 120_000 });
  });

  it('refuses empty, zero, other units, fractions and overflow', () => {
    for (const text of ['', '0s', '0h0m', '1d', '1.5h', '-1h', 'h', '24 h', '9999999999999h']) {
      assert.equal(parseTimeout(text).ok, false, text);
    }
  });

  it('adds up its parts', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.nat(1000), (h, m, s) => {
        const result = parseTimeout(`${String(h)}h${String(m)}m${String(s)}s`);
        const total = ((h * 60 + m) * 60 + s) * 1000;
        assert.deepEqual(
          result,
          total === 0 ? { ok: false, problem: 'must be longer than zero' } : { ok: true, milliseconds: total },
        );
      }),
    );
  });
});

describe('formatElapsed', () => {
  it('reads as an age in whole minutes, at most two units', () => {
    const minute = 60_000;
    const cases: readonly (readonly [number, string])[] = [
      [-5 * minute, '<1m'],
      [0, '<1m'],
      [59_999, '<1m'],
      [minute, '1m'],
      [59 * minute + 59_999, '59m'],
      [60 * minute, '1h'],
      [65 * minute, '1h5m'],
      [(23 * 60 + 59) * minute, '23h59m'],
      [24 * 60 * minute, '1d'],
      [(3 * 24 + 4) * 60 * minute + 59 * minute, '3d4h'],
      [400 * 24 * 60 * minute, '400d'],
    ];
    for (const [ms, text] of cases) assert.equal(formatElapsed(ms), text, String(ms));
  });
});
