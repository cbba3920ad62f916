// The dispatcher's done-marker: exact text, round trips, and every way a value can fail to read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  BUILD_ENTRY,
  DISPATCH_MARKER_ANNOTATION,
  MarkerError,
  formatMarkerTime,
  isFinal,
  isSettled,
  parseMarker,
  parseMarkerTime,
  reasonToken,
  serializeMarker,
  withEntries,
  type DispatchMarker,
  type MarkerEntry,
  type TargetState,
} from '../../../src/domain/nudge/dispatch-marker.ts';

const T = Date.parse('2025-01-15T10:00:00Z');

function read(text: string): DispatchMarker {
  const reading = parseMarker(text);
  assert.ok(reading.ok, reading.ok ? '' : reading.problem.message);
  return reading.marker;
}

function problemOf(text: string): string {
  const reading = parseMarker(text);
  assert.equal(reading.ok, false, `${text} should not read`);
  assert.ok(!reading.ok);
  assert.equal(reading.problem.annotation, DISPATCH_MARKER_ANNOTATION);
  return reading.problem.message;
}

describe('dispatch marker text', () => {
  it('writes every state in the documented form, sorted by target', () => {
    const marker = withEntries(undefined, [
      { name: 'operator', state: { kind: 'retry', failures: 2, notBefore: T + 180_000, reason: 'forge-unavailable' } },
      { name: 'bundle', state: { kind: 'pullRequest' } },
      { name: 'catalog', state: { kind: 'held', changeGroup: 'bundle.update-2' } },
      { name: 'docs', state: { kind: 'failed', reason: 'credentials-missing' } },
      { name: 'gone', state: { kind: 'skipped', reason: 'target-not-found' } },
      { name: 'holder', state: { kind: 'holding', changeGroup: 'cg' } },
      { name: 'in-flight', state: { kind: 'firing', attempt: 1, startedAt: T } },
    ]);
    const text = serializeMarker(marker);
    assert.equal(
      text,
      'v1 bundle=pullRequest catalog=held:bundle.update-2 docs=failed:credentials-missing gone=skipped:target-not-found ' +
        'holder=holding:cg in-flight=firing:1:20250115T100000Z operator=retry:2:20250115T100300Z:forge-unavailable',
    );
    assert.deepEqual(read(text), marker);
  });

  it('the build entry stands alone and says why the build nudged nothing', () => {
    const text = serializeMarker({
      entries: [{ name: BUILD_ENTRY, state: { kind: 'skipped', reason: 'not-succeeded' } }],
    });
    assert.equal(text, 'v1 *=skipped:not-succeeded');
    assert.match(problemOf('v1 *=skipped:not-succeeded a=pullRequest'), /stands alone/);
    assert.match(problemOf('v1 *=pullRequest'), /can only be skipped/);
  });

  it('an empty marker is `v1`: done, nothing to nudge', () => {
    assert.equal(serializeMarker({ entries: [] }), 'v1');
    assert.deepEqual(read('v1'), { entries: [] });
    assert.ok(isSettled(read('v1')));
  });

  it('reads what a human re-flowed: any whitespace, any order', () => {
    assert.deepEqual(
      read('  v1\n b=pullRequest \t a=skipped:entry-removed\n'),
      read('v1 a=skipped:entry-removed b=pullRequest'),
    );
  });

  it('refuses, with a reason naming the entry, every value it cannot be sure of', () => {
    const cases: [string, RegExp][] = [
      ['', /not the version v1/],
      ['v2 a=pullRequest', /"v2", not the version v1/],
      ['a=pullRequest', /"a=pullRequest", not the version v1/],
      ['v1 a', /entry 1 "a" is not <target>=<state>/],
      ['v1 =pullRequest', /is not <target>=<state>/],
      ['v1 a=done', /unknown state "done"/],
      ['v1 a=pullRequest:x', /pullRequest takes 0 field/],
      ['v1 a=held', /held takes 1 field/],
      ['v1 a=held:Not_A_Name', /ChangeGroup name/],
      ['v1 a=failed:Forge Down', /is not <target>=<state>|reason/],
      ['v1 a=failed:forge_down', /reason is not a kebab-case token/],
      ['v1 a=skipped:', /reason is not a kebab-case token/],
      ['v1 Bad=pullRequest', /not a component name/],
      ['v1 a=pullRequest a=skipped:entry-removed', /a is named twice/],
      ['v1 a=firing:0:20250115T100000Z', /firing takes an attempt/],
      ['v1 a=firing:1000:20250115T100000Z', /firing takes an attempt/],
      ['v1 a=firing:1:2025-01-15T10:00:00Z', /firing takes an attempt/],
      ['v1 a=firing:1:20250230T100000Z', /firing takes an attempt/],
      ['v1 a=retry:1:20250115T100000Z', /retry takes failures/],
      ['v1 a=retry:1:20250115T100000Z:x:y', /retry takes failures/],
      ['v1 a=retry:01:20250115T100000Z:x', /retry takes failures/],
    ];
    for (const [text, expected] of cases) assert.match(problemOf(text), expected, text);
  });

  it('quotes at most 64 characters of a hostile value', () => {
    const message = problemOf(`v1 a=${'x'.repeat(10_000)}`);
    assert.ok(message.length < 300, message);
  });

  it('refuses to write what it could not read back', () => {
    const bad: MarkerEntry[][] = [
      [{ name: 'Bad', state: { kind: 'pullRequest' } }],
      [{ name: 'a', state: { kind: 'failed', reason: 'Not a token' } }],
      [{ name: 'a', state: { kind: 'firing', attempt: 0, startedAt: T } }],
      [{ name: 'a', state: { kind: 'firing', attempt: 1, startedAt: T + 1 } }],
      [{ name: 'a', state: { kind: 'retry', failures: 1, notBefore: -1000, reason: 'x' } }],
      [
        { name: 'b', state: { kind: 'pullRequest' } },
        { name: 'a', state: { kind: 'pullRequest' } },
      ],
      [
        { name: BUILD_ENTRY, state: { kind: 'skipped', reason: 'x' } },
        { name: 'a', state: { kind: 'pullRequest' } },
      ],
    ];
    for (const entries of bad) assert.throws(() => serializeMarker({ entries }), MarkerError, JSON.stringify(entries));
  });

  it('final states are the four outcomes', () => {
    const states: [TargetState, boolean][] = [
      [{ kind: 'pullRequest' }, true],
      [{ kind: 'held', changeGroup: 'cg' }, true],
      [{ kind: 'failed', reason: 'x' }, true],
      [{ kind: 'skipped', reason: 'x' }, true],
      [{ kind: 'holding', changeGroup: 'cg' }, false],
      [{ kind: 'firing', attempt: 1, startedAt: T }, false],
      [{ kind: 'retry', failures: 1, notBefore: T, reason: 'x' }, false],
    ];
    for (const [state, final] of states) assert.equal(isFinal(state), final, state.kind);
  });

  it('marker times are whole UTC seconds without separators', () => {
    assert.equal(formatMarkerTime(T + 999), '20250115T100000Z');
    assert.equal(parseMarkerTime('20250115T100000Z'), T);
    assert.equal(parseMarkerTime('20241301T000000Z'), undefined);
    assert.equal(parseMarkerTime('19691231T235959Z'), undefined);
    assert.equal(parseMarkerTime('20250115T100000'), undefined);
  });

  it('reasonToken turns a classification into a token, never into nothing', () => {
    assert.equal(reasonToken('Forge unavailable (503)'), 'forge-unavailable-503');
    assert.equal(reasonToken('!!!'), 'unclassified');
    assert.equal(reasonToken('x'.repeat(100)).length, 63);
  });
});

