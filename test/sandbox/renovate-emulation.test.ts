// The sandbox's Renovate stand-in (src/sandbox/renovate-emulation.ts) over configs the renovate
// executor generates: it must give what the direct executor gives for the same nudge (issue 10):
// the same changed files, branch, commit message, pull request title, body and labels.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rewriteDigests } from '../../src/domain/digest-rewrite/index.ts';
import { nudgePullRequestText } from '../../src/domain/nudge/pull-request-text.ts';
import { renovateNudgeConfig, type RenovateNudgeInput } from '../../src/domain/nudge/renovate-config.ts';
import { readRenovateSettings, type RenovateSettings } from '../../src/domain/nudge/renovate-settings.ts';
import {
  RenovateEmulationError,
  emulateRenovate,
  extractDependencies,
  packageEnabled,
  readRenovateConfig,
  renovateBranchName,
} from '../../src/sandbox/renovate-emulation.ts';
import { GITHUB_TARGET } from '../domain/nudge/renovate-fixtures.ts';

const hex = (c: string) => c.repeat(64);
const OLD = `sha256:${hex('1')}`;
const OTHER = `sha256:${hex('3')}`;
const NEW = `sha256:${'62f4ce6'.padEnd(64, 'a')}`;
const BUILT = 'quay.io/acme/operand-a';
const REGISTRY = 'registry.redhat.io/acme/operand-a-rhel9';
const TAG = '0123456789abcdef0123456789abcdef01234567';
const LINK = `https://github.com/acme/operand-a?rev=${TAG}`;
const AUTHOR = GITHUB_TARGET.gitAuthor;

const settingsOf = (data: Record<string, string>): RenovateSettings =>
  readRenovateSettings({ name: 'namespace-wide-nudging-renovate-config', data }).settings;

const input = (overrides: Partial<RenovateNudgeInput> = {}): RenovateNudgeInput => ({
  target: GITHUB_TARGET,
  nudging: 'operand-a',
  nudged: 'operator-bundle',
  simpleBranch: false,
  builtRepository: BUILT,
  builtTag: TAG,
  distributionRepositories: [REGISTRY],
  repoAtShaLink: LINK,
  settings: settingsOf({}),
  fileMatch: ['.*Dockerfile.*', '.*\\.yaml$'],
  ...overrides,
});

const FILES = [
  {
    path: 'bundle/manifests/csv.yaml',
    text: [
      'spec:',
      `  a: ${BUILT}@${OLD}`,
      `  b: "${BUILT}:v1@${OLD}"`,
      `  c: ${REGISTRY}@${OLD}`,
      `  d: ${BUILT}-extra@${OLD}`,
      `  e: quay.io/acme/other@${OTHER}`,
      `  f: ${BUILT}:latest`,
      '',
    ].join('\n'),
  },
  { path: 'Dockerfile', text: `FROM ${BUILT}@${OLD}\nRUN echo ${BUILT}@${OLD},${REGISTRY}@${OLD}\n` },
  { path: 'docs/README.md', text: `${BUILT}@${OLD}\n` },
];

const lookup = (depName: string, tag: string) => (depName === BUILT && tag === TAG ? NEW : undefined);

function direct(overrides: Partial<RenovateNudgeInput>) {
  const full = input(overrides);
  const rewrite = rewriteDigests(
    FILES,
    [BUILT, ...full.distributionRepositories].map((repository) => ({ repository, digest: NEW })),
    full.fileMatch,
  );
  const text = nudgePullRequestText({
    nudging: full.nudging,
    nudged: full.nudged,
    simpleBranch: full.simpleBranch,
    repository: BUILT,
    currentDigest: OLD,
    newDigest: NEW,
    repoAtShaLink: LINK,
    gitAuthor: AUTHOR,
    settings: full.settings,
  });
  return { rewrite, text };
}

