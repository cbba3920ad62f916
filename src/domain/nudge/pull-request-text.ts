// What the `direct` executor writes for a nudge (docs/decisions.md D9, N17): the branch, the commit,
// the pull request title, body and labels that build-service's Renovate nudge writes, so that a
// user sees the same pull request whichever system nudged.
//
// Sources: build-service internal/controller/renovate_util.go (generateRenovateConfigForNudge: the
// packageRule's branchPrefix, additionalBranchPrefix, groupName, commitBody, prHeader, prFooter,
// labels), ../reference material summarised in docs/decisions.md D9, and Renovate
// (renovatebot/renovate lib/workers/repository/updates/branch-name.ts: a groupName's slug is the
// branch topic; lib/workers/repository/update/pr/body/*.ts: the body's header, updates table,
// Configuration section, rebase checkbox and footer, in that order, the result trimmed and runs of
// blank lines folded to one).
import { isImageRepository } from '../digest-rewrite/index.ts';
import { isDns1123Label } from '../labels.ts';
import { digestShort, renovateCommitSubject } from './commit-subject.ts';
import { NudgeInputError } from './errors.ts';
import type { RenovateSettings } from './renovate-settings.ts';
import { checkRepoAtShaLink } from './repository-link.ts';
import { unsafeCharacterProblem } from './text-checks.ts';

/** The label every nudge pull request carries (MintMaker leaves pull requests with it alone). */
export const NUDGE_LABEL = 'konflux-nudge';
export const NUDGE_BRANCH_PREFIX = 'konflux/component-updates/';
/** On the nudging Component: `"true"` drops the nudged component from the branch name. */
export const SIMPLE_BRANCH_ANNOTATION = 'build.appstudio.openshift.io/build-nudge-simple-branch';
/** build-service's prFooter, with the line it appends since its commit e712194. */
export const NUDGE_PR_FOOTER =
  'To execute skipped test pipelines write comment `/ok-to-test`\nThis is Konflux nudging PR, not Mintmaker.';
/** Renovate's marker of its rebase/retry checkbox. */
export const REBASE_CHECK_MARKER = '<!-- rebase-check -->';
const REBASE_CHECKBOX_TEXT = 'If you want to rebase/retry this PR, check this box';
/** Renovate's productLinks.help (GitHub's own rendering rewrites it to redirect.github.com). */
const RENOVATE_HELP_LINK = 'https://github.com/renovatebot/renovate/discussions';

/** build-service reads the annotation on the nudging Component and compares it with "true" exactly. */
export function isSimpleBranch(nudgingAnnotations: Readonly<Record<string, string>> | undefined): boolean {
  return nudgingAnnotations?.[SIMPLE_BRANCH_ANNOTATION] === 'true';
}

function checkComponent(field: string, name: string): void {
  if (!isDns1123Label(name)) throw new NudgeInputError(field, 'is not a component name (DNS-1123 label)');
}

/**
 * `konflux/component-updates/<nudged>-component-update-<nudging>`, or without `<nudged>-` for a
 * simple branch: branchPrefix, additionalBranchPrefix, then the slug of the groupName
 * "Component Update <nudging>", which Renovate uses as the branch topic of a group.
 */
export function nudgeBranch(nudged: string, nudging: string, simpleBranch: boolean): string {
  checkComponent('nudged', nudged);
  checkComponent('nudging', nudging);
  return `${NUDGE_BRANCH_PREFIX}${simpleBranch ? '' : `${nudged}-`}component-update-${nudging}`;
}

/** build-service's prHeader. */
export function nudgePrHeader(repoAtShaLink: string): string {
  checkRepoAtShaLink(repoAtShaLink);
  return `Image created from '${repoAtShaLink}'`;
}

// `Name <address>` on one line, as git and Renovate take it; the renovate executor checks it too.
const GIT_AUTHOR = /^[^\s<>](?:[^<>\n\r]*[^\s<>])? <[^\s<>]+>$/;

export function checkGitAuthor(gitAuthor: string): void {
  if (!GIT_AUTHOR.test(gitAuthor)) throw new NudgeInputError('gitAuthor', 'is not "Name <address>" on one line');
  const unsafe = unsafeCharacterProblem(gitAuthor);
  if (unsafe !== undefined) throw new NudgeInputError('gitAuthor', unsafe);
  if (gitAuthor.includes('{{')) throw new NudgeInputError('gitAuthor', 'contains a Renovate template ("{{")');
}

