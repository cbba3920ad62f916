// The commit author of a nudge (docs/decisions.md N17), as build-service sets Renovate's gitAuthor
// (internal/controller/renovate_util.go, GetUpdateTargetsGithubApp and GetUpdateTargetsBasicAuth).
// It signs the commit (`Signed-off-by:`) and is the identity Renovate, and nudger, compare to every
// commit on a nudge branch to tell whether someone else pushed to it.
import { NudgeInputError } from './errors.ts';

/** Renovate's username when an SCM Secret names none (build-service DefaultRenovateUser). */
export const DEFAULT_RENOVATE_USER = 'red-hat-konflux';

/**
 * What Konflux's public GitHub App signs with (slug red-hat-konflux, bot user 126015336): the
 * `Signed-off-by:` seen on real nudge commits.
 */
export const KONFLUX_GITHUB_APP = { slug: 'red-hat-konflux', botId: 126015336 } as const;

const APP_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const USERNAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9_])?$/;
const HOST = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::[0-9]{1,5})?$/;

/** `<slug> <<botId>+<slug>[bot]@users.noreply.github.com>` for a GitHub App installation. */
export function githubAppGitAuthor(slug: string, botId: number): string {
  if (!APP_SLUG.test(slug)) throw new NudgeInputError('gitAuthor.appSlug', 'is not a GitHub App slug');
  if (!Number.isSafeInteger(botId) || botId <= 0) {
    throw new NudgeInputError('gitAuthor.botId', 'is not a positive integer');
  }
  return `${slug} <${String(botId)}+${slug}[bot]@users.noreply.github.com>`;
}

/**
 * The git user names the forge adapters use when an SCM Secret names none: `x-access-token`
 * (GitHub's, the default) and `oauth2` (GitLab's, N32). They are how a token goes over git HTTPS,
 * not a user, so Renovate's user and the nudge's author are then build-service's default
 * (docs/decisions.md N38).
 */
const TRANSPORT_USERNAMES: readonly string[] = ['x-access-token', 'oauth2'];

/** The SCM Secret's own username behind the credentials' git user name; undefined when it named none. */
export function secretUsername(gitUsername: string | undefined): string | undefined {
  return gitUsername === undefined || gitUsername === '' || TRANSPORT_USERNAMES.includes(gitUsername)
    ? undefined
    : gitUsername;
}

/**
 * `<user> <123456+<user>[bot]@users.noreply.<host>>` for a tenant's SCM token: build-service's
 * fixed number, the Secret's username (else `red-hat-konflux`) and the repository's host.
 */
export function scmTokenGitAuthor(username: string | undefined, repositoryHost: string): string {
  const user = username === undefined || username === '' ? DEFAULT_RENOVATE_USER : username;
  if (!USERNAME.test(user)) {
    throw new NudgeInputError('gitAuthor.username', 'may hold only letters, digits, ".", "_" and "-"');
  }
  const host = repositoryHost.toLowerCase();
  if (!HOST.test(host) || host.length > 253) throw new NudgeInputError('gitAuthor.host', 'is not a host name');
  return `${user} <123456+${user}[bot]@users.noreply.${host}>`;
}
