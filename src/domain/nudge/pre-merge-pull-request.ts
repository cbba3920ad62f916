// What the `direct` executor writes for a pre-merge nudge (docs/decisions.md D11, N34): the nudge PR
// of one PR group into one target, on preMergeBranch(group, target) so that integration-service
// puts it into the triggering PRs' group. Its title and commit subject are Renovate's group update
// ("Update <groupName>", prefix, suffix and semantic commits as N17); its description is a block
// nudger owns between two HTML comment markers, rewritten on every fire, and whatever a human
// writes outside the block, kept. The block is Renovate's body (N17's Configuration section and
// rebase checkbox, build-service's footer) around a table of every triggering PR with its link,
// its state and the digest the PR pins for it, and ends with a hidden stamp of the nudge's key so a
// fire repeated after a crash finds its own work.
//
// Every value copied into the Markdown is one nudger can check the shape of (names, digests, links,
// the group as a branch-name fragment); anything else is refused with a NudgeInputError naming the
// field, never quoted.
import { renovateGroupCommitSubject } from './commit-subject.ts';
import { NudgeInputError } from './errors.ts';
import {
  checkGitAuthor,
  NUDGE_PR_FOOTER,
  nudgeLabels,
  renovateBodyAround,
  type NudgePullRequestText,
} from './pull-request-text.ts';
import { preMergeBranch } from './pre-merge-text.ts';
import type { RenovateSettings } from './renovate-settings.ts';
import { checkRepoAtShaLink } from './repository-link.ts';
import { checkDigest, checkName } from './validated-pull-request.ts';

export const PRE_MERGE_BLOCK_BEGIN = '<!-- nudger:pre-merge:begin -->';
export const PRE_MERGE_BLOCK_END = '<!-- nudger:pre-merge:end -->';