/** build-service's commitBody. */
export function nudgeCommitBody(repoAtShaLink: string, gitAuthor: string): string {
  checkGitAuthor(gitAuthor);
  return `${nudgePrHeader(repoAtShaLink)}\n\nSigned-off-by: ${gitAuthor}`;
}

/** `konflux-nudge` and then the ConfigMap's labels, each once, in order. */
export function nudgeLabels(settings: Pick<RenovateSettings, 'labels'>): string[] {
  const labels = [NUDGE_LABEL, ...settings.labels];
  labels.forEach((label, i) => {
    const problem =
      unsafeCharacterProblem(label) ??
      (label.trim() !== label || label === '' ? 'is empty or has surrounding whitespace' : undefined) ??
      (label.includes('{{') ? 'contains a Renovate template ("{{")' : undefined);
    if (problem !== undefined) throw new NudgeInputError(`labels[${String(i)}]`, problem);
  });
  return [...new Set(labels)];
}

/**
 * Whether the rebase checkbox of a body is ticked, read as Renovate reads it
 * (lib/modules/platform/pr-body.ts): `- [x] <!-- rebase-check -->`, lower-case x; undefined when
 * the body has no such checkbox.
 */
export function rebaseRequested(body: string): boolean | undefined {
  const match = /- (\[[\sx]\]) <!-- rebase-check -->/.exec(body);
  return match === null ? undefined : match[1] === '[x]';
}

export interface NudgePullRequestInput {
  readonly nudging: string;
  readonly nudged: string;
  /** isSimpleBranch of the nudging Component. */
  readonly simpleBranch: boolean;
  /** The nudging Component's image repository: Renovate's depName, the table's Package. */
  readonly repository: string;
  /** The digest the nudged repository pinned before (the first one replaced), when known. */
  readonly currentDigest?: string;
  readonly newDigest: string;
  /** repoAtShaLink of the build; '' when it has none. */
  readonly repoAtShaLink: string;
  /** githubAppGitAuthor or scmTokenGitAuthor. */
  readonly gitAuthor: string;
  readonly settings: RenovateSettings;
  /** semanticCommitsDetected over the base branch's newest subjects; default false. */
  readonly semanticCommits?: boolean;
  /** Someone else has pushed to the branch: Renovate then warns beside the checkbox. */
  readonly branchModified?: boolean;
}

export interface NudgeCommit {
  readonly subject: string;
  readonly body: string;
  /** subject, a blank line, body: what the commit carries. */
  readonly message: string;
}

export interface NudgePullRequestText {
  readonly branch: string;
  readonly commit: NudgeCommit;
  /** The commit subject. */
  readonly title: string;
  readonly body: string;
  readonly labels: readonly string[];
}

/** Renovate's updates table for the one digest update of a nudge (columns that are empty are left out). */
function updatesTable(input: Pick<NudgePullRequestInput, 'repository' | 'currentDigest' | 'newDigest'>): string {
  if (!isImageRepository(input.repository)) {
    throw new NudgeInputError('repository', 'is not an image repository (no tag, no digest)');
  }
  const from = input.currentDigest === undefined ? '' : digestShort(input.currentDigest, 'currentDigest');
  // Renovate's Change column is "`from` -> `to`" with every "``" removed, so an unknown from is blank.
  const change = `\`${from}\` -> \`${digestShort(input.newDigest)}\``.replace(/``/g, '');
  return (
    '\n\nThis PR contains the following updates:\n\n' +
    '| Package | Update | Change |\n|---|---|---|\n' +
    `| ${input.repository} | digest | ${change} |\n\n\n`
  );
}

/** Renovate's `scheduleToString` for a schedule it cannot put in words (no cron description here). */
function scheduleText(schedule: readonly string[]): string {
  return schedule.length === 0 ? 'At any time (no schedule defined)' : `"${schedule.join(',')}" (UTC)`;
}

