// The forge target the renovate executor's tests generate configs for: github.com's
// acme/operator-bundle on main, as an SCM-token tenant without a username (red-hat-konflux).
import assert from 'node:assert/strict';
import { NudgeInputError } from '../../../src/domain/nudge/errors.ts';
import { scmTokenGitAuthor } from '../../../src/domain/nudge/git-author.ts';
import type { RenovateTarget } from '../../../src/domain/nudge/renovate-config.ts';

export const GITHUB_TARGET: RenovateTarget = {
  platform: 'github',
  username: 'red-hat-konflux',
  gitAuthor: scmTokenGitAuthor(undefined, 'github.com'),
  endpoint: 'https://api.github.com/',
  repository: 'acme/operator-bundle',
  baseBranch: 'main',
};

/** `fn` throws the NudgeInputError that names `field`. */
export function throwsField(fn: () => unknown, field: string): void {
  assert.throws(fn, (error: unknown) => error instanceof NudgeInputError && error.field === field);
}