const STAMP = /<!-- nudger-pre-merge key=([0-9a-f]{16}) -->/;
const KEY = /^[0-9a-f]{16}$/;
// A PR group is a branch-name prefix; only characters Markdown, HTML and a code span read as text.
const GROUP = /^[A-Za-z0-9][A-Za-z0-9._/+-]{0,199}$/;
// A pull request's web page: no whitespace, nothing that ends a Markdown link or an HTML attribute.
const PULL_REQUEST_URL = /^(?:https?|file):\/\/[^\s<>()[\]`'"\\]+$/;

/** What the PR pins for one triggering PR. */
export interface PreMergePin {
  readonly digest: string;
  readonly event: 'pull-request' | 'push';
  /** The build PipelineRun that produced it. */
  readonly pipelineRun: string;
  /** Its repo-at-sha link as quotedBuildLink gives it; '' for none. */
  readonly repoAtShaLink: string;
}

/** One triggering PR as the block lists it. */
export interface PreMergeRow {
  readonly component: string;
  readonly number: number;
  readonly url: string;
  readonly state: 'open' | 'merged' | 'closed';
  /** Absent when its references are the base's (closed unmerged, or never built). */
  readonly pin?: PreMergePin;
  /**
   * What the commit did with the pin: `updated` rewrote references, `up-to-date` found the base
   * pinning it already, `unreferenced` found no file its fileMatch selects naming the image by
   * digest, `superseded` left it for a newer build of the same component from another PR.
   */
  readonly change?: 'updated' | 'up-to-date' | 'unreferenced' | 'superseded';
}

export interface PreMergeBlockInput {
  readonly nudged: string;
  readonly group: string;
  /** preMergeKey of this fire. */
  readonly key: string;
  /** In component, then number order; at least one. */
  readonly rows: readonly PreMergeRow[];
  readonly draft: boolean;
  readonly settings: Pick<RenovateSettings, 'automerge' | 'automergeSchedule'>;
}

export interface PreMergePullRequestInput extends PreMergeBlockInput {
  /** githubAppGitAuthor or scmTokenGitAuthor. */
  readonly gitAuthor: string;
  readonly settings: RenovateSettings;
  /** semanticCommitsDetected over the base branch's newest subjects; default false. */
  readonly semanticCommits?: boolean;
}

/** Renovate's groupName of a pre-merge nudge: the commit message topic and the title's. */
export function preMergeGroupName(group: string, nudged: string): string {
  return `${nudged} with pre-merge images of ${group}`;
}

/** preMergeBranch, once both names are checked: the branch is looked up before any text is written. */
export function preMergeNudgeBranch(group: string, nudged: string): string {
  checkGroup(group);
  checkName('nudged', nudged, true);
  return preMergeBranch(group, nudged);
}

function checkGroup(group: string): void {
  if (!GROUP.test(group)) {
    throw new NudgeInputError('group', 'is not a PR group name of letters, digits and . _ / + - (at most 200)');
  }
}

function checkRow(field: string, row: PreMergeRow): void {
  checkName(`${field}.component`, row.component, true);
  if (!Number.isSafeInteger(row.number) || row.number <= 0) {
    throw new NudgeInputError(`${field}.number`, 'is not a pull request number');
  }
  if (!PULL_REQUEST_URL.test(row.url)) throw new NudgeInputError(`${field}.url`, 'is not a quotable web address');
  if (!['open', 'merged', 'closed'].includes(row.state)) {
    throw new NudgeInputError(`${field}.state`, 'is not open, merged or closed');
  }
  if (row.pin === undefined) return;
  checkDigest(`${field}.pin.digest`, row.pin.digest);
  if (!['pull-request', 'push'].includes(row.pin.event)) {
    throw new NudgeInputError(`${field}.pin.event`, 'is not pull-request or push');
  }
  checkName(`${field}.pin.pipelineRun`, row.pin.pipelineRun, false);
  checkRepoAtShaLink(row.pin.repoAtShaLink, `${field}.pin.repoAtShaLink`);
}

function checkBlockInput(input: PreMergeBlockInput): void {
  checkName('nudged', input.nudged, true);
  checkGroup(input.group);
  if (!KEY.test(input.key)) throw new NudgeInputError('key', 'is not a pre-merge key (16 hex digits)');
  if (input.rows.length === 0) throw new NudgeInputError('rows', 'is empty');
  input.rows.forEach((row, i) => {
    checkRow(`rows[${String(i)}]`, row);
  });
}

/** `<!-- nudger-pre-merge key=<16 hex> -->`, hidden where the body is rendered. */
export function formatPreMergeStamp(key: string): string {
  if (!KEY.test(key)) throw new NudgeInputError('key', 'is not a pre-merge key (16 hex digits)');
  return `<!-- nudger-pre-merge key=${key} -->`;
}

/** The managed block of a body (markers included), or undefined when it has none that reads. */
export function preMergeBlockOf(body: string): string | undefined {
  const begin = body.indexOf(PRE_MERGE_BLOCK_BEGIN);
  const end = begin < 0 ? -1 : body.indexOf(PRE_MERGE_BLOCK_END, begin);
  return end < 0 ? undefined : body.slice(begin, end + PRE_MERGE_BLOCK_END.length);
}

/** The key stamped inside the body's managed block; a stamp a human copied outside it does not count. */
export function parsePreMergeStamp(body: string): string | undefined {
  const block = preMergeBlockOf(body);
  return block === undefined ? undefined : STAMP.exec(block)?.[1];
}

function header(input: PreMergeBlockInput): string {
  const tested = `Images built from the pull requests of PR group \`${input.group}\`, pinned in \`${input.nudged}\` before they merge.`;
  return input.draft
    ? `${tested} This PR stays a draft until every one of them is merged and its push build is pinned.`
    : `${tested} Every one of them is merged and its push build pinned: ready for review.`;
}

function digestCell(row: PreMergeRow): string {
  if (row.pin === undefined) return "the base's";
  const note = row.change === 'superseded' ? ' (not pinned: a newer build of the component is)' : '';
  return `\`${row.pin.digest}\`${note}`;
}

