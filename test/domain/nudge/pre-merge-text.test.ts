// The names of a pre-merge nudge (src/domain/nudge/pre-merge-text.ts, docs/decisions.md D11): the
// PR group of a source branch, the nudge PR's branch in that group, and the content key, which
// must change with anything the nudge PR shows and nothing else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  preMergeBranch,
  preMergeKey,
  prGroupOf,
  type PreMergeContentPart,
} from '../../../src/domain/nudge/pre-merge-text.ts';
import { GROUP, NAMESPACE, TARGET, digest } from './pre-merge-fixtures.ts';

describe('prGroupOf (ADR 29 PR groups)', () => {
  it('is the source branch up to its first @', () => {
    assert.equal(prGroupOf('feature-1234'), 'feature-1234');
    assert.equal(prGroupOf('feature-1234@bundle'), 'feature-1234');
    assert.equal(prGroupOf('feature-1234@bundle@more'), 'feature-1234');
    assert.equal(prGroupOf('user/feature@x'), 'user/feature');
  });

  it('is undefined for main, master and an empty group', () => {
    for (const branch of ['main', 'master', 'main@x', 'master@bundle', '', '@bundle', ' @x']) {
      assert.equal(prGroupOf(branch), undefined, JSON.stringify(branch));
    }
  });

  it('groups branches that only start like main', () => {
    assert.equal(prGroupOf('main-fix'), 'main-fix');
    assert.equal(prGroupOf('mainline@x'), 'mainline');
  });

  it('puts the nudge PR into the group it is for', () => {
    const branch = preMergeBranch(GROUP, TARGET);
    assert.equal(branch, 'feature-1234@bundle');
    assert.equal(prGroupOf(branch), GROUP);
    assert.notEqual(preMergeBranch('feature-1', TARGET), preMergeBranch('feature-2', TARGET));
    assert.notEqual(preMergeBranch(GROUP, 'bundle'), preMergeBranch(GROUP, 'catalog'));
  });
});

describe('preMergeKey', () => {
  const a: PreMergeContentPart = { component: 'operand-a', number: 12, state: 'open', digest: digest('a1') };
  const b: PreMergeContentPart = { component: 'operand-b', number: 34, state: 'open', digest: digest('b1') };
  const b2: PreMergeContentPart = { component: 'operand-b', number: 7, state: 'open', digest: digest('b7') };
  const key = (parts: readonly PreMergeContentPart[], draft = true, closing = false) =>
    preMergeKey(NAMESPACE, GROUP, TARGET, parts, draft, closing);

  it('is 16 hex characters and stable', () => {
    assert.match(key([a, b]), /^[0-9a-f]{16}$/);
    assert.equal(key([a, b]), key([a, b]));
  });

  it('does not depend on the order of the parts', () => {
    assert.equal(key([a, b, b2]), key([b2, b, a]));
    assert.equal(key([a, b, b2]), key([b, a, b2]));
  });

  it('changes with any state, digest, draft or close, and with the pair', () => {
    const base = key([a, b]);
    const variants = [
      key([{ ...a, state: 'merged' }, b]),
      key([{ ...a, state: 'closed' }, b]),
      key([{ ...a, digest: digest('a2') }, b]),
      key([{ component: a.component, number: a.number, state: a.state }, b]),
      key([a, { ...b, number: 35 }]),
      key([a, { ...b, component: 'operand-c' }]),
      key([a]),
      key([a, b, b2]),
      key([a, b], false),
      key([a, b], true, true),
      preMergeKey('other', GROUP, TARGET, [a, b], true, false),
      preMergeKey(NAMESPACE, 'feature-9', TARGET, [a, b], true, false),
      preMergeKey(NAMESPACE, GROUP, 'catalog', [a, b], true, false),
    ];
    assert.equal(new Set([base, ...variants]).size, variants.length + 1, 'every variant has its own key');
  });
});