const NAME = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);
const REASON = fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}$/);
const CHANGE_GROUP = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,30}[a-z0-9])?$/).filter((n) => !/\.\.|\.-|-\./.test(n));
const SECONDS = fc.integer({ min: 0, max: Math.floor(Date.UTC(9999, 11, 31) / 1000) }).map((s) => s * 1000);
const COUNT = fc.integer({ min: 1, max: 999 });

const STATE: fc.Arbitrary<TargetState> = fc.oneof(
  fc.constant<TargetState>({ kind: 'pullRequest' }),
  CHANGE_GROUP.map((changeGroup): TargetState => ({ kind: 'held', changeGroup })),
  CHANGE_GROUP.map((changeGroup): TargetState => ({ kind: 'holding', changeGroup })),
  REASON.map((reason): TargetState => ({ kind: 'failed', reason })),
  REASON.map((reason): TargetState => ({ kind: 'skipped', reason })),
  fc.tuple(COUNT, SECONDS).map(([attempt, startedAt]): TargetState => ({ kind: 'firing', attempt, startedAt })),
  fc
    .tuple(COUNT, SECONDS, REASON)
    .map(([failures, notBefore, reason]): TargetState => ({ kind: 'retry', failures, notBefore, reason })),
);

const MARKER: fc.Arbitrary<DispatchMarker> = fc.oneof(
  fc.uniqueArray(fc.tuple(NAME, STATE), { selector: ([name]) => name, maxLength: 12 }).map((pairs) =>
    withEntries(
      undefined,
      pairs.map(([name, state]) => ({ name, state })),
    ),
  ),
  REASON.map((reason): DispatchMarker => ({ entries: [{ name: BUILD_ENTRY, state: { kind: 'skipped', reason } }] })),
);

describe('dispatch marker properties', () => {
  it('parse(serialize(m)) is m', () => {
    fc.assert(
      fc.property(MARKER, (marker) => {
        assert.deepEqual(read(serializeMarker(marker)), marker);
      }),
      { numRuns: 500 },
    );
  });

  it('serialize(parse(t)) is t for every text it writes, and writing is deterministic', () => {
    fc.assert(
      fc.property(MARKER, (marker) => {
        const text = serializeMarker(marker);
        assert.equal(serializeMarker(read(text)), text);
        const shuffled = withEntries(undefined, [...marker.entries].reverse());
        assert.equal(serializeMarker(shuffled), text);
      }),
      { numRuns: 500 },
    );
  });

  it('any text either reads or is a problem: never a throw, never a partial marker', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 40 }), (noise, tail) => {
        for (const text of [noise, `v1 ${noise}`, `v1 a=pullRequest ${tail}`]) {
          const reading = parseMarker(text);
          if (reading.ok)
            assert.equal(serializeMarker(read(serializeMarker(reading.marker))), serializeMarker(reading.marker));
        }
      }),
      { numRuns: 500 },
    );
  });
});