describe('the Renovate stand-in gives what the direct executor gives', () => {
  for (const [title, overrides] of [
    ['default settings', {}],
    ['simple branch', { simpleBranch: true }],
    [
      'every ConfigMap key that shows',
      {
        settings: settingsOf({
          commitMessagePrefix: '[nudge]',
          commitMessageSuffix: '(automated)',
          labels: 'team-a, approved',
          automerge: 'true',
          automergeSchedule: 'after 10pm',
        }),
      },
    ],
    ['no distribution repositories', { distributionRepositories: [] }],
  ] as const) {
    it(title, () => {
      const config = readRenovateConfig(JSON.stringify(renovateNudgeConfig(input(overrides))), 'test');
      const update = emulateRenovate({ config, files: FILES, lookupDigest: lookup });
      assert.ok(update !== undefined);
      const expected = direct(overrides);
      assert.deepEqual(
        update.files.map((f) => [f.path, f.after]).sort(),
        expected.rewrite.changes.map((c) => [c.path, c.after]).sort(),
      );
      assert.equal(update.branch, expected.text.branch);
      assert.equal(update.commitMessage, expected.text.commit.message);
      assert.equal(update.prTitle, expected.text.title);
      assert.equal(update.prBody, expected.text.body);
      assert.deepEqual(update.labels, expected.text.labels);
      assert.deepEqual([update.repository, update.baseBranch, update.newDigest], ['acme/operator-bundle', 'main', NEW]);
    });
  }

  it('the updates table names the first reference of the first file, whichever repository it is', () => {
    const files = [{ path: 'a.yaml', text: `x: ${REGISTRY}@${OTHER}\ny: ${BUILT}@${OLD}\n` }];
    const update = emulateRenovate({ config: renovateNudgeConfig(input()), files, lookupDigest: lookup });
    assert.match(update?.prBody ?? '', new RegExp(`\\| \`${hex('3').slice(0, 7)}\` -> \`62f4ce6\` \\|`));
  });

  it('semantic commits, as Renovate detects them, lower-case the subject with chore(deps):', () => {
    const config = renovateNudgeConfig(input());
    const update = emulateRenovate({ config, files: FILES, lookupDigest: lookup, semanticCommits: true });
    assert.equal(update?.commitSubject, 'chore(deps): update operand-a to 62f4ce6');
  });
});

describe('the regex manager as documented', () => {
  const config = renovateNudgeConfig(input());

  it('extracts every match of every matchString in the files fileMatch selects, in matchString order', () => {
    const dependencies = extractDependencies(config, FILES);
    assert.deepEqual(
      dependencies.map((d) => [d.path, d.currentDigest, d.depName, d.currentValue]),
      [
        ['bundle/manifests/csv.yaml', OLD, BUILT, TAG],
        ['bundle/manifests/csv.yaml', OLD, BUILT, TAG],
        ['bundle/manifests/csv.yaml', OLD, BUILT, TAG],
        ['Dockerfile', OLD, BUILT, TAG],
        ['Dockerfile', OLD, BUILT, TAG],
        ['Dockerfile', OLD, BUILT, TAG],
      ],
    );
    // The match keeps the character consumed before the repository (the RE2 anchor, N16).
    assert.equal(dependencies[0]?.replaceString, ` ${BUILT}@${OLD}`);
  });

  it('packageRules: everything disabled, then the nudge rule enables its own packages', () => {
    assert.equal(packageEnabled(config, BUILT), true);
    assert.equal(packageEnabled(config, REGISTRY), true);
    assert.equal(packageEnabled(config, 'quay.io/acme/other'), false);
  });

  it('the group slug, not branchTopic, names the branch', () => {
    assert.equal(renovateBranchName(config), 'konflux/component-updates/operator-bundle-component-update-operand-a');
  });

  it('nothing to do when the registry gives the digest already pinned, or gives none', () => {
    assert.equal(emulateRenovate({ config, files: FILES, lookupDigest: () => OLD }), undefined);
    assert.equal(emulateRenovate({ config, files: FILES, lookupDigest: () => undefined }), undefined);
  });

  it('a pinned digest the registry already points to is left as it is, others are updated', () => {
    const files = [{ path: 'a.yaml', text: `x: ${BUILT}@${NEW}\ny: ${BUILT}@${OLD}\n` }];
    const update = emulateRenovate({ config, files, lookupDigest: lookup });
    assert.equal(update?.files[0]?.after, `x: ${BUILT}@${NEW}\ny: ${BUILT}@${NEW}\n`);
  });

  it('asks for the forge auto-merge as one Renovate run does: automerge, type pr, platformAutomerge, no schedule', () => {
    const automerge = (data: Record<string, string>) =>
      emulateRenovate({
        config: renovateNudgeConfig(input({ settings: settingsOf(data) })),
        files: FILES,
        lookupDigest: lookup,
      })?.platformAutomerge;
    assert.equal(automerge({}), false);
    assert.equal(automerge({ automerge: 'true' }), true);
    assert.equal(automerge({ automerge: 'true', platformAutomerge: 'false' }), false);
    assert.equal(automerge({ automerge: 'true', automergeType: 'branch' }), false);
    assert.equal(automerge({ automerge: 'true', automergeSchedule: 'after 10pm' }), false);
  });

  it('refuses a ConfigMap value that is not a nudge config', () => {
    assert.throws(() => readRenovateConfig('{', 'cm/x key y'), RenovateEmulationError);
    assert.throws(
      () => readRenovateConfig(JSON.stringify({ ...config, customManagers: [] }), 'cm/x key y'),
      /cm\/x key y: not a nudge config/,
    );
  });
});