/** The updates section: the table of triggering PRs, the components it does not change, the builds. */
function updatesSection(input: PreMergeBlockInput): string {
  const rows = input.rows.map(
    (row) =>
      `| ${row.component} | [#${String(row.number)}](${row.url}) | ${row.state} | ${digestCell(row)} | ${row.pin === undefined ? '' : `${row.pin.event} build \`${row.pin.pipelineRun}\``} |`,
  );
  const builds = input.rows.flatMap((row) =>
    row.pin === undefined || row.pin.repoAtShaLink === ''
      ? []
      : [`- ${row.component} #${String(row.number)}: image created from '${row.pin.repoAtShaLink}'`],
  );
  const names = (change: PreMergeRow['change']): string[] => [
    ...new Set(input.rows.filter((row) => row.change === change).map((row) => row.component)),
  ];
  const upToDate = names('up-to-date');
  const unreferenced = names('unreferenced');
  return [
    'This PR contains the following updates:\n\n',
    '| Component | Pull request | State | Digest | Build |\n|---|---|---|---|---|\n',
    `${rows.join('\n')}\n\n`,
    upToDate.length === 0 ? '' : `Already pinned, not changed by this PR: ${upToDate.join(', ')}\n\n`,
    unreferenced.length === 0
      ? ''
      : `Not referenced by digest in the files their fileMatch selects, not changed by this PR: ${unreferenced.join(', ')}\n\n`,
    builds.length === 0 ? '' : `${builds.join('\n')}\n\n`,
  ].join('');
}

/** The block nudger owns in the description, markers and stamp included. */
export function preMergeBlock(input: PreMergeBlockInput): string {
  checkBlockInput(input);
  const body = renovateBodyAround({
    prHeader: header(input),
    updates: updatesSection(input),
    prFooter: NUDGE_PR_FOOTER,
    automerge: input.settings.automerge,
    automergeSchedule: input.settings.automergeSchedule,
  });
  return `${PRE_MERGE_BLOCK_BEGIN}\n${body}\n\n${formatPreMergeStamp(input.key)}\n${PRE_MERGE_BLOCK_END}`;
}

/** The line a new nudge PR's description starts with, outside the block: the human's to edit. */
export function preMergeIntro(group: string): string {
  checkGroup(group);
  return `Pre-merge nudge of PR group \`${group}\`. nudger rewrites only the part between its markers below; text outside them is kept.`;
}

/**
 * The description with `block` in place of the managed block `current` has; a description without
 * one (a new PR, or a human removed the markers) keeps its text and gets the block after it, a new
 * one after preMergeIntro.
 */
export function withPreMergeBlock(current: string | undefined, block: string, group: string): string {
  const existing = current === undefined ? undefined : preMergeBlockOf(current);
  if (current !== undefined && existing !== undefined) {
    const begin = current.indexOf(existing);
    return `${current.slice(0, begin)}${block}${current.slice(begin + existing.length)}`;
  }
  const kept = current?.trimEnd() ?? '';
  return `${kept === '' ? preMergeIntro(group) : kept}\n\n${block}`;
}

function commitBody(input: PreMergePullRequestInput): string {
  checkGitAuthor(input.gitAuthor);
  const lines = input.rows.flatMap((row) =>
    row.change === 'updated' && row.pin !== undefined
      ? [`- ${row.component}: ${row.pin.digest} (#${String(row.number)}, ${row.state}, ${row.pin.event} build)`]
      : [],
  );
  return `Images of PR group ${input.group}:\n${lines.join('\n')}\n\nSigned-off-by: ${input.gitAuthor}`;
}

/** Everything the `direct` executor writes for one pre-merge nudge; `body` is the managed block only. */
export function preMergePullRequestText(input: PreMergePullRequestInput): NudgePullRequestText {
  const block = preMergeBlock(input);
  const subject = renovateGroupCommitSubject({
    groupName: preMergeGroupName(input.group, input.nudged),
    commitMessagePrefix: input.settings.commitMessagePrefix,
    commitMessageSuffix: input.settings.commitMessageSuffix,
    ...(input.semanticCommits === undefined ? {} : { semanticCommits: input.semanticCommits }),
  });
  const message = commitBody(input);
  return {
    branch: preMergeBranch(input.group, input.nudged),
    commit: { subject, body: message, message: `${subject}\n\n${message}` },
    title: subject,
    body: block,
    labels: nudgeLabels(input.settings),
  };
}
