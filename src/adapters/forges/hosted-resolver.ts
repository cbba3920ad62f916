// The manager's ForgeResolver: a Component's repository host picks a configured forge (the public
// hosts of FORGE_REGISTRY by default, plus any given with --<kind>-host); the token is, for a GitHub
// repository the cluster's GitHub App is installed on, an installation token for that repository
// (build-service's order, docs/decisions.md N23), else the tenant namespace's SCM Secret for that
// host and repository. Secrets are read live and never cached: the manager holds no tenant's token
// longer than one reconcile needs it. Installation tokens are kept in memory until shortly before
// they expire (github/app-tokens.ts).
import type { ObjectClient } from '../kubernetes/client.ts';
import { SECRETS } from '../kubernetes/resources.ts';
import type { KubeObject } from '../kubernetes/types.ts';
import { parseRepositoryUrl, RepositoryUrlError, type RepositoryRef } from './repository-url.ts';
import { redactUserInfo } from '../credentials/credentials.ts';
import { ForgeResolutionError, type ForgeResolver, type ResolvedForge, type ResolveOptions } from './resolver.ts';
import { KubeApiError } from '../kubernetes/errors.ts';
import { chooseScmSecret, scmSecretSelector, type SecretObject } from './scm-credentials.ts';

import { FORGE_REGISTRY, type HostedForge } from './registry.ts';
import { formatSecretRef, GitHubAppSecretError, readGitHubAppKey, type SecretRef } from './github/app-secret.ts';
import type { AppInstallationToken, GitHubAppTokens } from './github/app-tokens.ts';

/** The cluster's GitHub App: the Secret holding it and the installation tokens minted with it. */
export interface GitHubAppSource {
  /** The Pipelines-as-Code Secret (`github-application-id`, `github-private-key`). */
  readonly secret: SecretRef;
  /** One per manager, shared by every controller: tokens are minted once per repository. */
  readonly tokens: GitHubAppTokens;
}

export interface HostedForgeResolverOptions {
  /** Absent: no GitHub App; every token comes from an SCM Secret. */
  readonly githubApp?: GitHubAppSource;
}

const NOT_INSTALLED = Symbol('not installed');
/** The forge kinds a GitHub App serves: GitHub, github.com and Enterprise hosts alike. */
const GITHUB_APP_KINDS: ReadonlySet<string> = new Set(['github']);

export class HostedForgeResolver implements ForgeResolver {
  readonly #client: ObjectClient;
  readonly #hosts: ReadonlyMap<string, HostedForge>;
  readonly #githubApp: GitHubAppSource | undefined;

  constructor(client: ObjectClient, hosts: ReadonlyMap<string, HostedForge>, options: HostedForgeResolverOptions = {}) {
    this.#client = client;
    this.#hosts = hosts;
    this.#githubApp = options.githubApp;
  }

  async resolve(
    gitUrl: string,
    namespace: string,
    signal?: AbortSignal,
    options: ResolveOptions = {},
  ): Promise<ResolvedForge> {
    let repo;
    try {
      repo = parseRepositoryUrl(gitUrl);
    } catch (error) {
      if (error instanceof RepositoryUrlError) {
        throw new ForgeResolutionError(error.url, namespace, error.reason, 'invalid-url');
      }
      throw error;
    }
    const shown = redactUserInfo(gitUrl);
    const forge = this.#hosts.get(repo.host);
    if (forge === undefined) {
      const known = [...this.#hosts.keys()].join(', ');
      throw new ForgeResolutionError(
        shown,
        namespace,
        `no forge is configured for host ${repo.host} (configured: ${known})`,
        'no-forge',
      );
    }
    const endpoint = { apiUrl: forge.apiUrl, gitBaseUrl: forge.gitBaseUrl ?? `https://${repo.host}` };
    const app = await this.#githubAppToken(forge, repo, { shown, namespace, signal, ...options });
    if (app !== undefined && app !== NOT_INSTALLED) {
      return {
        repo,
        provider: FORGE_REGISTRY[forge.kind].create({ ...endpoint, credentials: app.credentials }),
        githubApp: app.identity,
      };
    }
    const page = await this.#client.list<KubeObject & SecretObject>(SECRETS, {
      namespace,
      labelSelector: scmSecretSelector(repo.host),
      ...(signal === undefined ? {} : { signal }),
    });
    const choice = chooseScmSecret(page.items, repo.host, `${repo.owner}/${repo.name}`);
    if (!choice.ok) {
      const appReason =
        app === NOT_INSTALLED && this.#githubApp !== undefined
          ? `, and the GitHub App of Secret ${formatSecretRef(this.#githubApp.secret)} is not installed on it`
          : '';
      throw new ForgeResolutionError(shown, namespace, `${choice.reason}${appReason}`);
    }
    return { repo, provider: FORGE_REGISTRY[forge.kind].create({ ...endpoint, credentials: choice.credentials }) };
  }

  /**
   * The App's token for a GitHub repository; undefined when there is no App (no Secret, or one
   * without the App keys) or the forge is no GitHub, NOT_INSTALLED when the App is not installed on
   * the repository. A malformed App Secret fails the resolution, naming the Secret and key: falling
   * back to an SCM Secret would hide it, and change whose commits a pull request gets once fixed.
   */
  async #githubAppToken(
    forge: HostedForge,
    repo: RepositoryRef,
    context: ResolveOptions & { shown: string; namespace: string; signal: AbortSignal | undefined },
  ): Promise<AppInstallationToken | typeof NOT_INSTALLED | undefined> {
    const app = this.#githubApp;
    if (app === undefined || !GITHUB_APP_KINDS.has(forge.kind)) return undefined;
    let key;
    try {
      key = await readGitHubAppKey(this.#client, app.secret, context.signal);
    } catch (error) {
      if (error instanceof GitHubAppSecretError) {
        throw new ForgeResolutionError(context.shown, context.namespace, error.message);
      }
      // Forbidden is a deployment fault with one of two fixes; anything else (a timeout, a 500)
      // passes on as it is, to be retried.
      if (error instanceof KubeApiError && error.statusCode === 403) {
        throw new ForgeResolutionError(
          context.shown,
          context.namespace,
          `the GitHub App Secret ${formatSecretRef(app.secret)} cannot be read (forbidden): grant get on it, or run the manager with --github-app-secret=none`,
        );
      }
      throw error;
    }
    if (key === undefined) return undefined;
    const validity = context.minTokenValidityMs === undefined ? {} : { minValidityMs: context.minTokenValidityMs };
    return (await app.tokens.tokenFor(forge.apiUrl, key, repo, validity)) ?? NOT_INSTALLED;
  }
}
