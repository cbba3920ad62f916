import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { rewriteDigests, type RepositoryFile } from '../../../src/domain/digest-rewrite/index.ts';
import { githubAppGitAuthor } from '../../../src/domain/nudge/git-author.ts';
import {
  nudgeMatchString,
  quoteMeta,
  renovateNudgeConfig,
  type RenovateNudgeInput,
} from '../../../src/domain/nudge/renovate-config.ts';
import { NO_RENOVATE_SETTINGS, readRenovateSettings } from '../../../src/domain/nudge/renovate-settings.ts';
import { RenovateNudgeConfig } from '../../../src/schema/renovate-config.ts';
import { throwsField } from './renovate-fixtures.ts';

const hex = (c: string) => c.repeat(64);
const OLD = `sha256:${hex('1')}`;
const OTHER = `sha256:${hex('3')}`;
const NEW = `sha256:${'62f4ce6'.padEnd(64, 'a')}`;
const BUILT = 'quay.io/redhat-user-workloads/operator-tenant/operand-a';
const PROD = 'quay.io/redhat-prod/openshift4----operand-a-rhel9';
const REGISTRY = 'registry.redhat.io/openshift4/operand-a-rhel9';
const TAG = '0123456789abcdef0123456789abcdef01234567';
const LINK = `https://github.com/acme/operand-a?rev=${TAG}`;
const AUTHOR = githubAppGitAuthor('red-hat-konflux', 126015336);

const input = (overrides: Partial<RenovateNudgeInput> = {}): RenovateNudgeInput => ({
  target: {
    platform: 'github',
    username: 'red-hat-konflux[bot]',
    gitAuthor: AUTHOR,
    endpoint: 'https://api.github.com/',
    repository: 'acme/operator-bundle',
    baseBranch: 'main',
  },
  nudging: 'operand-a',
  nudged: 'operator-bundle',
  simpleBranch: false,
  builtRepository: BUILT,
  builtTag: TAG,
  distributionRepositories: [PROD, REGISTRY],
  repoAtShaLink: LINK,
  settings: NO_RENOVATE_SETTINGS,
  fileMatch: ['.*Dockerfile.*', '.*.yaml', '.*Containerfile.*'],
  ...overrides,
});

