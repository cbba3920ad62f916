import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  SEMANTIC_COMMIT_PREFIX,
  digestShort,
  renovateCommitSubject,
  semanticCommitsDetected,
} from '../../../src/domain/nudge/commit-subject.ts';
import { NudgeInputError } from '../../../src/domain/nudge/errors.ts';
import {
  DEFAULT_RENOVATE_USER,
  KONFLUX_GITHUB_APP,
  githubAppGitAuthor,
  scmTokenGitAuthor,
} from '../../../src/domain/nudge/git-author.ts';
import {
  NUDGE_LABEL,
  isSimpleBranch,
  nudgeBranch,
  nudgeCommitBody,
  nudgeLabels,
  nudgePullRequestText,
  rebaseRequested,
  type NudgePullRequestInput,
} from '../../../src/domain/nudge/pull-request-text.ts';
import { NO_RENOVATE_SETTINGS, readRenovateSettings } from '../../../src/domain/nudge/renovate-settings.ts';
import { repoAtShaLink } from '../../../src/domain/nudge/repository-link.ts';

const NEW = 'sha256:62f4ce6b9d0f1e2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809112';
const OLD = 'sha256:3bc0a33aa9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2';
const SHA = '0123456789abcdef0123456789abcdef01234567';
const LINK = `https://github.com/open-policy-agent/gatekeeper?rev=${SHA}`;
const REPOSITORY = 'quay.io/redhat-user-workloads/gatekeeper-tenant/gatekeeper';
const AUTHOR = githubAppGitAuthor(KONFLUX_GITHUB_APP.slug, KONFLUX_GITHUB_APP.botId);

const input = (overrides: Partial<NudgePullRequestInput> = {}): NudgePullRequestInput => ({
  nudging: 'gatekeeper',
  nudged: 'gatekeeper-bundle',
  simpleBranch: false,
  repository: REPOSITORY,
  currentDigest: OLD,
  newDigest: NEW,
  repoAtShaLink: LINK,
  gitAuthor: AUTHOR,
  settings: NO_RENOVATE_SETTINGS,
  ...overrides,
});

function throwsField(fn: () => unknown, field: string): void {
  assert.throws(fn, (error: unknown) => error instanceof NudgeInputError && error.field === field);
}

describe('branch (build-service generateRenovateConfigForNudge + Renovate group slug)', () => {
  it('konflux/component-updates/<nudged>-component-update-<nudging>', () => {
    assert.equal(
      nudgeBranch('gatekeeper-bundle', 'gatekeeper', false),
      'konflux/component-updates/gatekeeper-bundle-component-update-gatekeeper',
    );
  });

  it('simple branch: konflux/component-updates/component-update-<nudging>', () => {
    assert.equal(
      nudgeBranch('gatekeeper-bundle', 'gatekeeper', true),
      'konflux/component-updates/component-update-gatekeeper',
    );
  });

  it('simple branch is the nudging Component annotation, "true" exactly', () => {
    const key = 'build.appstudio.openshift.io/build-nudge-simple-branch';
    assert.equal(isSimpleBranch({ [key]: 'true' }), true);
    for (const value of ['True', 'TRUE', '1', 'yes', ' true', ''])
      assert.equal(isSimpleBranch({ [key]: value }), false, value);
    assert.equal(isSimpleBranch(undefined), false);
  });

  it('refuses names that are not components', () => {
    throwsField(() => nudgeBranch('Bundle', 'a', false), 'nudged');
    throwsField(() => nudgeBranch('b', '../a', false), 'nudging');
  });
});