/** Renovate's Configuration section for recreateWhen "always" and rebaseWhen "behind-base-branch". */
function configurationSection(settings: Pick<RenovateSettings, 'automerge' | 'automergeSchedule'>): string {
  const automerge = settings.automerge
    ? 'Enabled.'
    : 'Disabled by config. Please merge this manually once you are satisfied.';
  return (
    '\n\n---\n\n### Configuration\n\n' +
    `📅 **Schedule**: Branch creation - ${scheduleText([])}, Automerge - ${scheduleText(settings.automergeSchedule)}.\n\n` +
    `🚦 **Automerge**: ${automerge}\n\n` +
    '♻ **Rebasing**: Whenever PR is behind base branch, or you tick the rebase/retry checkbox.\n\n' +
    `👻 **Immortal**: This PR will be recreated if closed unmerged. Get [config help](${RENOVATE_HELP_LINK}) if that's undesired.\n\n`
  );
}

function controls(branchModified: boolean): string {
  const warning = branchModified ? ' ⚠️ **Warning**: custom changes will be lost.' : '';
  return `\n\n---\n\n - [ ] ${REBASE_CHECK_MARKER}${REBASE_CHECKBOX_TEXT}${warning}\n\n`;
}

/** What Renovate's pull request body for one digest update is made of. */
export interface RenovatePullRequestBodyInput {
  readonly prHeader: string;
  readonly prFooter: string;
  readonly repository: string;
  readonly currentDigest?: string;
  readonly newDigest: string;
  readonly automerge: boolean;
  readonly automergeSchedule: readonly string[];
  readonly branchModified?: boolean;
}

/**
 * Renovate's body: prHeader, the updates table, the Configuration section, the rebase checkbox and
 * prFooter, trimmed, runs of blank lines folded. The `direct` executor writes it with
 * build-service's header and footer; the sandbox's Renovate stand-in with a config's.
 */
export function renovatePullRequestBody(input: RenovatePullRequestBodyInput): string {
  return renovateBodyAround({ ...input, updates: updatesTable(input) });
}

/** What surrounds the updates in a Renovate pull request body. */
export interface RenovateBodyFrame extends Pick<
  RenovatePullRequestBodyInput,
  'prHeader' | 'prFooter' | 'automerge' | 'automergeSchedule' | 'branchModified'
> {
  /** The updates section (Markdown), between the header and the Configuration section. */
  readonly updates: string;
}

/**
 * prHeader, `updates`, the Configuration section, the rebase checkbox and prFooter, trimmed, runs
 * of blank lines folded: Renovate's body for one update or for a group (a validated batch, N28).
 */
export function renovateBodyAround(input: RenovateBodyFrame): string {
  return [
    `${input.prHeader}\n\n`,
    input.updates,
    configurationSection(input),
    controls(input.branchModified === true),
    `\n---\n\n${input.prFooter}`,
  ]
    .join('')
    .trim()
    .replace(/\n\n\n+/g, '\n\n');
}

/** Everything the `direct` executor writes for one (build, target) nudge. */
export function nudgePullRequestText(input: NudgePullRequestInput): NudgePullRequestText {
  const branch = nudgeBranch(input.nudged, input.nudging, input.simpleBranch);
  const subject = renovateCommitSubject({
    nudging: input.nudging,
    newDigest: input.newDigest,
    commitMessagePrefix: input.settings.commitMessagePrefix,
    commitMessageSuffix: input.settings.commitMessageSuffix,
    ...(input.semanticCommits === undefined ? {} : { semanticCommits: input.semanticCommits }),
  });
  const commitBody = nudgeCommitBody(input.repoAtShaLink, input.gitAuthor);
  const body = renovatePullRequestBody({
    prHeader: nudgePrHeader(input.repoAtShaLink),
    prFooter: NUDGE_PR_FOOTER,
    repository: input.repository,
    ...(input.currentDigest === undefined ? {} : { currentDigest: input.currentDigest }),
    newDigest: input.newDigest,
    automerge: input.settings.automerge,
    automergeSchedule: input.settings.automergeSchedule,
    ...(input.branchModified === undefined ? {} : { branchModified: input.branchModified }),
  });
  return {
    branch,
    commit: { subject, body: commitBody, message: `${subject}\n\n${commitBody}` },
    title: subject,
    body,
    labels: nudgeLabels(input.settings),
  };
}