describe('renovateNudgeConfig: build-service generateRenovateConfigForNudge, konflux-upstream §3', () => {
  it('every field, in build-service order, for default settings', () => {
    const config = renovateNudgeConfig(input());
    assert.deepEqual(Object.keys(config), [
      'platform',
      'username',
      'gitAuthor',
      'onboarding',
      'requireConfig',
      'repositories',
      'enabledManagers',
      'endpoint',
      'customManagers',
      'registryAliases',
      'packageRules',
      'forkProcessing',
      'extends',
      'dependencyDashboard',
      'labels',
      'automerge',
      'platformAutomerge',
      'ignoreTests',
      'gitLabIgnoreApprovals',
    ]);
    assert.deepEqual(config, {
      platform: 'github',
      username: 'red-hat-konflux[bot]',
      gitAuthor: AUTHOR,
      onboarding: false,
      requireConfig: 'ignored',
      repositories: [{ repository: 'acme/operator-bundle', baseBranches: ['main'] }],
      enabledManagers: ['custom.regex'],
      endpoint: 'https://api.github.com/',
      customManagers: [
        {
          fileMatch: ['.*Dockerfile.*', '.*.yaml', '.*Containerfile.*'],
          customType: 'regex',
          datasourceTemplate: 'docker',
          matchStrings: [nudgeMatchString(BUILT), nudgeMatchString(PROD), nudgeMatchString(REGISTRY)],
          currentValueTemplate: TAG,
          depNameTemplate: BUILT,
        },
      ],
      registryAliases: { [PROD]: BUILT, [REGISTRY]: BUILT },
      packageRules: [
        { matchPackagePatterns: ['*'], enabled: false },
        {
          matchPackageNames: [BUILT, PROD, REGISTRY],
          groupName: 'Component Update operand-a',
          branchPrefix: 'konflux/component-updates/',
          branchTopic: 'operand-a',
          additionalBranchPrefix: 'operator-bundle-',
          commitMessageTopic: 'operand-a',
          commitBody: `Image created from '${LINK}'\n\nSigned-off-by: ${AUTHOR}`,
          prFooter:
            'To execute skipped test pipelines write comment `/ok-to-test`\nThis is Konflux nudging PR, not Mintmaker.',
          prHeader: `Image created from '${LINK}'`,
          recreateWhen: 'always',
          rebaseWhen: 'behind-base-branch',
          enabled: true,
        },
      ],
      forkProcessing: 'enabled',
      extends: [],
      dependencyDashboard: false,
      labels: ['konflux-nudge'],
      automerge: false,
      platformAutomerge: false,
      ignoreTests: false,
      gitLabIgnoreApprovals: false,
    });
  });

  it('ConfigMap settings reach the config; false booleans are written, not omitted (N15)', () => {
    const { settings } = readRenovateSettings({
      name: 'operator-bundle-renovate',
      data: {
        automerge: 'true',
        platformAutomerge: 'false',
        automergeType: 'branch',
        commitMessagePrefix: 'chore(deps):',
        commitMessageSuffix: '[bundle]',
        labels: 'lgtm',
        automergeSchedule: 'after 10pm; before 5am',
      },
    });
    const config = renovateNudgeConfig(input({ settings, simpleBranch: true, distributionRepositories: [] }));
    assert.equal(config.automerge, true);
    assert.equal(config.platformAutomerge, false);
    assert.equal(config.automergeType, 'branch');
    assert.deepEqual(config.automergeSchedule, ['after 10pm', 'before 5am']);
    assert.deepEqual(config.labels, ['konflux-nudge', 'lgtm']);
    assert.equal(config.registryAliases, undefined);
    const rule = config.packageRules[1];
    assert.equal(rule.additionalBranchPrefix, '');
    assert.equal(rule.commitMessagePrefix, 'chore(deps):');
    assert.equal(rule.commitMessageSuffix, '[bundle]');
    assert.deepEqual(rule.matchPackageNames, [BUILT]);
    assert.ok(JSON.stringify(config).includes('"platformAutomerge":false'));
  });

  it('validates against the closed schema (src/schema/renovate-config.ts)', () => {
    const validate = new Ajv({ strict: true, allErrors: true }).compile(RenovateNudgeConfig);
    for (const config of [
      renovateNudgeConfig(input()),
      renovateNudgeConfig(input({ distributionRepositories: [], simpleBranch: true })),
    ]) {
      assert.equal(validate(config), true, JSON.stringify(validate.errors));
    }
    assert.equal(validate({ ...renovateNudgeConfig(input()), token: 'x' }), false);
  });

  it('no token anywhere: the target has none, and an endpoint with credentials is refused', () => {
    const json = JSON.stringify(renovateNudgeConfig(input()));
    assert.equal(/token|password|secret/i.test(json), false);
    throwsField(
      () =>
        renovateNudgeConfig(input({ target: { ...input().target, endpoint: 'https://x:ghp_abc@api.github.com/' } })),
      'target.endpoint',
    );
    assert.throws(
      () =>
        renovateNudgeConfig(input({ target: { ...input().target, endpoint: 'https://x:ghp_abc@api.github.com/' } })),
      (error: unknown) => error instanceof Error && !error.message.includes('ghp_abc'),
    );
  });

  it('refuses unsafe inputs, naming the field', () => {
    const target = input().target;
    throwsField(() => renovateNudgeConfig(input({ builtRepository: `${BUILT}:tag` })), 'builtRepository');
    throwsField(() => renovateNudgeConfig(input({ builtTag: '{{x}}' })), 'builtTag');
    throwsField(
      () => renovateNudgeConfig(input({ distributionRepositories: ['Not A Repo'] })),
      'distributionRepositories[0]',
    );
    throwsField(() => renovateNudgeConfig(input({ fileMatch: [] })), 'fileMatch');
    throwsField(() => renovateNudgeConfig(input({ target: { ...target, baseBranch: 'a..b' } })), 'target.baseBranch');
    throwsField(() => renovateNudgeConfig(input({ target: { ...target, baseBranch: 'a b' } })), 'target.baseBranch');
    throwsField(() => renovateNudgeConfig(input({ target: { ...target, repository: 'acme' } })), 'target.repository');
    throwsField(
      () => renovateNudgeConfig(input({ target: { ...target, repository: 'acme/../x' } })),
      'target.repository',
    );
    throwsField(() => renovateNudgeConfig(input({ target: { ...target, username: 'a b' } })), 'target.username');
    throwsField(() => renovateNudgeConfig(input({ nudged: 'Bundle' })), 'nudged');
    throwsField(
      () => renovateNudgeConfig(input({ settings: { ...NO_RENOVATE_SETTINGS, commitMessagePrefix: '{{x}}' } })),
      'commitMessagePrefix',
    );
    throwsField(
      () => renovateNudgeConfig(input({ settings: { ...NO_RENOVATE_SETTINGS, labels: ['{{x}}'] } })),
      'labels[1]',
    );
    for (const baseBranch of ['release-1.2', 'feature/x_y', 'v1.0+build']) {
      assert.doesNotThrow(() => renovateNudgeConfig(input({ target: { ...target, baseBranch } })), baseBranch);
    }
  });

  it('distribution repositories are listed once, after the built repository', () => {
    const config = renovateNudgeConfig(input({ distributionRepositories: [REGISTRY, BUILT, REGISTRY] }));
    assert.deepEqual(config.packageRules[1].matchPackageNames, [BUILT, REGISTRY]);
  });
});