describe('commit subject: Renovate compileCommitMessage', () => {
  const subject = (prefix: string, suffix: string, semanticCommits = false) =>
    renovateCommitSubject({
      nudging: 'gatekeeper',
      newDigest: NEW,
      commitMessagePrefix: prefix,
      commitMessageSuffix: suffix,
      semanticCommits,
    });

  it('Update <nudging> to <digest7>', () => {
    assert.equal(subject('', ''), 'Update gatekeeper to 62f4ce6');
  });

  it('the prefix goes in as written: no colon added, nothing lower-cased', () => {
    assert.equal(subject('chore(deps)', ''), 'chore(deps) Update gatekeeper to 62f4ce6');
    assert.equal(subject('chore(deps):', ''), 'chore(deps): Update gatekeeper to 62f4ce6');
    assert.equal(subject('[Konflux]', ''), '[Konflux] Update gatekeeper to 62f4ce6');
  });

  it('the suffix is appended after a space', () => {
    assert.equal(subject('', '[skip-tests]'), 'Update gatekeeper to 62f4ce6 [skip-tests]');
    assert.equal(subject('fix:', '(nudge)'), 'fix: Update gatekeeper to 62f4ce6 (nudge)');
  });

  it('trimmed, and every whitespace run folded into one space', () => {
    assert.equal(subject('  chore:\n', '\t [ci]  \r\n'), 'chore: Update gatekeeper to 62f4ce6 [ci]');
    assert.equal(subject('a  b', 'c\n\nd'), 'a b Update gatekeeper to 62f4ce6 c d');
  });

  it('"to vv<digit>" becomes "to v<digit>", once, as Renovate does', () => {
    assert.equal(subject('', 'to vv1 to vv2'), 'Update gatekeeper to 62f4ce6 to v1 to vv2');
  });

  it('semantic commits without a prefix: chore(deps): and the subject lower-cased', () => {
    assert.equal(subject('', 'ABC', true), `${SEMANTIC_COMMIT_PREFIX} update gatekeeper to 62f4ce6 abc`);
    // A configured prefix turns semantic commits off, as in Renovate.
    assert.equal(subject('Fix:', '', true), 'Fix: Update gatekeeper to 62f4ce6');
  });

  it('semanticCommitsDetected: more conventional subjects than not', () => {
    assert.equal(semanticCommitsDetected(['feat: a', 'fix(x): b', 'Merge pull request #1']), true);
    assert.equal(semanticCommitsDetected(['feat: a', 'Update README']), false);
    assert.equal(semanticCommitsDetected(['feat!: a']), true);
    assert.equal(semanticCommitsDetected([]), false);
  });

  it('refuses a digest that is not sha256 + 64 lower-case hex, and unsafe affixes', () => {
    assert.equal(digestShort(NEW), '62f4ce6');
    throwsField(
      () =>
        renovateCommitSubject({
          nudging: 'a',
          newDigest: NEW.toUpperCase(),
          commitMessagePrefix: '',
          commitMessageSuffix: '',
        }),
      'newDigest',
    );
    throwsField(
      () =>
        renovateCommitSubject({ nudging: 'a', newDigest: NEW, commitMessagePrefix: '\u0007', commitMessageSuffix: '' }),
      'commitMessagePrefix',
    );
    throwsField(
      () =>
        renovateCommitSubject({ nudging: 'a', newDigest: NEW, commitMessagePrefix: '', commitMessageSuffix: '{{x}}' }),
      'commitMessageSuffix',
    );
  });

  it('property: one line, no edge or double spaces, always ends with the digest and suffix', () => {
    const affix = fc.string({ maxLength: 12 }).filter((s) => !s.includes('{{') && !s.includes('to vv'));
    fc.assert(
      fc.property(affix, affix, (prefix, suffix) => {
        const s = subject(prefix, suffix);
        assert.equal(/[\n\r\t]|^ | $| {2}/.test(s), false, s);
        assert.ok(s.includes('Update gatekeeper to 62f4ce6'));
      }),
    );
  });
});

