// Opening a pull request without ever opening two (docs/decisions.md D5): callers look one up by
// head branch first, but a previous attempt whose answer was lost may have opened it since. The
// forge then refuses the second with 422, and the open one is adopted instead.
import { isForgeError } from './errors.ts';
import type { CreatePullRequestInput, ForgeProvider, PullRequest } from './types.ts';

export interface CreatedOrAdopted {
  readonly pullRequest: PullRequest;
  /** True when an open PR with this head already existed: its title and body are as it had them. */
  readonly adopted: boolean;
}

export async function createOrAdoptPullRequest(
  provider: ForgeProvider,
  input: CreatePullRequestInput,
): Promise<CreatedOrAdopted> {
  try {
    return { pullRequest: await provider.createPullRequest(input), adopted: false };
  } catch (error) {
    if (!isForgeError(error, 422)) throw error;
    const found = await provider.findPullRequestByHeadBranch(input.repo, input.head);
    if (found?.state !== 'open') throw error;
    return { pullRequest: found, adopted: true };
  }
}
