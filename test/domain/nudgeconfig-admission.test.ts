import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideNudgeConfigAdmission, namesToCheck } from '../../src/domain/nudgeconfig-admission.ts';
import { manifestSetFromObjects } from '../../src/manifest/parse.ts';

const nudgeConfig = (nudges: unknown[], name = 'nudge-config'): unknown => ({
  apiVersion: 'konflux-ci.dev/v1alpha1',
  kind: 'NudgeConfig',
  metadata: { name, namespace: 'tenant' },
  spec: { nudges },
});

const decide = (
  object: unknown,
  missing: string[] = [],
  operation: 'CREATE' | 'UPDATE' = 'CREATE',
  previous?: { from: string; to: string }[],
) =>
  decideNudgeConfigAdmission({
    operation,
    incoming: manifestSetFromObjects([{ value: object, origin: 'admission' }]),
    missingComponents: new Set(missing),
    ...(previous === undefined ? {} : { previousEntries: previous }),
  });

describe('NudgeConfig admission decision', () => {
  it('admits a valid graph whose components exist', () => {
    const decision = decide(
      nudgeConfig([
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c', mode: 'validated', gatingGroup: 'g' },
      ]),
    );
    assert.equal(decision.allowed, true);
    assert.deepEqual(decision.warnings, []);
  });

  it('denies a cycle, naming its path', () => {
    const decision = decide(
      nudgeConfig([
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a' },
      ]),
    );
    assert.equal(decision.allowed, false);
    assert.match(decision.message, /^NudgeConfig tenant\/nudge-config is invalid: \[cycle\] .*a -> b -> c -> a/);
  });

  it('denies self-nudges, wrong names, missing gating groups, and names each entry', () => {
    const decision = decide(
      nudgeConfig(
        [
          { from: 'a', to: 'a' },
          { from: 'Bad_Name', to: 'b' },
          { from: 'x', to: 'y', mode: 'validated' },
        ],
        'other',
      ),
    );
    assert.equal(decision.allowed, false);
    for (const rule of ['self-nudge', 'invalid-name', 'missing-gating-group', 'singleton-name']) {
      assert.match(decision.message, new RegExp(`\\[${rule}\\]`), rule);
    }
    assert.match(decision.message, /spec\.nudges\[1\]/);
  });

  it('denies entries naming components that do not exist, on create', () => {
    const decision = decide(nudgeConfig([{ from: 'a', to: 'ghost' }]), ['ghost']);
    assert.equal(decision.allowed, false);
    assert.match(
      decision.message,
      /\[unknown-component\] spec\.nudges\[0\] \(a -> ghost\): component "ghost" does not exist in namespace tenant/,
    );
  });

  it('on update, checks existence of newly added entries only', () => {
    const object = nudgeConfig([
      { from: 'a', to: 'gone' },
      { from: 'a', to: 'new' },
    ]);
    const kept = decide(object, ['gone'], 'UPDATE', [{ from: 'a', to: 'gone' }]);
    assert.equal(kept.allowed, true, kept.message);
    const added = decide(object, ['gone', 'new'], 'UPDATE', [{ from: 'a', to: 'gone' }]);
    assert.equal(added.allowed, false);
    assert.match(added.message, /"new"/);
    assert.doesNotMatch(added.message, /"gone"/);
    assert.deepEqual(
      namesToCheck(
        'UPDATE',
        [
          { from: 'a', to: 'gone' },
          { from: 'a', to: 'new' },
        ],
        [{ from: 'a', to: 'gone' }],
      ),
      ['a', 'new'],
    );
    assert.deepEqual(namesToCheck('CREATE', [{ from: 'b', to: 'a' }]), ['a', 'b']);
  });

  it('passes unknown fields as warnings, not denials', () => {
    const decision = decide(nudgeConfig([{ from: 'a', to: 'b', form: 'x' }]));
    assert.equal(decision.allowed, true);
    assert.equal(decision.warnings.length, 1);
    assert.match(decision.warnings[0] ?? '', /form/);
  });

  it('caps a long denial and counts the rest', () => {
    const nudges = Array.from({ length: 30 }, (_, i) => ({ from: `c${String(i)}`, to: `c${String(i)}` }));
    const decision = decide(nudgeConfig(nudges));
    assert.equal(decision.allowed, false);
    assert.match(decision.message, /; and 10 more$/);
  });

  it('denies a malformed object with field paths, without throwing', () => {
    for (const bad of [
      {
        apiVersion: 'konflux-ci.dev/v1alpha1',
        kind: 'NudgeConfig',
        metadata: { name: 'nudge-config' },
        spec: { nudges: 'x' },
      },
      nudgeConfig([{ from: 1, to: [] }]),
    ]) {
      const decision = decide(bad);
      assert.equal(decision.allowed, false);
      assert.match(decision.message, /invalid-field/);
    }
  });
});