describe('git author (build-service gitAuthor)', () => {
  it('GitHub App: <slug> <<botId>+<slug>[bot]@users.noreply.github.com>', () => {
    assert.equal(AUTHOR, 'red-hat-konflux <126015336+red-hat-konflux[bot]@users.noreply.github.com>');
  });

  it('SCM token: <user> <123456+<user>[bot]@users.noreply.<host>>, user red-hat-konflux by default', () => {
    assert.equal(
      scmTokenGitAuthor(undefined, 'github.com'),
      `${DEFAULT_RENOVATE_USER} <123456+${DEFAULT_RENOVATE_USER}[bot]@users.noreply.github.com>`,
    );
    assert.equal(
      scmTokenGitAuthor('konflux-bot', 'GitLab.example.com'),
      'konflux-bot <123456+konflux-bot[bot]@users.noreply.gitlab.example.com>',
    );
  });

  it('refuses values that would break "Name <address>"', () => {
    throwsField(() => githubAppGitAuthor('Red Hat', 1), 'gitAuthor.appSlug');
    throwsField(() => githubAppGitAuthor('app', 0), 'gitAuthor.botId');
    throwsField(() => githubAppGitAuthor('app', 1.5), 'gitAuthor.botId');
    throwsField(() => scmTokenGitAuthor('a>b', 'github.com'), 'gitAuthor.username');
    throwsField(() => scmTokenGitAuthor('a', 'github.com>\n'), 'gitAuthor.host');
  });
});

describe('repo-at-sha link (build annotation)', () => {
  it('the annotation as it is; the new model spelling second; empty when absent', () => {
    assert.equal(repoAtShaLink({ 'build.appstudio.openshift.io/repo': LINK }), LINK);
    const gitlab = `https://gitlab.com/group/sub/repo/-/tree/${SHA}`;
    assert.equal(repoAtShaLink({ 'build.konflux-ci.dev/repo': gitlab }), gitlab);
    assert.equal(repoAtShaLink({}), '');
  });

  it('refuses what could break the quoted text or carry credentials, without echoing it', () => {
    const cases = [
      "https://github.com/o/r?rev=a' b",
      'https://github.com/o/r?rev={{revision}}',
      'https://github.com/o/r\n',
      'https://user:ghp_secret@github.com/o/r',
      'ftp://github.com/o/r',
      'not a url',
      'javascript:alert(1)',
    ];
    for (const link of cases) {
      assert.throws(
        () => repoAtShaLink({ 'build.appstudio.openshift.io/repo': link }),
        (error: unknown) =>
          error instanceof NudgeInputError && error.field === 'repoAtShaLink' && !error.message.includes('secret'),
        link,
      );
    }
  });
});

describe('labels', () => {
  it('konflux-nudge, then the ConfigMap labels, deduplicated in order', () => {
    const { settings } = readRenovateSettings({
      name: 'cm',
      data: { labels: 'approved, konflux-nudge, lgtm, approved' },
    });
    assert.deepEqual(nudgeLabels(settings), [NUDGE_LABEL, 'approved', 'lgtm']);
    assert.deepEqual(nudgeLabels(NO_RENOVATE_SETTINGS), ['konflux-nudge']);
  });
});

describe('rebaseRequested: Renovate pr-body checkbox', () => {
  it('ticked, unticked, absent', () => {
    assert.equal(
      rebaseRequested(' - [x] <!-- rebase-check -->If you want to rebase/retry this PR, check this box'),
      true,
    );
    assert.equal(rebaseRequested(' - [ ] <!-- rebase-check -->If you want ...'), false);
    assert.equal(rebaseRequested('- [X] <!-- rebase-check -->'), undefined);
    assert.equal(rebaseRequested('no checkbox'), undefined);
  });
});

