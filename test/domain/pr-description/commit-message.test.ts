import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  CommitMessageError,
  SKIP_MARKERS,
  commitMessage,
  draftTitle,
  hasSkipMarker,
  isDraftTitle,
  readyTitle,
  type CommitMessageInput,
} from '../../../src/domain/pr-description/index.ts';

const digest = (c: string) => `sha256:${c.repeat(64)}`;

function input(overrides: Partial<CommitMessageInput> = {}): CommitMessageInput {
  return {
    changeGroup: { name: 'bundle-x-update', namespace: 'my-tenant' },
    nudgedComponent: 'bundle-x',
    updates: [{ component: 'gatekeeper', originalBuild: digest('1'), newBuild: `sha256:62f4ce6${'0'.repeat(57)}` }],
    skipCi: false,
    ...overrides,
  };
}

describe('hasSkipMarker', () => {
  it('knows exactly the four PaC markers, case-sensitively, anywhere in the message', () => {
    assert.deepEqual([...SKIP_MARKERS], ['[skip ci]', '[ci skip]', '[skip tkn]', '[tkn skip]']);
    for (const marker of SKIP_MARKERS) assert.equal(hasSkipMarker(`Update x\n\nbody ${marker} end`), true, marker);
    for (const other of ['[Skip CI]', '[SKIP CI]', 'skip ci', '[skip-ci]', '[skip  ci]', '[ci-skip]', '']) {
      assert.equal(hasSkipMarker(`Update x ${other}`), false, other);
    }
  });
});

describe('commitMessage', () => {
  it('writes one update exactly like an upstream nudge commit subject', () => {
    const message = commitMessage(input());
    assert.equal(message.subject, 'Update gatekeeper to 62f4ce6');
    assert.equal(
      message.body,
      `gatekeeper: ${digest('1')} → sha256:62f4ce6${'0'.repeat(57)}\n\nChangeGroup: my-tenant/bundle-x-update`,
    );
    assert.equal(message.message, `${message.subject}\n\n${message.body}`);
  });

  it('summarises many updates, sorted by component, and marks intermediate commits [skip ci]', () => {
    const updates = Array.from({ length: 30 }, (_, i) => ({
      component: `operand-${String(29 - i).padStart(2, '0')}`,
      newBuild: digest('a'),
    }));
    const message = commitMessage(input({ updates, skipCi: true }));
    assert.equal(message.subject, 'Update 30 component images for bundle-x [skip ci]');
    const lines = message.body.split('\n');
    assert.equal(lines[0], `operand-00: (unknown) → ${digest('a')}`);
    assert.equal(lines[29], `operand-29: (unknown) → ${digest('a')}`);
    assert.equal(hasSkipMarker(message.message), true);
  });

  it('never lets a value put a skip marker or a line break into the final commit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string(), fc.string(), fc.string()), { minLength: 1, maxLength: 4 }),
        fc.string(),
        (rows, nudged) => {
          const updates = rows.map(([component, originalBuild, newBuild]) => ({ component, originalBuild, newBuild }));
          const message = commitMessage(input({ updates, nudgedComponent: `${nudged}[skip ci]` }));
          assert.equal(hasSkipMarker(message.message), false);
          assert.equal(message.subject.includes('\n'), false);
          assert.equal(message.body.split('\n').length, updates.length + 2);
        },
      ),
    );
    const hostile = commitMessage(
      input({ updates: [{ component: 'a [ci skip]', newBuild: '[tkn skip]\n[skip tkn]' }] }),
    );
    assert.equal(hasSkipMarker(hostile.message), false);
  });

  it('refuses a commit with nothing in it', () => {
    assert.throws(
      () => commitMessage(input({ updates: [] })),
      (error: unknown) => error instanceof CommitMessageError && error.changeGroup === 'my-tenant/bundle-x-update',
    );
  });
});

describe('draft titles', () => {
  it('leaves GitHub and local titles alone: their draft state is a flag', () => {
    for (const forge of ['github', 'local'] as const) {
      assert.equal(
        draftTitle('Update 3 component images for bundle-x', forge),
        'Update 3 component images for bundle-x',
      );
      assert.equal(readyTitle('Draft: x', forge), 'Draft: x');
      assert.equal(isDraftTitle('Draft: x', forge), false);
    }
  });

  it('prefixes GitLab drafts once and strips every GitLab draft prefix when ready', () => {
    assert.equal(draftTitle('Update x', 'gitlab'), 'Draft: Update x');
    assert.equal(draftTitle('Draft: Update x', 'gitlab'), 'Draft: Update x');
    assert.equal(draftTitle('[Draft] Update x', 'gitlab'), '[Draft] Update x');
    for (const title of [
      'Draft: Update x',
      'draft:Update x',
      '[Draft] Update x',
      '(draft) Update x',
      'Draft: [DRAFT] Update x',
    ]) {
      assert.equal(isDraftTitle(title, 'gitlab'), true, title);
      assert.equal(readyTitle(title, 'gitlab'), 'Update x', title);
    }
    assert.equal(readyTitle('Drafting Update x', 'gitlab'), 'Drafting Update x');
    assert.equal(readyTitle(draftTitle('Update x', 'gitlab'), 'gitlab'), 'Update x');
  });
});
