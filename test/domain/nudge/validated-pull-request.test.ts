// The validated batch pull request's text, stamp and decision (docs/decisions.md D10, N28).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { renovateGroupCommitSubject } from '../../../src/domain/nudge/commit-subject.ts';
import { decideValidatedBatch } from '../../../src/domain/nudge/direct-decision.ts';
import { NudgeInputError } from '../../../src/domain/nudge/errors.ts';
import { NO_RENOVATE_SETTINGS } from '../../../src/domain/nudge/renovate-settings.ts';
import {
  formatBatchStamp,
  parseBatchStamp,
  validatedBatchBranch,
  validatedCommitDate,
  validatedPullRequestText,
  type ValidatedPullRequestInput,
  type ValidatedRow,
} from '../../../src/domain/nudge/validated-pull-request.ts';
import { validatedBatchKey } from '../../../src/domain/nudge/validated-text.ts';

const digest = (c: string): string => `sha256:${c.repeat(64)}`;
const AUTHOR = 'red-hat-konflux <123456+red-hat-konflux[bot]@users.noreply.github.com>';
const KEY = validatedBatchKey('tenant', 'operators', 'bundle', [{ component: 'operand-a', digest: digest('a') }]);
const BOT = '123456+red-hat-konflux[bot]@users.noreply.github.com';

function row(component: string, c: string, overrides: Partial<ValidatedRow> = {}): ValidatedRow {
  return {
    component,
    digest: digest(c),
    pullSpec: `quay.io/acme/${component}@${digest(c)}`,
    snapshot: 'operators-20260101-abcde',
    pipelineRun: `${component}-on-push-${c}`,
    createdAt: '2026-01-01T10:00:00Z',
    repoAtShaLink: `https://github.com/acme/${component}?rev=${'f'.repeat(40)}`,
    distributionRepositories: [],
    fileMatch: ['.*Dockerfile.*'],
    oldDigest: digest('0'),
    change: 'updated',
    ...overrides,
  };
}

const input = (overrides: Partial<ValidatedPullRequestInput> = {}): ValidatedPullRequestInput => ({
  nudged: 'bundle',
  gatingGroup: 'operators',
  batchKey: KEY,
  rows: [row('operand-a', 'a')],
  gitAuthor: AUTHOR,
  settings: NO_RENOVATE_SETTINGS,
  ...overrides,
});

function refused(run: () => unknown, field: string): void {
  assert.throws(run, (error: unknown) => error instanceof NudgeInputError && error.field === field);
}