describe('nudgePullRequestText: the whole pull request', () => {
  it('default settings: byte for byte', () => {
    const text = nudgePullRequestText(input());
    assert.equal(text.branch, 'konflux/component-updates/gatekeeper-bundle-component-update-gatekeeper');
    assert.equal(text.commit.subject, 'Update gatekeeper to 62f4ce6');
    assert.equal(
      text.commit.message,
      `Update gatekeeper to 62f4ce6\n\nImage created from '${LINK}'\n\nSigned-off-by: red-hat-konflux <126015336+red-hat-konflux[bot]@users.noreply.github.com>`,
    );
    assert.equal(text.title, text.commit.subject);
    assert.deepEqual(text.labels, ['konflux-nudge']);
    assert.equal(
      text.body,
      [
        `Image created from '${LINK}'`,
        '',
        'This PR contains the following updates:',
        '',
        '| Package | Update | Change |',
        '|---|---|---|',
        `| ${REPOSITORY} | digest | \`3bc0a33\` -> \`62f4ce6\` |`,
        '',
        '---',
        '',
        '### Configuration',
        '',
        '📅 **Schedule**: Branch creation - At any time (no schedule defined), Automerge - At any time (no schedule defined).',
        '',
        '🚦 **Automerge**: Disabled by config. Please merge this manually once you are satisfied.',
        '',
        '♻ **Rebasing**: Whenever PR is behind base branch, or you tick the rebase/retry checkbox.',
        '',
        "👻 **Immortal**: This PR will be recreated if closed unmerged. Get [config help](https://github.com/renovatebot/renovate/discussions) if that's undesired.",
        '',
        '---',
        '',
        ' - [ ] <!-- rebase-check -->If you want to rebase/retry this PR, check this box',
        '',
        '---',
        '',
        'To execute skipped test pipelines write comment `/ok-to-test`',
        'This is Konflux nudging PR, not Mintmaker.',
      ].join('\n'),
    );
    assert.equal(rebaseRequested(text.body), false);
  });

  it('ConfigMap settings: prefix, suffix, labels, automerge and its schedule, simple branch', () => {
    const { settings } = readRenovateSettings({
      name: 'namespace-wide-nudging-renovate-config',
      data: {
        commitMessagePrefix: 'chore(deps):',
        commitMessageSuffix: '[konflux]',
        labels: 'ok-to-merge',
        automerge: 'true',
        automergeSchedule: 'after 10pm; before 5am',
      },
    });
    const text = nudgePullRequestText(input({ settings, simpleBranch: true, branchModified: true }));
    assert.equal(text.branch, 'konflux/component-updates/component-update-gatekeeper');
    assert.equal(text.title, 'chore(deps): Update gatekeeper to 62f4ce6 [konflux]');
    assert.deepEqual(text.labels, ['konflux-nudge', 'ok-to-merge']);
    assert.ok(text.body.includes('Automerge - "after 10pm,before 5am" (UTC).\n\n🚦 **Automerge**: Enabled.\n'));
    assert.ok(
      text.body.includes(
        ' - [ ] <!-- rebase-check -->If you want to rebase/retry this PR, check this box ⚠️ **Warning**: custom changes will be lost.\n',
      ),
    );
  });

  it('no link and no known previous digest, as Renovate renders them', () => {
    const text = nudgePullRequestText(input({ repoAtShaLink: '', currentDigest: undefined }));
    assert.ok(text.body.startsWith("Image created from ''\n\nThis PR contains"));
    assert.ok(text.body.includes(`| ${REPOSITORY} | digest |  -> \`62f4ce6\` |`));
    assert.ok(text.commit.body.startsWith("Image created from ''\n\nSigned-off-by: "));
  });

  it('refuses inputs that could break the text, naming the field', () => {
    throwsField(() => nudgePullRequestText(input({ repository: 'quay.io/a/b:tag' })), 'repository');
    throwsField(() => nudgePullRequestText(input({ currentDigest: 'sha256:abc' })), 'currentDigest');
    throwsField(() => nudgePullRequestText(input({ gitAuthor: 'bot\n<a@b>' })), 'gitAuthor');
    throwsField(() => nudgeCommitBody(LINK, 'no address'), 'gitAuthor');
    throwsField(() => nudgePullRequestText(input({ repoAtShaLink: "https://x/'" })), 'repoAtShaLink');
  });
});
