// The commit nudger pushes to the ChangeGroup branch. Stock PaC reads skip markers only from the
// head commit message (docs/decisions.md D4), so the subject carries `[skip ci]` until the final push, and
// nothing else in the message may contain a marker that could keep the final push from building.
import { SKIP_CI, neutraliseSkipMarkers } from './skip-markers.ts';
import { compareStrings } from '../compare.ts';

export interface DigestUpdate {
  readonly component: string;
  /** `sha256:<hex>` the nudged repository referenced before, when known. */
  readonly originalBuild?: string;
  readonly newBuild: string;
}

export interface CommitMessageInput {
  readonly changeGroup: { readonly name: string; readonly namespace: string };
  readonly nudgedComponent: string;
  /** The ready components whose digests this commit writes. */
  readonly updates: readonly DigestUpdate[];
  /** Append `[skip ci]` to the subject (commitMessage mode, before the final push). */
  readonly skipCi: boolean;
}

export interface CommitMessage {
  readonly subject: string;
  readonly body: string;
  /** `subject`, a blank line, `body`: what `git commit -m` receives. */
  readonly message: string;
}

export class CommitMessageError extends Error {
  readonly changeGroup: string;
  constructor(changeGroup: string, message: string) {
    super(`ChangeGroup ${changeGroup}: ${message}`);
    this.name = 'CommitMessageError';
    this.changeGroup = changeGroup;
  }
}

/** One line of text from an external value: no line breaks, no skip markers. */
function oneLine(value: string): string {
  let out = '';
  for (const char of value) {
    const c = char.codePointAt(0) ?? 0;
    out += c < 0x20 || c === 0x7f || c === 0x85 || c === 0x2028 || c === 0x2029 ? ' ' : char;
  }
  // Neutralised last: replacing a line break with a space could otherwise complete a marker.
  return neutraliseSkipMarkers(out.trim());
}

/** Renovate's `newDigestShort`: the first 7 hex digits. */
function digest7(digest: string): string {
  return oneLine(digest.replace(/^sha256:/, '').slice(0, 7));
}

export function commitMessage(input: CommitMessageInput): CommitMessage {
  const { changeGroup } = input;
  if (input.updates.length === 0) {
    throw new CommitMessageError(`${changeGroup.namespace}/${changeGroup.name}`, 'no ready component to commit');
  }
  const updates = [...input.updates].sort((a, b) => compareStrings(a.component, b.component));
  const [only] = updates;
  // One update reads exactly like an upstream nudge commit; many are summarised.
  const summary =
    updates.length === 1 && only !== undefined
      ? `Update ${oneLine(only.component)} to ${digest7(only.newBuild)}`
      : `Update ${String(updates.length)} component images for ${oneLine(input.nudgedComponent)}`;
  const subject = input.skipCi ? `${summary} ${SKIP_CI}` : summary;
  const lines = updates.map(
    (u) =>
      `${oneLine(u.component)}: ${u.originalBuild === undefined ? '(unknown)' : oneLine(u.originalBuild)} → ${oneLine(u.newBuild)}`,
  );
  const body = [...lines, '', `ChangeGroup: ${oneLine(changeGroup.namespace)}/${oneLine(changeGroup.name)}`].join('\n');
  return { subject, body, message: `${subject}\n\n${body}` };
}
