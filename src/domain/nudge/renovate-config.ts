// The Renovate config of the `renovate` executor, one per nudged target (docs/decisions.md D9): what
// build-service's generateRenovateConfigForNudge writes (internal/controller/renovate_util.go),
// with the differences docs/decisions.md N15 and N16 give reasons for: the four booleans are
// always written, and the matchStrings are quoted, anchored and RE2-safe, so that Renovate rewrites
// exactly the references the `direct` executor (src/domain/digest-rewrite) rewrites.
//
// The branch, commit and pull request settings come from the same functions the `direct` executor
// uses (pull-request-text.ts), so the two cannot drift apart. No token is an input: Renovate reads
// it from the environment the nudge PipelineRun sets from its Secret. A validated batch (D10, N29)
// is the same config with a custom manager per component and one group rule for them all.
import { DIGEST_PATTERN, compileFileMatch, isImageRepository } from '../digest-rewrite/index.ts';
import { isDns1123Label } from '../labels.ts';
import { dns1123SubdomainProblem } from '../../schema/names.ts';
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
import { checkRepoAtShaLink } from './repository-link.ts';
import type { RenovateSettings } from './renovate-settings.ts';
import { unsafeCharacterProblem } from './text-checks.ts';
import { validatedBranch, validatedGroupName, validatedGroupSlug } from './validated-text.ts';

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

/** One nudging component's images: what one custom manager of the config rewrites. */
interface ComponentImages {
  readonly builtRepository: string;
  readonly builtTag: string;
  readonly distributionRepositories: readonly string[];
  readonly fileMatch: readonly string[];
}

interface ComponentManager {
  readonly manager: RenovateNudgeConfig['customManagers'][number];
  /** Built first, then each distribution repository once: the rule's matchPackageNames. */
  readonly repositories: readonly string[];
}

/**
 * The custom manager of one component (its own fileMatch, a matchString per repository, the built
 * tag Renovate looks up); throws NudgeInputError naming `<field>builtRepository` and so on.
 */
function componentManager(images: ComponentImages, field = ''): ComponentManager {
  if (!isImageRepository(images.builtRepository)) {
    throw new NudgeInputError(`${field}builtRepository`, 'is not an image repository (no tag, no digest)');
  }
  if (!IMAGE_TAG.test(images.builtTag)) throw new NudgeInputError(`${field}builtTag`, 'is not an image tag');
  if (images.fileMatch.length === 0) throw new NudgeInputError(`${field}fileMatch`, 'is empty');
  compileFileMatch(images.fileMatch);
  const repositories = [images.builtRepository];
  images.distributionRepositories.forEach((repository, i) => {
    if (!isImageRepository(repository)) {
      throw new NudgeInputError(`${field}distributionRepositories[${String(i)}]`, 'is not an image repository');
    }
    if (!repositories.includes(repository)) repositories.push(repository);
  });
  return {
    manager: {
      fileMatch: [...images.fileMatch],
      customType: 'regex',
      datasourceTemplate: 'docker',
      matchStrings: repositories.map(nudgeMatchString),
      currentValueTemplate: images.builtTag,
      depNameTemplate: images.builtRepository,
    },
    repositories,
  };
}

type NudgeRule = RenovateNudgeConfig['packageRules'][1];

