// What the `direct` executor writes for a validated batch (docs/decisions.md D10, N28): every
// validated entry of one gating group that points at one target, in one pull request with one
// commit. It is Renovate's group update as the `renovate` executor's config would make it (the
// branch validatedBranch, the title and subject "Update <groupName>", prefix, suffix, semantic
// commits and labels handled as for one nudge, N17), with a body that says, per component, the
// digest the target pinned before, the validated one and the Snapshot that validated it, and a
// hidden stamp of the batch key so that a fire repeated after a crash finds its own work.
//
// Every value copied into the Markdown is one nudger can check the shape of (Kubernetes names,
// digests, a link checkRepoAtShaLink accepts); anything else is refused with a NudgeInputError
// naming the field, never quoted.
import { DIGEST_PATTERN, imageRepository, isImageRepository } from '../digest-rewrite/index.ts';
import { isDns1123Label } from '../labels.ts';
import { renovateGroupCommitSubject } from './commit-subject.ts';
import { checkBuildTime } from './direct-build-stamp.ts';
import { NudgeInputError } from './errors.ts';
import {
  checkGitAuthor,
  NUDGE_PR_FOOTER,
  nudgeLabels,
  renovateBodyAround,
  type NudgePullRequestText,
} from './pull-request-text.ts';
import type { RenovateSettings } from './renovate-settings.ts';
import { checkRepoAtShaLink } from './repository-link.ts';
import { validatedBranch, validatedGroupName } from './validated-text.ts';

/**
 * One component's validated image as the pull request carries it: enough to rewrite it again on a
 * later pass that does not include it (its digest did not change), so that updating the pull
 * request in place never drops an image it carried.
 */
export interface ValidatedImage {
  readonly component: string;
  readonly digest: string;
  /** `<repository>@<digest>` of the build. */
  readonly pullSpec: string;
  /** The Snapshot that validated the digest. */
  readonly snapshot: string;
  /** The build PipelineRun that produced it. */
  readonly pipelineRun: string;
  /** Its creation time, which dates the commit. */
  readonly createdAt?: string;
  /** Its repo-at-sha link as quotedBuildLink gives it; '' for none. */
  readonly repoAtShaLink: string;
  /** D6: the other names the component is released under. */
  readonly distributionRepositories: readonly string[];
  /** D6: the fileMatch in force for the component. */
  readonly fileMatch: readonly string[];
}

/** One row of the table. */
export interface ValidatedRow extends ValidatedImage {
  /** What the target pinned before: the rewritten files' digest, else the last validated nudge's. */
  readonly oldDigest?: string;
  /**
   * `updated`: the commit rewrites its references; `up-to-date`: the target already pins the
   * digest; `unreferenced`: no file its fileMatch selects names its image by digest.
   */
  readonly change: 'updated' | 'up-to-date' | 'unreferenced';
}

export interface ValidatedPullRequestInput {
  readonly nudged: string;
  readonly gatingGroup: string;
  /** validatedBatchKey of the batch this write is for. */
  readonly batchKey: string;
  /** Every image the pull request carries, in component order; at least one `updated`. */
  readonly rows: readonly ValidatedRow[];
  /** githubAppGitAuthor or scmTokenGitAuthor. */
  readonly gitAuthor: string;
  readonly settings: RenovateSettings;
  /** semanticCommitsDetected over the base branch's newest subjects; default false. */
  readonly semanticCommits?: boolean;
}

/** What a pull request body's hidden stamp says. */
export interface BatchStamp {
  readonly key: string;
  readonly images: readonly ValidatedImage[];
}

const BATCH_STAMP = /<!-- nudger-validated-batch key=([0-9a-f]{16}) images=(\S+) -->/;
const BATCH_KEY = /^[0-9a-f]{16}$/;
// A DNS-1123 subdomain (Kubernetes object names): nothing Markdown, HTML or a git ref reads specially.
const OBJECT_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/** validatedBranch, once both names are checked: the branch is looked up before any text is written. */
export function validatedBatchBranch(nudged: string, gatingGroup: string): string {
  checkName('nudged', nudged, true);
  checkName('gatingGroup', gatingGroup, false);
  return validatedBranch(nudged, gatingGroup);
}