describe('validatedPullRequestText', () => {
  it('is Renovate’s group update: branch, title, commit, labels', () => {
    const text = validatedPullRequestText(input({ settings: { ...NO_RENOVATE_SETTINGS, labels: ['team-a'] } }));
    assert.equal(text.branch, 'konflux/component-updates/bundle-validated-operators');
    assert.equal(text.title, 'Update validated images of operators');
    assert.equal(text.commit.subject, text.title);
    assert.equal(
      text.commit.message,
      'Update validated images of operators\n\n' +
        'Images validated by passing Snapshots of component group operators:\n' +
        `- operand-a: ${digest('a')} (Snapshot operators-20260101-abcde)\n\n` +
        `Signed-off-by: ${AUTHOR}`,
    );
    assert.deepEqual(text.labels, ['konflux-nudge', 'team-a']);
  });

  it('handles commitMessagePrefix, -Suffix and semantic commits as a single nudge does', () => {
    const prefixed = { ...NO_RENOVATE_SETTINGS, commitMessagePrefix: '[nudge]', commitMessageSuffix: '(batch)' };
    assert.equal(
      validatedPullRequestText(input({ settings: prefixed, semanticCommits: true })).title,
      '[nudge] Update validated images of operators (batch)',
    );
    assert.equal(
      validatedPullRequestText(input({ semanticCommits: true })).title,
      'chore(deps): update validated images of operators',
    );
    assert.equal(
      renovateGroupCommitSubject({
        groupName: 'validated images of G',
        commitMessagePrefix: '',
        commitMessageSuffix: '',
      }),
      'Update validated images of G',
    );
    refused(
      () => renovateGroupCommitSubject({ groupName: '{{x}}', commitMessagePrefix: '', commitMessageSuffix: '' }),
      'groupName',
    );
  });

  it('lists every component with its old and new digest and Snapshot, what it leaves as is, and each build', () => {
    const text = validatedPullRequestText(
      input({
        rows: [
          row('operand-a', 'a'),
          row('operand-b', 'b', { change: 'up-to-date', oldDigest: digest('9'), repoAtShaLink: '' }),
          row('operand-c', 'c', { change: 'unreferenced', oldDigest: undefined, snapshot: 'operators-2' }),
        ],
      }),
    );
    const [body = '', stamp = ''] = text.body.split('\n\n<!-- nudger-validated-batch ');
    assert.ok(body.startsWith('Images validated by passing Snapshots of component group `operators`\n\n'));
    const table = body.split('\n---\n')[0] ?? '';
    assert.equal(
      table.slice(table.indexOf('| Component')),
      [
        '| Component | Old digest | New digest | Snapshot |',
        '|---|---|---|---|',
        `| operand-a | \`${digest('0')}\` | \`${digest('a')}\` | \`operators-20260101-abcde\` |`,
        `| operand-b | \`${digest('9')}\` | \`${digest('b')}\` | \`operators-20260101-abcde\` |`,
        `| operand-c |  | \`${digest('c')}\` | \`operators-2\` |`,
        '',
        'Already pinned, not changed by this PR: operand-b',
        '',
        'Not referenced by digest in the files their fileMatch selects, not changed by this PR: operand-c',
        '',
        `- operand-a: image created from 'https://github.com/acme/operand-a?rev=${'f'.repeat(40)}' by build \`operand-a-on-push-a\``,
        '- operand-b: image created by build `operand-b-on-push-b`',
        `- operand-c: image created from 'https://github.com/acme/operand-c?rev=${'f'.repeat(40)}' by build \`operand-c-on-push-c\``,
        '',
      ].join('\n'),
    );
    assert.ok(body.endsWith('This is Konflux nudging PR, not Mintmaker.'));
    assert.match(stamp, new RegExp(`^key=${KEY} images=\\S+ -->$`));
    assert.ok(!text.commit.message.includes('operand-b'), 'the commit names only what it changes');
  });

  it('refuses, naming the field, any value that could break the Markdown or is not what it says', () => {
    refused(() => validatedPullRequestText(input({ gatingGroup: 'Ops|`x`' })), 'gatingGroup');
    refused(() => validatedPullRequestText(input({ nudged: 'bundle.v2' })), 'nudged');
    refused(
      () => validatedPullRequestText(input({ rows: [row('operand-a', 'a', { snapshot: 'snap | <b>' })] })),
      'rows[0].snapshot',
    );
    refused(
      () => validatedPullRequestText(input({ rows: [row('operand-a', 'a', { repoAtShaLink: "https://x.io/a'b" })] })),
      'rows[0].repoAtShaLink',
    );
    refused(
      () =>
        validatedPullRequestText(
          input({ rows: [row('operand-a', 'a', { pullSpec: `quay.io/acme/a@${digest('b')}` })] }),
        ),
      'rows[0].pullSpec',
    );
    refused(() => validatedPullRequestText(input({ rows: [row('operand-a', 'a', { change: 'up-to-date' })] })), 'rows');
    refused(() => validatedPullRequestText(input({ batchKey: 'not-a-key' })), 'key');
    refused(() => validatedBatchBranch('bundle', 'Bad Group'), 'gatingGroup');
    assert.equal(validatedBatchBranch('bundle', 'ops.v2'), 'konflux/component-updates/bundle-validated-ops.v2');
  });
});