describe('matchStrings: quoted, anchored, RE2-safe (N16)', () => {
  it('quotes the repository as Go regexp.QuoteMeta', () => {
    assert.equal(
      quoteMeta('quay.io/a+b(c)[d]{e}|f^g$h*i?j\\k'),
      'quay\\.io/a\\+b\\(c\\)\\[d\\]\\{e\\}\\|f\\^g\\$h\\*i\\?j\\\\k',
    );
    assert.ok(nudgeMatchString(BUILT).includes('quay\\.io/redhat-user-workloads/operator-tenant/operand-a'));
  });

  it('uses only syntax RE2 compiles: no lookaround, no backreference', () => {
    for (const matchString of renovateNudgeConfig(input()).customManagers[0]?.matchStrings ?? []) {
      assert.equal(/\(\?<?[=!]|\\[1-9]/.test(matchString), false, matchString);
      assert.equal((matchString.match(/\(\?<[A-Za-z]/g) ?? []).length, 1, 'one named group, currentDigest');
      assert.doesNotThrow(() => new RegExp(matchString, 'g'));
    }
  });

  it("build-service's unquoted pattern over-matches where nudger's does not", () => {
    const buildService = new RegExp(`${BUILT}(:.*)?@(?<currentDigest>sha256:[a-f0-9]+)`);
    const ours = new RegExp(nudgeMatchString(BUILT));
    const lookalike = `image: quayXio/redhat-user-workloads/operator-tenant/operand-a@${OLD}`;
    const inside = `image: evil.io/${BUILT}@${OLD}`;
    const longer = `image: ${BUILT}-extra@${OLD}`;
    for (const text of [lookalike, inside]) {
      assert.equal(buildService.test(text), true, text);
      assert.equal(ours.test(text), false, text);
    }
    assert.equal(ours.test(longer), false);
    // (:.*) is greedy: build-service takes the last digest of the line, another image's.
    const twoOnALine = `args: [${BUILT}:v1@${OLD}, quay.io/other/b@${OTHER}]`;
    assert.equal(buildService.exec(twoOnALine)?.groups?.currentDigest, OTHER);
    assert.equal(ours.exec(twoOnALine)?.groups?.currentDigest, OLD);
  });
});

/**
 * What Renovate does with the generated customManager over one repository (renovatebot/renovate
 * lib/modules/manager/custom/regex: handleAny compiles each matchString with the g flag and runs
 * it over the whole file, keeping the full match as replaceString; the fileMatch regexes are
 * tested, unanchored, against the path; auto-replace puts the new digest for currentDigest inside
 * that match, at its position). Every dep's depName is the built repository, so one new digest
 * applies to all of them.
 */
function renovateRewrite(
  files: readonly RepositoryFile[],
  matchStrings: readonly string[],
  fileMatch: readonly string[],
  digest: string,
) {
  const out = new Map<string, string>();
  for (const file of files) {
    if (!fileMatch.some((pattern) => new RegExp(pattern).test(file.path))) continue;
    const edits: { index: number; length: number; text: string }[] = [];
    for (const matchString of matchStrings) {
      for (const match of file.text.matchAll(new RegExp(matchString, 'g'))) {
        const current = match.groups?.currentDigest ?? '';
        if (current === digest) continue;
        edits.push({ index: match.index, length: match[0].length, text: match[0].replace(current, digest) });
      }
    }
    edits.sort((a, b) => a.index - b.index);
    let text = '';
    let copied = 0;
    for (const edit of edits) {
      assert.ok(edit.index >= copied, `overlapping matches in ${file.path}`);
      text += file.text.slice(copied, edit.index) + edit.text;
      copied = edit.index + edit.length;
    }
    if (edits.length > 0) out.set(file.path, text + file.text.slice(copied));
  }
  return out;
}

function directRewrite(
  files: readonly RepositoryFile[],
  repositories: readonly string[],
  fileMatch: readonly string[],
  digest: string,
) {
  const result = rewriteDigests(
    files,
    repositories.map((repository) => ({ repository, digest })),
    fileMatch,
  );
  return new Map(result.changes.map((change) => [change.path, change.after]));
}

const CSV = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: operator.v1.2.3
  annotations:
    containerImage: ${REGISTRY}@${OLD}
spec:
  install:
    spec:
      deployments:
        - name: operator
          spec:
            template:
              spec:
                containers:
                  - name: manager
                    image: quay.io/redhat-user-workloads/operator-tenant/operator@${OTHER}
                    env:
                      - name: RELATED_IMAGE_OPERAND_A
                        value: "${BUILT}@${OLD}"
                      - name: OPERAND_A_TAGGED
                        value: '${BUILT}:v1.2.3@${OLD}'
  relatedImages:
    - name: operand-a
      image: ${REGISTRY}@${OLD}
    - name: operand-a-prod
      image: ${PROD}@${OLD}
    - name: operand-a-extra
      image: ${BUILT}-extra@${OLD}
    - name: operand-a-sub
      image: ${BUILT}/sub@${OLD}
    - name: tag-only
      image: ${BUILT}:latest
    - name: lookalike
      image: quayXio/redhat-user-workloads/operator-tenant/operand-a@${OLD}
    - name: mirrored
      image: mirror.example.com/${BUILT}@${OLD}
`;

const DOCKERFILE = `FROM ${BUILT}:v1@${OLD} AS operand
FROM registry.access.redhat.com/ubi9/ubi-minimal@${OTHER}
ARG OPERAND_A_IMAGE=${BUILT}@${OLD}
LABEL operand="${REGISTRY}@${OLD}" broken="${BUILT}@sha256:${hex('1')}0"
RUN skopeo copy docker://${BUILT}@${OLD} oci:/tmp/a && echo ${BUILT}@${OLD},${REGISTRY}@${OLD} ${BUILT}@${OLD}
`;

const ENV = `OPERAND_A_IMAGE=${BUILT}@${OLD}
OPERAND_A_IMAGE_REGISTRY=${REGISTRY}@${OLD}
UPPER=${BUILT}@sha256:${hex('A')}
${BUILT}@${OLD}`;

describe('the two executors rewrite the same references (N16)', () => {
  const config = renovateNudgeConfig(input({ fileMatch: ['.*Dockerfile.*', '.*\\.yaml$', '.*\\.env$'] }));
  const [manager] = config.customManagers;
  if (manager === undefined) throw new Error('the config has no custom manager');
  const repositories = [BUILT, PROD, REGISTRY];
  const files: RepositoryFile[] = [
    { path: 'bundle/manifests/operator.clusterserviceversion.yaml', text: CSV },
    { path: 'Dockerfile', text: DOCKERFILE },
    { path: 'hack/images.env', text: ENV },
    { path: 'docs/README.md', text: `${BUILT}@${OLD}\n` },
  ];

  it('on a bundle CSV, a Dockerfile and an .env pin file', () => {
    const renovate = renovateRewrite(files, manager.matchStrings, manager.fileMatch, NEW);
    const direct = directRewrite(files, repositories, manager.fileMatch, NEW);
    assert.deepEqual([...renovate.keys()].sort(), [...direct.keys()].sort());
    for (const [path, text] of direct) assert.equal(renovate.get(path), text, path);
    // What was and was not rewritten, spelled out.
    const csv = direct.get('bundle/manifests/operator.clusterserviceversion.yaml') ?? '';
    assert.equal(csv.split(NEW).length - 1, 5);
    for (const kept of [
      `${BUILT}-extra@${OLD}`,
      `${BUILT}/sub@${OLD}`,
      `${BUILT}:latest`,
      `quayXio/`,
      `mirror.example.com/${BUILT}@${OLD}`,
      OTHER,
    ]) {
      assert.ok(csv.includes(kept), kept);
    }
    const dockerfile = direct.get('Dockerfile') ?? '';
    assert.equal(dockerfile.split(NEW).length - 1, 7);
    assert.ok(dockerfile.includes(`broken="${BUILT}@sha256:${hex('1')}0"`));
    assert.equal((direct.get('hack/images.env') ?? '').split(NEW).length - 1, 3);
    assert.equal(direct.has('docs/README.md'), false);
  });

  it('property: on any text made of references, names and separators', () => {
    const fragment = fc.constantFrom(
      `${BUILT}@${OLD}`,
      `${BUILT}:v1.0@${OLD}`,
      `${BUILT}:latest`,
      `${PROD}@${OLD}`,
      `${REGISTRY}@${OTHER}`,
      `${REGISTRY}:1@${NEW}`,
      `${BUILT}-x@${OLD}`,
      `${BUILT}/y@${OLD}`,
      `evil.io/${BUILT}@${OLD}`,
      `quayXio/redhat-user-workloads/operator-tenant/operand-a@${OLD}`,
      `docker://`,
      '@sha256:',
      hex('b'),
      'A',
      '_',
      ' ',
      ',',
      '\n',
      '"',
      ':',
      '/',
      '.',
      '-',
    );
    let rewritten = 0;
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 24 }), (parts) => {
        const text = parts.join('');
        const one = [{ path: 'x.yaml', text }];
        const renovate = renovateRewrite(one, manager.matchStrings, ['.*'], NEW).get('x.yaml') ?? text;
        const direct = directRewrite(one, repositories, ['.*'], NEW).get('x.yaml') ?? text;
        assert.equal(renovate, direct, JSON.stringify(text));
        if (direct !== text) rewritten += 1;
      }),
      { numRuns: 2000 },
    );
    // The generated texts do hold references to rewrite, not only near misses.
    assert.ok(rewritten > 200, String(rewritten));
  });
});
