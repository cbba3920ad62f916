// The sandbox's Renovate stand-in (src/sandbox/renovate-emulation.ts) over configs the renovate
// executor generates: it must give what the direct executor gives for the same nudge (issue 10):
// the same changed files, branch, commit message, pull request title, body and labels.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rewriteDigests } from '../../src/domain/digest-rewrite/index.ts';
import { nudgePullRequestText } from '../../src/domain/nudge/pull-request-text.ts';
import {
  renovateBatchConfig,
  renovateNudgeConfig,
  type RenovateBatchComponent,
  type RenovateNudgeInput,
} from '../../src/domain/nudge/renovate-config.ts';
import { readRenovateSettings, type RenovateSettings } from '../../src/domain/nudge/renovate-settings.ts';
import { validatedBranch, validatedGroupName } from '../../src/domain/nudge/validated-text.ts';
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

describe('a validated batch: one group, one branch, one commit, one pull request (docs/decisions.md N29)', () => {
  const B = 'quay.io/acme/operand-b';
  const NEW_B = `sha256:${'b0b0b0b'.padEnd(64, 'b')}`;
  const component = (overrides: Partial<RenovateBatchComponent>): RenovateBatchComponent => ({
    component: 'operand-a',
    builtRepository: BUILT,
    builtTag: TAG,
    newDigest: NEW,
    distributionRepositories: [REGISTRY],
    fileMatch: ['.*Dockerfile.*', '.*\\.yaml$'],
    snapshot: 'operators-8x2kq',
    repoAtShaLink: LINK,
    ...overrides,
  });
  const A_ENTRY = component({});
  const B_ENTRY = component({
    component: 'operand-b',
    builtRepository: B,
    builtTag: 'v2',
    newDigest: NEW_B,
    distributionRepositories: [],
    snapshot: 'operators-m4n7z',
    repoAtShaLink: '',
  });
  const batch = (entries: RenovateBatchComponent[], settings = settingsOf({})) =>
    readRenovateConfig(
      JSON.stringify(
        renovateBatchConfig({
          target: GITHUB_TARGET,
          nudged: 'operator-bundle',
          gatingGroup: 'operators',
          settings,
          components: entries,
        }),
      ),
      'test',
    );
  const files = [
    ...FILES,
    { path: 'bundle/manifests/b.yaml', text: `b: ${B}@${OLD}\n` },
    { path: 'hack/b.env', text: `B=${B}@${OLD}\n` },
  ];
  const registry = (depName: string, tag: string) =>
    depName === BUILT && tag === TAG ? NEW : depName === B && tag === 'v2' ? NEW_B : undefined;

  it('every component updated in one commit, each reference to its own new digest, files as the direct executor rewrites them', () => {
    const update = emulateRenovate({ config: batch([A_ENTRY, B_ENTRY]), files, lookupDigest: registry });
    assert.ok(update !== undefined);
    const expected = rewriteDigests(
      files,
      [
        { repository: BUILT, digest: NEW },
        { repository: REGISTRY, digest: NEW },
        { repository: B, digest: NEW_B },
      ],
      A_ENTRY.fileMatch,
    );
    assert.deepEqual(
      update.files.map((f) => [f.path, f.after]).sort(),
      expected.changes.map((c) => [c.path, c.after]).sort(),
    );
    assert.equal(update.branch, validatedBranch('operator-bundle', 'operators'));
    assert.deepEqual(
      [...update.newDigests],
      [
        [BUILT, NEW],
        [B, NEW_B],
      ],
    );
  });

  it('titled "Update <group name>" as Renovate titles a group of digest updates; the body lists every package', () => {
    const config = batch([A_ENTRY, B_ENTRY], settingsOf({ labels: 'team-a' }));
    const update = emulateRenovate({ config, files, lookupDigest: registry });
    assert.ok(update !== undefined);
    assert.equal(update.commitSubject, `Update ${validatedGroupName('operators')}`);
    assert.equal(update.prTitle, update.commitSubject);
    assert.equal(update.commitMessage, `${update.commitSubject}\n\n${config.packageRules[1].commitBody}`);
    assert.ok(update.prBody.startsWith(config.packageRules[1].prHeader), update.prBody);
    assert.match(update.prBody, /\| quay\.io\/acme\/operand-a \| digest \| `1111111` -> `62f4ce6` \|/);
    assert.match(update.prBody, /\| quay\.io\/acme\/operand-b \| digest \| `1111111` -> `b0b0b0b` \|/);
    assert.deepEqual(update.labels, ['konflux-nudge', 'team-a']);
    const semantic = emulateRenovate({ config, files, lookupDigest: registry, semanticCommits: true });
    assert.equal(semantic?.commitSubject, 'chore(deps): update validated images of operators');
  });

  it('a batch of one component is no group to Renovate, yet titled the same by its rule', () => {
    const update = emulateRenovate({ config: batch([B_ENTRY]), files, lookupDigest: registry });
    assert.equal(update?.commitSubject, `Update ${validatedGroupName('operators')}`);
    assert.equal(update.branch, validatedBranch('operator-bundle', 'operators'));
  });

  it("each component's own fileMatch selects its files", () => {
    const onlyEnv = { ...B_ENTRY, fileMatch: ['\\.env$'] };
    const update = emulateRenovate({ config: batch([A_ENTRY, onlyEnv]), files, lookupDigest: registry });
    const changed = new Map(update?.files.map((f) => [f.path, f.after]));
    assert.equal(changed.get('hack/b.env'), `B=${B}@${NEW_B}\n`);
    assert.equal(changed.has('bundle/manifests/b.yaml'), false);
    assert.match(changed.get('Dockerfile') ?? '', new RegExp(`${BUILT}@${NEW}`));
  });
});