describe('the batch stamp', () => {
  it('reads back every image it carries, whatever its fileMatch holds, and stays one hidden comment', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 4 }), (fileMatch) => {
        const images = [row('operand-a', 'a', { fileMatch, distributionRepositories: ['registry.redhat.io/acme/a'] })];
        const stamp = formatBatchStamp({ key: KEY, images });
        assert.equal(stamp.indexOf('-->'), stamp.length - 3, 'the comment ends once, at its end');
        assert.ok(!stamp.includes('\n'));
        const parsed = parseBatchStamp(`body\n\n${stamp}`);
        assert.equal(parsed?.key, KEY);
        assert.deepEqual(
          parsed.images.map((image) => [image.fileMatch, image.pullSpec]),
          images.map((image) => [fileMatch, image.pullSpec]),
        );
      }),
    );
  });

  it('reads as none when a human edited it into something else', () => {
    const stamp = formatBatchStamp({ key: KEY, images: [row('operand-a', 'a')] });
    assert.equal(parseBatchStamp('no stamp'), undefined);
    assert.ok(stamp.includes('"component":"operand'));
    assert.equal(parseBatchStamp(stamp.replace('"component":"operand', '"component":"Operand')), undefined);
    assert.equal(parseBatchStamp(stamp.replace('"digest":"sha256:a', '"digest":"sha256:z')), undefined);
    assert.equal(parseBatchStamp(stamp.replace('images=[', 'images={')), undefined);
  });
});

describe('validatedCommitDate', () => {
  it('is the newest build’s creation time, and refuses one that is not a time', () => {
    assert.equal(
      validatedCommitDate(['2026-01-01T10:00:00Z', undefined, '2026-01-02T09:00:00+02:00', '2026-01-01T23:00:00Z']),
      '2026-01-02T09:00:00+02:00',
    );
    assert.equal(validatedCommitDate([undefined]), undefined);
    refused(() => validatedCommitDate(['yesterday']), 'entries[0].build.createdAt');
  });
});

describe('decideValidatedBatch', () => {
  const body = `text\n\n${formatBatchStamp({ key: KEY, images: [row('operand-a', 'a')] })}`;
  const ours = [{ sha: '1'.repeat(40), authorEmail: BOT, committerEmail: BOT }];
  const human = [...ours, { sha: '2'.repeat(40), authorEmail: 'dev@example.com' }];
  const ticked = body.replace('text', '- [x] <!-- rebase-check -->');

  it('writes without an open pull request, or one carrying another batch', () => {
    assert.deepEqual(decideValidatedBatch({ key: KEY, open: undefined, botEmail: BOT }), {
      kind: 'write',
      discardEdits: false,
    });
    assert.deepEqual(decideValidatedBatch({ key: 'ffffffffffffffff', open: { body, commits: ours }, botEmail: BOT }), {
      kind: 'write',
      discardEdits: false,
    });
  });

  it('is done when the open pull request carries this batch on nudger’s own commits', () => {
    assert.deepEqual(decideValidatedBatch({ key: KEY, open: { body, commits: ours }, botEmail: BOT.toUpperCase() }), {
      kind: 'done',
    });
    assert.deepEqual(decideValidatedBatch({ key: KEY, open: { body: ticked, commits: ours }, botEmail: BOT }), {
      kind: 'write',
      discardEdits: false,
    });
  });

  it('stops at someone else’s commit, even for this batch, until the rebase box is ticked', () => {
    assert.deepEqual(decideValidatedBatch({ key: KEY, open: { body, commits: human }, botEmail: BOT }), {
      kind: 'branch-edited',
      foreignCommits: ['2'.repeat(40)],
    });
    assert.deepEqual(decideValidatedBatch({ key: KEY, open: { body: ticked, commits: human }, botEmail: BOT }), {
      kind: 'write',
      discardEdits: true,
    });
  });
});