/** Every setting of the config but its managers and its rule, in build-service's field order. */
function nudgeConfig(
  target: RenovateTarget,
  settings: RenovateSettings,
  components: readonly ComponentManager[],
  rule: NudgeRule,
): RenovateNudgeConfig {
  // Each distribution repository is looked up as its component's built repository (build-service).
  const aliases = components.flatMap(({ repositories: [built = '', ...distribution] }) =>
    distribution.map((repository) => [repository, built] as const),
  );
  return {
    platform: target.platform,
    username: target.username,
    gitAuthor: target.gitAuthor,
    onboarding: false,
    requireConfig: 'ignored',
    repositories: [{ repository: target.repository, baseBranches: [target.baseBranch] }],
    enabledManagers: ['custom.regex'],
    endpoint: target.endpoint,
    customManagers: components.map((c) => c.manager),
    ...(aliases.length === 0 ? {} : { registryAliases: Object.fromEntries(aliases) }),
    packageRules: [{ matchPackagePatterns: ['*'], enabled: false }, rule],
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

/** The ConfigMap's commit message prefix and suffix, checked, as the rule carries them. */
function commitAffixes(settings: RenovateSettings): Pick<NudgeRule, 'commitMessagePrefix' | 'commitMessageSuffix'> {
  checkCommitMessageAffix('commitMessagePrefix', settings.commitMessagePrefix);
  checkCommitMessageAffix('commitMessageSuffix', settings.commitMessageSuffix);
  return {
    ...(settings.commitMessagePrefix === '' ? {} : { commitMessagePrefix: settings.commitMessagePrefix }),
    ...(settings.commitMessageSuffix === '' ? {} : { commitMessageSuffix: settings.commitMessageSuffix }),
  };
}

/** The config for one nudged target; throws NudgeInputError naming the field of any unsafe input. */
export function renovateNudgeConfig(input: RenovateNudgeInput): RenovateNudgeConfig {
  checkTarget(input.target);
  const component = componentManager(input);
  const { settings } = input;
  // Checks both names as the direct executor does; Renovate names the same branch from the
  // branchPrefix, the additionalBranchPrefix and the groupName's slug below.
  nudgeBranch(input.nudged, input.nudging, input.simpleBranch);
  const affixes = commitAffixes(settings);
  return nudgeConfig(input.target, settings, [component], {
    matchPackageNames: [...component.repositories],
    groupName: `Component Update ${input.nudging}`,
    branchPrefix: NUDGE_BRANCH_PREFIX,
    branchTopic: input.nudging,
    additionalBranchPrefix: input.simpleBranch ? '' : `${input.nudged}-`,
    commitMessageTopic: input.nudging,
    ...affixes,
    commitBody: nudgeCommitBody(input.repoAtShaLink, input.target.gitAuthor),
    prFooter: NUDGE_PR_FOOTER,
    prHeader: nudgePrHeader(input.repoAtShaLink),
    recreateWhen: 'always',
    rebaseWhen: 'behind-base-branch',
    enabled: true,
  });
}

/** One component of a validated batch, as its custom manager and the pull request's header name it. */
export interface RenovateBatchComponent extends ComponentImages {
  /** The nudging component. */
  readonly component: string;
  /** The digest the Snapshot validated (`sha256:<64 hex>`): its build's tag points to it. */
  readonly newDigest: string;
  /** The Snapshot of the gating group that validated it. */
  readonly snapshot: string;
  /** Its build's repo-at-sha link ('' when none may be quoted). */
  readonly repoAtShaLink: string;
}

export interface RenovateBatchInput {
  readonly target: RenovateTarget;
  readonly nudged: string;
  readonly gatingGroup: string;
  readonly settings: RenovateSettings;
  /** At least one; sorted by component, each component once. */
  readonly components: readonly RenovateBatchComponent[];
}

function checkBatchComponent(c: RenovateBatchComponent, i: number): void {
  const field = `components[${String(i)}]`;
  if (!isDns1123Label(c.component)) throw new NudgeInputError(`${field}.component`, 'is not a component name');
  if (!DIGEST_PATTERN.test(c.newDigest)) throw new NudgeInputError(`${field}.newDigest`, 'is not sha256:<64 hex>');
  if (dns1123SubdomainProblem(c.snapshot) !== undefined) {
    throw new NudgeInputError(`${field}.snapshot`, 'is not a Snapshot name (DNS-1123 subdomain)');
  }
  checkRepoAtShaLink(c.repoAtShaLink, `${field}.repoAtShaLink`);
}

const validatedLead = (gatingGroup: string) =>
  `Images validated together by a passing Snapshot of component group \`${gatingGroup}\``;

/**
 * The batch's prHeader, build-service's pattern for several images: which component, the digest
 * its Snapshot validated, the Snapshot, and what each image was built from. Renovate's own table
 * (old and new short digest per package) follows it. Renovate compiles prHeader as a template;
 * nothing here can hold `{{` (names, digests and links are checked).
 */
export function validatedPrHeader(gatingGroup: string, components: readonly RenovateBatchComponent[]): string {
  components.forEach(checkBatchComponent);
  const rows = components.map((c) => `| ${c.component} | \`${c.newDigest}\` | \`${c.snapshot}\` |`);
  const links = components.flatMap((c) =>
    c.repoAtShaLink === '' ? [] : [`- ${c.component}: image created from '${c.repoAtShaLink}'`],
  );
  return [
    `${validatedLead(gatingGroup)}:`,
    '',
    '| Component | New digest | Snapshot |',
    '|---|---|---|',
    ...rows,
    ...(links.length === 0 ? [] : ['', ...links]),
  ].join('\n');
}

/** The batch's commitBody: the group, each component's validated digest and Snapshot, the sign-off. */
export function validatedCommitBody(
  gatingGroup: string,
  components: readonly RenovateBatchComponent[],
  gitAuthor: string,
): string {
  components.forEach(checkBatchComponent);
  checkGitAuthor(gitAuthor);
  const lines = components.map((c) => `- ${c.component}: ${c.newDigest} (Snapshot ${c.snapshot})`);
  return `${validatedLead(gatingGroup).replaceAll('`', '')}:\n${lines.join('\n')}\n\nSigned-off-by: ${gitAuthor}`;
}

/**
 * The config of a validated batch (docs/decisions.md D10, N29): one custom manager per component,
 * each with its own fileMatch and matchStrings (N16), and ONE rule grouping every package of the
 * batch, so that Renovate makes one branch, one commit and one pull request. Renovate names a
 * group's branch `<branchPrefix><additionalBranchPrefix><groupSlug>` (its `group.branchTopic` is
 * the slug, which it lower-cases), so the slug validatedGroupSlug puts the batch on
 * validatedBranch. Its docker datasource titles a group of digest updates "Update <groupName>"; a
 * batch of one component is no group to Renovate (one package), so the rule's own topic and an
 * empty extra give it the same title.
 */
export function renovateBatchConfig(input: RenovateBatchInput): RenovateNudgeConfig {
  checkTarget(input.target);
  if (!isDns1123Label(input.nudged)) throw new NudgeInputError('nudged', 'is not a component name (DNS-1123 label)');
  if (dns1123SubdomainProblem(input.gatingGroup) !== undefined) {
    throw new NudgeInputError('gatingGroup', 'is not a ComponentGroup name (DNS-1123 subdomain)');
  }
  if (input.components.length === 0) throw new NudgeInputError('components', 'is empty');
  const names = new Set<string>();
  const owners = new Map<string, string>();
  const components = input.components.map((c, i) => {
    const field = `components[${String(i)}].`;
    checkBatchComponent(c, i);
    if (names.has(c.component)) throw new NudgeInputError(`${field}component`, 'is in the batch twice');
    names.add(c.component);
    const images = componentManager(c, field);
    // A repository of two components would be two new digests for one reference.
    images.repositories.forEach((repository, j) => {
      const owner = owners.get(repository);
      const which = j === 0 ? 'builtRepository' : 'distributionRepositories';
      if (owner !== undefined) throw new NudgeInputError(`${field}${which}`, `names a repository of ${owner} too`);
      owners.set(repository, c.component);
    });
    return images;
  });
  const branchProblem = branchNameProblem(validatedBranch(input.nudged, input.gatingGroup));
  if (branchProblem !== undefined)
    throw new NudgeInputError('gatingGroup', `gives a branch name that ${branchProblem}`);
  const groupName = validatedGroupName(input.gatingGroup);
  return nudgeConfig(input.target, input.settings, components, {
    matchPackageNames: components.flatMap((c) => c.repositories),
    groupName,
    groupSlug: validatedGroupSlug(input.nudged, input.gatingGroup),
    branchPrefix: NUDGE_BRANCH_PREFIX,
    additionalBranchPrefix: '',
    commitMessageTopic: groupName,
    commitMessageExtra: '',
    ...commitAffixes(input.settings),
    commitBody: validatedCommitBody(input.gatingGroup, input.components, input.target.gitAuthor),
    prFooter: NUDGE_PR_FOOTER,
    prHeader: validatedPrHeader(input.gatingGroup, input.components),
    recreateWhen: 'always',
    rebaseWhen: 'behind-base-branch',
    enabled: true,
  });
}
