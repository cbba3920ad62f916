// Who the `direct` executor commits as (docs/decisions.md N17): build-service's Renovate gitAuthor
// for the tenant's credentials. The same identity signs the commit (`Signed-off-by:`) and is what
// every commit on a nudge branch is compared with to tell whether someone else pushed to it.
import type { ResolvedForge } from '../../../adapters/forges/resolver.ts';
import type { GitIdentity } from '../../../adapters/git/workspace.ts';
import { githubAppGitAuthor, scmTokenGitAuthor, secretUsername } from '../../../domain/nudge/git-author.ts';
import { checkGitAuthor } from '../../../domain/nudge/pull-request-text.ts';

/** The `Name <address>` a nudge to this forge's repository is written by. */
export type GitAuthorOf = (forge: ResolvedForge) => string;

/**
 * build-service's gitAuthor (N17): for a GitHub App installation token, the App's bot,
 * `<slug> <<bot id>+<slug>[bot]@users.noreply.github.com>`; for an SCM token,
 * `<user> <123456+<user>[bot]@users.noreply.<host>>`, `<user>` being the Secret's username, else
 * `red-hat-konflux`. The local forge has no host; it is named `localhost`.
 */
export const defaultGitAuthorOf: GitAuthorOf = ({ provider, repo, githubApp }) => {
  if (githubApp !== undefined) return githubAppGitAuthor(githubApp.appSlug, githubApp.botId);
  // GitLab's `oauth2` and GitHub's `x-access-token` are git transport names, not the Secret's user (N38).
  return scmTokenGitAuthor(secretUsername(provider.credentials?.username), repo.host === '' ? 'localhost' : repo.host);
};

/** `Name <address>` as git takes it. */
export function gitIdentityOf(gitAuthor: string): GitIdentity {
  checkGitAuthor(gitAuthor);
  const open = gitAuthor.lastIndexOf(' <');
  return { name: gitAuthor.slice(0, open), email: gitAuthor.slice(open + 2, -1) };
}
