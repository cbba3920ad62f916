// The commit subject of a nudge, which is also its pull request title, written the way Renovate
// writes it for build-service's nudge config (docs/decisions.md N17).
//
// What Renovate does, as read in renovatebot/renovate (lib/config/options: the `commitMessage`
// default; lib/workers/repository/updates/generate.ts: compileCommitMessage and compilePrTitle):
// the subject is the template "<prefix> <action> <topic> <extra> <suffix>". For a nudge the action
// is Renovate's default "Update", the topic is the nudging component (the packageRule's
// commitMessageTopic) and, for a digest update, the extra is "to <first 7 hex of the new digest>".
// The rendered text is trimmed, every run of whitespace becomes one space, and "to vv<digit>"
// becomes "to v<digit>". A configured commitMessagePrefix goes in as written: no colon is added
// and nothing is lower-cased. Only when no prefix is configured and semantic commits are on does
// Renovate make the prefix "chore(deps):" and lower-case the whole subject. (Renovate's
// CommitMessage model class, which does add a colon, is not what update commits go through.)
// The title is the subject's first line; no "(<base branch>)" is added, because a nudge names one
// base branch (Renovate adds it only for several).
import { DIGEST_PATTERN } from '../digest-rewrite/index.ts';
import { isDns1123Label } from '../labels.ts';
import { NudgeInputError } from './errors.ts';
import { unsafeCharacterProblem } from './text-checks.ts';

export interface CommitSubjectInput {
  /** The nudging Component, the commit message topic. */
  readonly nudging: string;
  /** `sha256:<64 hex>` of the build. */
  readonly newDigest: string;
  readonly commitMessagePrefix: string;
  readonly commitMessageSuffix: string;
  /** Renovate's semanticCommits in effect (see semanticCommitsDetected); default false. */
  readonly semanticCommits?: boolean;
}

/** Renovate's semantic prefix with its defaults (semanticCommitType chore, scope deps). */
export const SEMANTIC_COMMIT_PREFIX = 'chore(deps):';

/** Renovate's newDigestShort: the first seven hex digits. */
export function digestShort(digest: string, field = 'newDigest'): string {
  if (!DIGEST_PATTERN.test(digest)) {
    throw new NudgeInputError(field, 'is not sha256: followed by 64 lower-case hex digits');
  }
  return digest.slice('sha256:'.length, 'sha256:'.length + 7);
}

/** RE2's `\s` (Renovate's regex engine): ASCII whitespace only, unlike JavaScript's. */
const WHITESPACE_RUN = /[\t\n\f\r ]+/g;

/** Refuses a commitMessagePrefix or -Suffix that could break the subject or that only Renovate could expand. */
export function checkCommitMessageAffix(field: string, value: string): void {
  const unsafe = unsafeCharacterProblem(value);
  if (unsafe !== undefined) throw new NudgeInputError(field, unsafe);
  if (value.includes('{{')) throw new NudgeInputError(field, 'contains a Renovate template ("{{")');
}

export function renovateCommitSubject(input: CommitSubjectInput): string {
  if (!isDns1123Label(input.nudging)) throw new NudgeInputError('nudging', 'is not a component name (DNS-1123 label)');
  return renderSubject(input, input.nudging, `to ${digestShort(input.newDigest)}`);
}

export interface GroupCommitSubjectInput extends Omit<CommitSubjectInput, 'nudging' | 'newDigest'> {
  /** Renovate's groupName: the commit message topic of a group update. */
  readonly groupName: string;
}

/**
 * The subject of a Renovate group update (`group.commitMessageTopic` is `{{{groupName}}}`, and an
 * update of several dependencies has no "to <version>" extra): "Update <group name>", with the
 * prefix, suffix and semantic commits handled as for one update.
 */
export function renovateGroupCommitSubject(input: GroupCommitSubjectInput): string {
  checkCommitMessageAffix('groupName', input.groupName);
  return renderSubject(input, input.groupName, '');
}

/** Renovate's commit message template, "<prefix> <action> <topic> <extra> <suffix>", rendered. */
function renderSubject(
  settings: Pick<CommitSubjectInput, 'commitMessagePrefix' | 'commitMessageSuffix' | 'semanticCommits'>,
  topic: string,
  extra: string,
): string {
  checkCommitMessageAffix('commitMessagePrefix', settings.commitMessagePrefix);
  checkCommitMessageAffix('commitMessageSuffix', settings.commitMessageSuffix);
  const semantic = settings.semanticCommits === true && settings.commitMessagePrefix === '';
  const prefix = semantic ? SEMANTIC_COMMIT_PREFIX : settings.commitMessagePrefix;
  const rendered = [prefix, 'Update', topic, extra, settings.commitMessageSuffix]
    .join(' ')
    .trim()
    .replace(WHITESPACE_RUN, ' ')
    .replace(/to vv(\d)/, 'to v$1');
  return semantic ? rendered.toLowerCase() : rendered;
}

// Renovate's own test (lib/util/git/semantic.ts): `<type>(<scope>)!: <text>`, on one line.
const CONVENTIONAL_SUBJECT = /^(\w*)(?:\(([^\n]*)\))?!?: ([^\n]*)$/;

/**
 * Renovate's `semanticCommits: auto` over the newest commit subjects of the base branch: on when
 * more of them are conventional commits than are not.
 */
export function semanticCommitsDetected(subjects: readonly string[]): boolean {
  let balance = 0;
  for (const subject of subjects) balance += CONVENTIONAL_SUBJECT.test(subject) ? 1 : -1;
  return balance > 0;
}
