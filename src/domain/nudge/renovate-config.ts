// The Renovate config of the `renovate` executor, one per nudged target (docs/decisions.md D9): what
// build-service's generateRenovateConfigForNudge writes (internal/controller/renovate_util.go),
// with the differences docs/decisions.md N15 and N16 give reasons for: the four booleans are
// always written, and the matchStrings are quoted, anchored and RE2-safe, so that Renovate rewrites
// exactly the references the `direct` executor (src/domain/digest-rewrite) rewrites.
//
// The branch, commit and pull request settings come from the same functions the `direct` executor
// uses (pull-request-text.ts), so the two cannot drift apart. No token is an input: Renovate reads
// it from the environment the nudge PipelineRun sets from its Secret.
import { compileFileMatch, isImageRepository } from '../digest-rewrite/index.ts';
import type { RenovateNudgeConfig, RenovatePlatform } from '../../schema/renovate-config.ts';
import { RENOVATE_PLATFORMS } from '../../schema/renovate-config.ts';
import { checkCommitMessageAffix } from './commit-subject.ts';
import { NudgeInputError } from './errors.ts';
import {
  NUDGE_BRANCH_PREFIX,
  NUDGE_PR_FOOTER,
  checkGitAuthor,
  nudgeBranch,
  nudgeCommitBody,
  nudgeLabels,
  nudgePrHeader,
} from './pull-request-text.ts';
import type { RenovateSettings } from './renovate-settings.ts';
import { unsafeCharacterProblem } from './text-checks.ts';

export type { RenovateNudgeConfig, RenovatePlatform };

export interface RenovateTarget {
  readonly platform: RenovatePlatform;
  /** The forge user Renovate acts as (`<slug>[bot]` for a GitHub App). */
  readonly username: string;
  /** githubAppGitAuthor or scmTokenGitAuthor. */
  readonly gitAuthor: string;
  /** The forge API, e.g. `https://api.github.com/`; never with credentials in it. */
  readonly endpoint: string;
  /** `<org>/<repo>` (GitLab: `<group>/<subgroup>/<repo>`). */
  readonly repository: string;
  /** The nudged Component's revision, else the repository's default branch. */
  readonly baseBranch: string;
}

export interface RenovateNudgeInput {
  readonly target: RenovateTarget;
  readonly nudging: string;
  readonly nudged: string;
  readonly simpleBranch: boolean;
  /** IMAGE_URL of the build split at its last `:`: the repository ... */
  readonly builtRepository: string;
  /** ... and the tag, which Renovate looks up in the registry for the new digest. */
  readonly builtTag: string;
  /** D6 distribution repositories of the nudging component, without the built repository. */
  readonly distributionRepositories: readonly string[];
  readonly repoAtShaLink: string;
  readonly settings: RenovateSettings;
  /** fileMatchInForce: the ConfigMap's, else the build's annotation, else the default. */
  readonly fileMatch: readonly string[];
}

/** Go's regexp.QuoteMeta: every character RE2 gives meaning to, backslash-escaped. */
export function quoteMeta(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

// D6's anchors in RE2 syntax (no lookaround, docs/decisions.md N16), the same as referenceRegex in
// src/domain/digest-rewrite/reference.ts: before the repository the start of the file, `://`, or a
// character that cannot continue an image name (consumed; Renovate only rewrites the digest inside
// the match); after it an optional tag of the reference grammar, `@`, and exactly 64 hex digits
// ending at a word boundary.
const BEFORE_REPOSITORY = '(?:^|://|[^-A-Za-z0-9_./])';
const TAG = '(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?';
const DIGEST = '@(?<currentDigest>sha256:[a-f0-9]{64})\\b';

/** The matchString for one repository, regex-quoted (build-service does not quote it). */
export function nudgeMatchString(repository: string): string {
  if (!isImageRepository(repository)) {
    throw new NudgeInputError('repository', 'is not an image repository (no tag, no digest)');
  }
  return `${BEFORE_REPOSITORY}${quoteMeta(repository)}${TAG}${DIGEST}`;
}

const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const FORGE_USERNAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9_])?(?:\[bot\])?$/;
const REPOSITORY_PATH = /^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+$/;

/** git check-ref-format's rules for a branch name, plus no whitespace and no Renovate template. */
function branchNameProblem(name: string): string | undefined {
  if (name === '' || name.length > 255) return 'is empty or too long';
  if (unsafeCharacterProblem(name) !== undefined || /[\s~^:?*[\\{}]/.test(name)) {
    return 'holds a character git does not allow in a branch name';
  }
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) {
    return 'starts with "-" or "/", or ends with "/" or "."';
  }
  if (name.includes('..') || name.includes('//') || name.includes('@{') || name === '@') return 'is not a branch name';
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) return 'is not a branch name';
  return undefined;
}

