// Which forge serves a Component's repository, and with which credentials. The ChangeGroup
// controller asks once per reconcile with the nudged Component's `spec.source.git.url` and its
// namespace (credentials are per tenant namespace, the Konflux convention). Implementations:
// `HostedForgeResolver` (github.com and configured hosts, tokens from the cluster's GitHub App or
// the tenant's SCM Secrets) for the manager, and a `file://` resolver over the local forge for the sandbox and tests.
import type { RepositoryRef } from './repository-url.ts';
import type { ForgeProvider } from './types.ts';

export interface ResolvedForge {
  readonly provider: ForgeProvider;
  readonly repo: RepositoryRef;
  /**
   * Set when the provider's token is an installation token of the cluster's GitHub App
   * (docs/decisions.md D9): who nudge commits are written by, githubAppGitAuthor(appSlug, botId)
   * (src/domain/nudge/git-author.ts). Absent for a tenant's SCM Secret, whose Credentials carry
   * its username.
   */
  readonly githubApp?: GitHubAppIdentity;
}

/** The App and installation an installation token belongs to. */
export interface GitHubAppIdentity {
  readonly appId: number;
  readonly installationId: number;
  /** The App's slug, `red-hat-konflux`: its bot user is `<slug>[bot]`. */
  readonly appSlug: string;
  /** The id of that bot user: the number in its noreply commit email. */
  readonly botId: number;
}

export interface ForgeResolver {
  /**
   * Throws ForgeResolutionError when no forge is configured for the URL's host, or when the
   * namespace has no usable credentials for it. Never puts a token in the error.
   */
  resolve(gitUrl: string, namespace: string, signal?: AbortSignal, options?: ResolveOptions): Promise<ResolvedForge>;
}

export interface ResolveOptions {
  /**
   * How long a GitHub App installation token must stay valid (default TOKEN_REFRESH_MARGIN_MS, 5
   * minutes): a caller that hands the token to work that starts later (a Renovate PipelineRun)
   * asks for more, and gets a fresh token when the kept one has less left.
   */
  readonly minTokenValidityMs?: number;
}

/** Why no forge could be used: the URL, the host, or the namespace's credentials for it. */
export type ForgeResolutionFailure = 'invalid-url' | 'no-forge' | 'no-credentials';

export class ForgeResolutionError extends Error {
  override readonly name = 'ForgeResolutionError';
  /** The repository URL with any user info removed. */
  readonly url: string;
  readonly namespace: string;
  readonly reason: string;
  readonly kind: ForgeResolutionFailure;

  constructor(url: string, namespace: string, reason: string, kind: ForgeResolutionFailure = 'no-credentials') {
    super(`repository ${url} (namespace ${namespace}): ${reason}`);
    this.url = url;
    this.namespace = namespace;
    this.reason = reason;
    this.kind = kind;
  }
}
