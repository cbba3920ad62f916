// Which build a `direct` nudge pull request carries (docs/decisions.md N20). A newer build of the
// nudging component replaces the digest in the same pull request; an older build that arrives late
// (a retry, a slow verification) must not overwrite it. The executor cannot ask the cluster which
// build the pull request holds, so the pull request says it itself: a hidden HTML comment at the end
// of its body, invisible where the body is rendered, with the build's creation time, PipelineRun
// name and digest. Builds are ordered by creation time, ties broken by PipelineRun name.
import { compareStrings } from '../compare.ts';
import { DIGEST_PATTERN } from '../digest-rewrite/index.ts';
import { NudgeInputError } from './errors.ts';

export interface NudgeBuildStamp {
  /** The build PipelineRun's creationTimestamp (RFC 3339); undefined when unknown. */
  readonly createdAt: string | undefined;
  readonly pipelineRun: string;
  /** `sha256:<64 hex>`. */
  readonly digest: string;
}

const STAMP = /<!-- nudger-build createdAt=(\S+) pipelineRun=(\S+) digest=(\S+) -->/;
// Characters a creationTimestamp and a PipelineRun name (DNS-1123 subdomain) are made of: none of
// them can end the comment (`-->` needs `>`) or break the line.
const TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(?:Z|[+-][0-9]{2}:[0-9]{2})$/;
const NAME = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;
const UNKNOWN_TIME = '-';

/** Throws NudgeInputError when `time` is not an RFC 3339 time a commit may be dated by. */
export function checkBuildTime(field: string, time: string): void {
  if (!TIME.test(time) || Number.isNaN(Date.parse(time))) throw new NudgeInputError(field, 'is not an RFC 3339 time');
}

function checkStamp(stamp: NudgeBuildStamp): void {
  if (stamp.createdAt !== undefined) checkBuildTime('build.createdAt', stamp.createdAt);
  if (!NAME.test(stamp.pipelineRun)) throw new NudgeInputError('build.pipelineRun', 'is not a PipelineRun name');
  if (!DIGEST_PATTERN.test(stamp.digest)) {
    throw new NudgeInputError('build.digest', 'is not sha256: followed by 64 lower-case hex digits');
  }
}

/** `<!-- nudger-build createdAt=<time> pipelineRun=<name> digest=<digest> -->` */
export function formatBuildStamp(stamp: NudgeBuildStamp): string {
  checkStamp(stamp);
  const time = stamp.createdAt ?? UNKNOWN_TIME;
  return `<!-- nudger-build createdAt=${time} pipelineRun=${stamp.pipelineRun} digest=${stamp.digest} -->`;
}

/** The pull request body with its stamp: after Renovate's text, separated by a blank line. */
export function withBuildStamp(body: string, stamp: NudgeBuildStamp): string {
  return `${body}\n\n${formatBuildStamp(stamp)}`;
}

/**
 * The stamp a pull request body carries, or undefined when it has none or one that does not read
 * (a human edited it away): the executor then cannot tell which build is newer and lets the
 * arriving build through, as a first nudge would.
 */
export function parseBuildStamp(body: string): NudgeBuildStamp | undefined {
  const match = STAMP.exec(body);
  if (match === null) return undefined;
  const [, time = '', pipelineRun = '', digest = ''] = match;
  const stamp = { createdAt: time === UNKNOWN_TIME ? undefined : time, pipelineRun, digest };
  try {
    checkStamp(stamp);
  } catch {
    return undefined;
  }
  return stamp;
}

/** Negative when `a` is the older build, positive when newer, 0 for the same build. */
export function compareBuildStamps(a: NudgeBuildStamp, b: NudgeBuildStamp): number {
  // A build whose creation time is unknown ranks below every dated one.
  const time = (stamp: NudgeBuildStamp): number =>
    stamp.createdAt === undefined ? Number.NEGATIVE_INFINITY : Date.parse(stamp.createdAt);
  const byTime = time(a) - time(b);
  if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
  return compareStrings(a.pipelineRun, b.pipelineRun);
}