function checkEndpoint(endpoint: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new NudgeInputError('target.endpoint', 'is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new NudgeInputError('target.endpoint', 'is not an http(s) URL');
  }
  // A token in the URL would land in a ConfigMap; tokens go to the Secret only.
  if (url.username !== '' || url.password !== '')
    throw new NudgeInputError('target.endpoint', 'carries user information');
  if (url.search !== '' || url.hash !== '' || /[\s{}'"<>]/.test(endpoint)) {
    throw new NudgeInputError('target.endpoint', 'has a query, a fragment or a character a URL does not need');
  }
}

function checkTarget(target: RenovateTarget): void {
  if (!(RENOVATE_PLATFORMS as readonly string[]).includes(target.platform)) {
    throw new NudgeInputError('target.platform', `is not one of ${RENOVATE_PLATFORMS.join(', ')}`);
  }
  if (!FORGE_USERNAME.test(target.username)) throw new NudgeInputError('target.username', 'is not a forge user name');
  checkGitAuthor(target.gitAuthor);
  checkEndpoint(target.endpoint);
  if (!REPOSITORY_PATH.test(target.repository) || target.repository.split('/').some((part) => /^\.+$/.test(part))) {
    throw new NudgeInputError('target.repository', 'is not <org>/<repo>');
  }
  const branchProblem = branchNameProblem(target.baseBranch);
  if (branchProblem !== undefined) throw new NudgeInputError('target.baseBranch', branchProblem);
}

/** The repositories whose references the nudge rewrites: built first, then each distribution repository once. */
function nudgedRepositories(input: RenovateNudgeInput): string[] {
  const repositories = [input.builtRepository];
  input.distributionRepositories.forEach((repository, i) => {
    if (!isImageRepository(repository)) {
      throw new NudgeInputError(`distributionRepositories[${String(i)}]`, 'is not an image repository');
    }
    if (!repositories.includes(repository)) repositories.push(repository);
  });
  return repositories;
}

/** The config for one nudged target; throws NudgeInputError naming the field of any unsafe input. */
export function renovateNudgeConfig(input: RenovateNudgeInput): RenovateNudgeConfig {
  checkTarget(input.target);
  if (!isImageRepository(input.builtRepository)) {
    throw new NudgeInputError('builtRepository', 'is not an image repository (no tag, no digest)');
  }
  if (!IMAGE_TAG.test(input.builtTag)) throw new NudgeInputError('builtTag', 'is not an image tag');
  if (input.fileMatch.length === 0) throw new NudgeInputError('fileMatch', 'is empty');
  compileFileMatch(input.fileMatch);
  const repositories = nudgedRepositories(input);
  const [, ...distribution] = repositories;
  const { settings } = input;
  // Checks both names as the direct executor does; Renovate names the same branch from the
  // branchPrefix, the additionalBranchPrefix and the groupName's slug below.
  nudgeBranch(input.nudged, input.nudging, input.simpleBranch);
  checkCommitMessageAffix('commitMessagePrefix', settings.commitMessagePrefix);
  checkCommitMessageAffix('commitMessageSuffix', settings.commitMessageSuffix);
  const additionalBranchPrefix = input.simpleBranch ? '' : `${input.nudged}-`;
  return {
    platform: input.target.platform,
    username: input.target.username,
    gitAuthor: input.target.gitAuthor,
    onboarding: false,
    requireConfig: 'ignored',
    repositories: [{ repository: input.target.repository, baseBranches: [input.target.baseBranch] }],
    enabledManagers: ['custom.regex'],
    endpoint: input.target.endpoint,
    customManagers: [
      {
        fileMatch: [...input.fileMatch],
        customType: 'regex',
        datasourceTemplate: 'docker',
        matchStrings: repositories.map(nudgeMatchString),
        currentValueTemplate: input.builtTag,
        depNameTemplate: input.builtRepository,
      },
    ],
    ...(distribution.length === 0
      ? {}
      : { registryAliases: Object.fromEntries(distribution.map((r) => [r, input.builtRepository])) }),
    packageRules: [
      { matchPackagePatterns: ['*'], enabled: false },
      {
        matchPackageNames: repositories,
        groupName: `Component Update ${input.nudging}`,
        branchPrefix: NUDGE_BRANCH_PREFIX,
        branchTopic: input.nudging,
        additionalBranchPrefix,
        commitMessageTopic: input.nudging,
        ...(settings.commitMessagePrefix === '' ? {} : { commitMessagePrefix: settings.commitMessagePrefix }),
        ...(settings.commitMessageSuffix === '' ? {} : { commitMessageSuffix: settings.commitMessageSuffix }),
        commitBody: nudgeCommitBody(input.repoAtShaLink, input.target.gitAuthor),
        prFooter: NUDGE_PR_FOOTER,
        prHeader: nudgePrHeader(input.repoAtShaLink),
        recreateWhen: 'always',
        rebaseWhen: 'behind-base-branch',
        enabled: true,
      },
    ],
    forkProcessing: 'enabled',
    extends: [],
    dependencyDashboard: false,
    labels: nudgeLabels(settings),
    automerge: settings.automerge,
    ...(settings.automergeType === '' ? {} : { automergeType: settings.automergeType }),
    platformAutomerge: settings.platformAutomerge,
    ignoreTests: settings.ignoreTests,
    gitLabIgnoreApprovals: settings.gitLabIgnoreApprovals,
    ...(settings.automergeSchedule.length === 0 ? {} : { automergeSchedule: [...settings.automergeSchedule] }),
  };
}
