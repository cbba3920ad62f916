// The pre-merge nudge PR's text (docs/decisions.md D11, N34): the managed block and its stamp, the
// human text kept around it, Renovate's group subject, and values that could break the text refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NudgeInputError } from '../../../src/domain/nudge/errors.ts';
import {
  parsePreMergeStamp,
  PRE_MERGE_BLOCK_BEGIN,
  PRE_MERGE_BLOCK_END,
  preMergeBlock,
  preMergeNudgeBranch,
  preMergePullRequestText,
  withPreMergeBlock,
  type PreMergeBlockInput,
  type PreMergeRow,
} from '../../../src/domain/nudge/pre-merge-pull-request.ts';
import { NO_RENOVATE_SETTINGS } from '../../../src/domain/nudge/renovate-settings.ts';

const KEY = '0123456789abcdef';
const AUTHOR = 'red-hat-konflux <1+red-hat-konflux[bot]@users.noreply.github.com>';
const digest = (c: string): string => `sha256:${c.repeat(64)}`;
const OPEN_A: PreMergeRow = {
  component: 'operand-a',
  number: 12,
  url: 'https://github.com/acme/operand-a/pull/12',
  state: 'open',
  pin: { digest: digest('a'), event: 'pull-request', pipelineRun: 'operand-a-on-pull-request-1', repoAtShaLink: '' },
  change: 'updated',
};
const CLOSED_B: PreMergeRow = {
  component: 'operand-b',
  number: 7,
  url: 'https://github.com/acme/operand-b/pull/7',
  state: 'closed',
};
const INPUT: PreMergeBlockInput = {
  nudged: 'bundle',
  group: 'feature-1234',
  key: KEY,
  rows: [OPEN_A, CLOSED_B],
  draft: true,
  settings: NO_RENOVATE_SETTINGS,
};

describe('pre-merge nudge PR text', () => {
  it('wraps the table, the Renovate frame and the stamp between the markers', () => {
    const block = preMergeBlock(INPUT);
    assert.ok(
      block.startsWith(`${PRE_MERGE_BLOCK_BEGIN}\nImages built from the pull requests of PR group \`feature-1234\``),
    );
    assert.ok(block.endsWith(`\n\n<!-- nudger-pre-merge key=${KEY} -->\n${PRE_MERGE_BLOCK_END}`));
    assert.ok(
      block.includes(
        `| operand-a | [#12](${OPEN_A.url}) | open | \`${digest('a')}\` | pull-request build \`operand-a-on-pull-request-1\` |\n` +
          `| operand-b | [#7](${CLOSED_B.url}) | closed | the base's |  |\n`,
      ),
    );
    assert.ok(block.includes('stays a draft'));
    assert.ok(preMergeBlock({ ...INPUT, draft: false }).includes('ready for review'));
    assert.equal(parsePreMergeStamp(block), KEY);
  });

  it('keeps the text outside the block, and adds a block to a body that lost its markers', () => {
    const block = preMergeBlock(INPUT);
    const created = withPreMergeBlock(undefined, block, 'feature-1234');
    assert.ok(created.startsWith('Pre-merge nudge of PR group `feature-1234`.'));
    assert.ok(created.endsWith(block));

    const human = `Before.\n\n${created}\n\nAfter.`;
    const next = preMergeBlock({ ...INPUT, key: 'fedcba9876543210', draft: false });
    const updated = withPreMergeBlock(human, next, 'feature-1234');
    assert.equal(updated, human.replace(block, next));
    assert.equal(parsePreMergeStamp(updated), 'fedcba9876543210');

    assert.equal(withPreMergeBlock('Only mine.\n', block, 'feature-1234'), `Only mine.\n\n${block}`);
    assert.equal(withPreMergeBlock('', block, 'feature-1234'), created);
  });

  it('reads the stamp only inside the block', () => {
    assert.equal(parsePreMergeStamp(`<!-- nudger-pre-merge key=${KEY} -->`), undefined);
    assert.equal(parsePreMergeStamp(`${PRE_MERGE_BLOCK_BEGIN}\nno stamp\n${PRE_MERGE_BLOCK_END}`), undefined);
    assert.equal(parsePreMergeStamp(`${PRE_MERGE_BLOCK_END} ${PRE_MERGE_BLOCK_BEGIN}`), undefined, 'markers reversed');
  });

  it("writes Renovate's group subject with prefix and semantic commits, and the pinned triggers in the commit", () => {
    const text = preMergePullRequestText({ ...INPUT, gitAuthor: AUTHOR, settings: NO_RENOVATE_SETTINGS });
    assert.equal(text.title, 'Update bundle with pre-merge images of feature-1234');
    assert.equal(text.branch, 'feature-1234@bundle');
    assert.equal(
      text.commit.message,
      `${text.title}\n\nImages of PR group feature-1234:\n- operand-a: ${digest('a')} (#12, open, pull-request build)\n\nSigned-off-by: ${AUTHOR}`,
    );
    assert.deepEqual(text.labels, ['konflux-nudge']);
    const semantic = preMergePullRequestText({
      ...INPUT,
      gitAuthor: AUTHOR,
      settings: NO_RENOVATE_SETTINGS,
      semanticCommits: true,
    });
    assert.equal(semantic.title, 'chore(deps): update bundle with pre-merge images of feature-1234');
    const prefixed = preMergePullRequestText({
      ...INPUT,
      gitAuthor: AUTHOR,
      settings: { ...NO_RENOVATE_SETTINGS, commitMessagePrefix: '[PRE]' },
    });
    assert.equal(prefixed.title, '[PRE] Update bundle with pre-merge images of feature-1234');
  });

  it('refuses values that could break the text, naming the field', () => {
    const refused = (input: Partial<PreMergeBlockInput>, field: string): void => {
      assert.throws(
        () => preMergeBlock({ ...INPUT, ...input }),
        (error: unknown) => error instanceof NudgeInputError && error.field === field,
      );
    };
    refused({ group: 'feat`ure' }, 'group');
    refused({ group: 'a b' }, 'group');
    refused({ key: 'nothex' }, 'key');
    refused({ rows: [] }, 'rows');
    refused({ rows: [{ ...OPEN_A, url: 'https://x/pull/1) [evil](https://y' }] }, 'rows[0].url');
    refused({ rows: [{ ...OPEN_A, number: 0 }] }, 'rows[0].number');
    refused({ rows: [{ ...OPEN_A, component: 'Operand' }] }, 'rows[0].component');
    refused({ rows: [{ ...CLOSED_B, pin: { ...OPEN_A.pin!, digest: 'sha256:xyz' } }] }, 'rows[0].pin.digest');
    assert.throws(() => preMergeNudgeBranch('feat ure', 'bundle'), NudgeInputError);
    assert.equal(preMergeNudgeBranch('feature/x.1', 'bundle'), 'feature/x.1@bundle');
  });
});