/**
 * The batch commit's date: the newest creation time of its builds (undefined ones ignored), so
 * that the same batch on the same base is the same commit (N5, N20).
 */
export function validatedCommitDate(createdAts: readonly (string | undefined)[]): string | undefined {
  let newest: string | undefined;
  createdAts.forEach((time, i) => {
    if (time === undefined) return;
    checkBuildTime(`entries[${String(i)}].build.createdAt`, time);
    if (newest === undefined || Date.parse(time) > Date.parse(newest)) newest = time;
  });
  return newest;
}

/**
 * `<!-- nudger-validated-batch key=<16 hex> images=<JSON> -->`, hidden where the body is rendered.
 * The JSON has every character that could end the comment or the word (`-`, `<`, `>`, `&`,
 * whitespace) written as a `\\u` escape, which JSON.parse reads back.
 */
export function formatBatchStamp(stamp: BatchStamp): string {
  if (!BATCH_KEY.test(stamp.key)) throw new NudgeInputError('key', 'is not a validated batch key (16 hex digits)');
  stamp.images.forEach((image, i) => {
    checkImage(`images[${String(i)}]`, image);
  });
  const images = stamp.images.map((image) => ({
    component: image.component,
    digest: image.digest,
    pullSpec: image.pullSpec,
    snapshot: image.snapshot,
    pipelineRun: image.pipelineRun,
    ...(image.createdAt === undefined ? {} : { createdAt: image.createdAt }),
    repoAtShaLink: image.repoAtShaLink,
    distributionRepositories: image.distributionRepositories,
    fileMatch: image.fileMatch,
  }));
  const json = JSON.stringify(images).replace(
    /[-<>&\s]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `<!-- nudger-validated-batch key=${stamp.key} images=${json} -->`;
}

/**
 * The stamp a pull request body carries, or undefined when it has none or one that does not read
 * (a human edited it): the pull request then carries nothing nudger can tell, and the batch is
 * written as a first one would be.
 */
export function parseBatchStamp(body: string): BatchStamp | undefined {
  const match = BATCH_STAMP.exec(body);
  if (match === null) return undefined;
  const [, key = '', json = ''] = match;
  try {
    const images: unknown = JSON.parse(json);
    if (!Array.isArray(images)) return undefined;
    const checked: ValidatedImage[] = [];
    images.forEach((image: unknown, i) => {
      checkImage(`images[${String(i)}]`, image);
      checked.push(image);
    });
    return { key, images: checked };
  } catch {
    return undefined;
  }
}

function isStringArray(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Throws NudgeInputError when an image's value could break the text or is not what it says. */
function checkImage(field: string, candidate: unknown): asserts candidate is ValidatedImage {
  if (typeof candidate !== 'object' || candidate === null) throw new NudgeInputError(field, 'is not an object');
  const image = candidate as Partial<Record<keyof ValidatedImage, unknown>>;
  const text = (name: keyof ValidatedImage): string => {
    const value = image[name];
    if (typeof value !== 'string') throw new NudgeInputError(`${field}.${name}`, 'is not a string');
    return value;
  };
  checkName(`${field}.component`, text('component'), true);
  checkDigest(`${field}.digest`, text('digest'));
  const pullSpec = text('pullSpec');
  if (!pullSpec.endsWith(`@${text('digest')}`) || !isImageRepository(imageRepository(pullSpec))) {
    throw new NudgeInputError(`${field}.pullSpec`, 'is not <image repository>@<digest>');
  }
  checkName(`${field}.snapshot`, text('snapshot'), false);
  checkName(`${field}.pipelineRun`, text('pipelineRun'), false);
  if (image.createdAt !== undefined) checkBuildTime(`${field}.createdAt`, text('createdAt'));
  checkRepoAtShaLink(text('repoAtShaLink'), `${field}.repoAtShaLink`);
  if (!isStringArray(image.distributionRepositories) || !image.distributionRepositories.every(isImageRepository)) {
    throw new NudgeInputError(`${field}.distributionRepositories`, 'is not a list of image repositories');
  }
  if (!isStringArray(image.fileMatch)) throw new NudgeInputError(`${field}.fileMatch`, 'is not a list of patterns');
}

/** Throws NudgeInputError unless `name` is a DNS-1123 label (`label`) or a Kubernetes object name. */
export function checkName(field: string, name: string, label: boolean): void {
  const ok = label ? isDns1123Label(name) : OBJECT_NAME.test(name);
  if (!ok) throw new NudgeInputError(field, `is not a ${label ? 'DNS-1123 label' : 'Kubernetes object name'}`);
}

export function checkDigest(field: string, digest: string): void {
  if (!DIGEST_PATTERN.test(digest)) {
    throw new NudgeInputError(field, 'is not sha256: followed by 64 lower-case hex digits');
  }
}

function checkInput(input: ValidatedPullRequestInput): void {
  checkName('nudged', input.nudged, true);
  checkName('gatingGroup', input.gatingGroup, false);
  if (!input.rows.some((row) => row.change === 'updated')) {
    throw new NudgeInputError('rows', 'has no component the commit updates');
  }
  input.rows.forEach((row, i) => {
    checkImage(`rows[${String(i)}]`, row);
    if (row.oldDigest !== undefined) checkDigest(`rows[${String(i)}].oldDigest`, row.oldDigest);
  });
}

/** The header: which group validated the images (Renovate's prHeader place). */
function header(gatingGroup: string): string {
  return `Images validated by passing Snapshots of component group \`${gatingGroup}\``;
}

/** The updates section: the table, the components it does not change, the builds. */
function updatesSection(input: ValidatedPullRequestInput): string {
  const rows = input.rows.map(
    (u) =>
      `| ${u.component} | ${u.oldDigest === undefined ? '' : `\`${u.oldDigest}\``} | \`${u.digest}\` | \`${u.snapshot}\` |`,
  );
  const builds = input.rows.map(
    (u) =>
      `- ${u.component}: image created ${u.repoAtShaLink === '' ? '' : `from '${u.repoAtShaLink}' `}by build \`${u.pipelineRun}\``,
  );
  const unchanged = (change: ValidatedRow['change'], text: string): string => {
    const names = input.rows.filter((u) => u.change === change).map((u) => u.component);
    return names.length === 0 ? '' : `${text}: ${names.join(', ')}\n\n`;
  };
  return (
    'This PR contains the following updates:\n\n' +
    '| Component | Old digest | New digest | Snapshot |\n|---|---|---|---|\n' +
    `${rows.join('\n')}\n\n` +
    unchanged('up-to-date', 'Already pinned, not changed by this PR') +
    unchanged('unreferenced', 'Not referenced by digest in the files their fileMatch selects, not changed by this PR') +
    `${builds.join('\n')}\n\n`
  );
}

function commitBody(input: ValidatedPullRequestInput): string {
  checkGitAuthor(input.gitAuthor);
  const lines = input.rows
    .filter((u) => u.change === 'updated')
    .map((u) => `- ${u.component}: ${u.digest} (Snapshot ${u.snapshot})`);
  return `${header(input.gatingGroup).replaceAll('`', '')}:\n${lines.join('\n')}\n\nSigned-off-by: ${input.gitAuthor}`;
}

/** Everything the `direct` executor writes for one validated batch. */
export function validatedPullRequestText(input: ValidatedPullRequestInput): NudgePullRequestText {
  checkInput(input);
  const subject = renovateGroupCommitSubject({
    groupName: validatedGroupName(input.gatingGroup),
    commitMessagePrefix: input.settings.commitMessagePrefix,
    commitMessageSuffix: input.settings.commitMessageSuffix,
    ...(input.semanticCommits === undefined ? {} : { semanticCommits: input.semanticCommits }),
  });
  const body = renovateBodyAround({
    prHeader: header(input.gatingGroup),
    updates: updatesSection(input),
    prFooter: NUDGE_PR_FOOTER,
    automerge: input.settings.automerge,
    automergeSchedule: input.settings.automergeSchedule,
  });
  const message = commitBody(input);
  return {
    branch: validatedBranch(input.nudged, input.gatingGroup),
    commit: { subject, body: message, message: `${subject}\n\n${message}` },
    title: subject,
    body: `${body}\n\n${formatBatchStamp({ key: input.batchKey, images: input.rows })}`,
    labels: nudgeLabels(input.settings),
  };
}
