// What the `renovate` executor needs to know about the nudged repository's forge (docs/decisions.md
// D9): Renovate's platform, endpoint and user, the git author it signs with, the repository path,
// and the token that goes into the nudge's Secret. The token comes from the same ForgeResolver the
// ChangeGroup controller uses (an SCM Secret of the tenant namespace, or whatever credentials the
// resolver is given, a GitHub App installation token included), so both controllers always
// authenticate the same way. Only the provider's Credentials carry the token; nothing here prints it.
import { redactUserInfo, type Credentials } from '../../../adapters/credentials/credentials.ts';
import type { HostedForge } from '../../../adapters/forges/registry.ts';
import { ForgeResolutionError, type ForgeResolver, type ResolvedForge } from '../../../adapters/forges/resolver.ts';
import type { RepositoryRef } from '../../../adapters/forges/repository-url.ts';
import {
  DEFAULT_RENOVATE_USER,
  githubAppGitAuthor,
  scmTokenGitAuthor,
  secretUsername,
} from '../../../domain/nudge/git-author.ts';
import { isRecord } from '../../../domain/records.ts';
import type { RenovatePlatform } from '../../../schema/renovate-config.ts';

/**
 * How long the token put into a nudge's Secret must still be valid when the fire resolves it
 * (docs/decisions.md N23, N24). The token is read by the run, not by the fire: Tekton may queue the
 * run, resolve and schedule its pod and pull the Renovate image (gigabytes) first, and Renovate then
 * works on the repository for minutes. A kept GitHub App installation token can have as little as
 * TOKEN_REFRESH_MARGIN_MS (5 minutes) left, enough for the direct executor's push that starts at
 * once, not for a run that starts later; a token minted now lives an hour, so asking for 30 minutes
 * mints at most one token per repository and half hour for renovate nudges.
 */
export const RENOVATE_TOKEN_MIN_VALIDITY_MS = 30 * 60 * 1000;

export interface RenovateForgeAccess {
  readonly platform: RenovatePlatform;
  /** The forge API Renovate talks to, with a trailing `/` as build-service writes it. */
  readonly endpoint: string;
  /** Renovate's `username`. */
  readonly username: string;
  /** Renovate's `gitAuthor` (docs/decisions.md N17). */
  readonly gitAuthor: string;
  /** `<owner>/<name>`. */
  readonly repository: string;
  /** What goes into the Secret; never into the config, the PipelineRun or a message. */
  readonly credentials: Credentials;
}

export interface RenovateForgeAccessResolver {
  /** Throws ForgeResolutionError (kind no-credentials, no-forge, invalid-url) or a KubeApiError. */
  resolve(gitUrl: string, namespace: string, signal?: AbortSignal): Promise<RenovateForgeAccess>;
}

/** Renovate's user and git author for a resolved forge. */
export interface RenovateIdentity {
  readonly username: string;
  readonly gitAuthor: string;
}

/**
 * build-service's identity for an SCM-token tenant: the Secret's username, else `red-hat-konflux`.
 * Credentials without a username of their own carry `x-access-token` (GitLab's provider: `oauth2`),
 * which is a transport detail, not a user name Renovate should act as (docs/decisions.md N38).
 */
export function scmTokenIdentity(resolved: ResolvedForge): RenovateIdentity | undefined {
  const username = secretUsername(resolved.provider.credentials?.username) ?? DEFAULT_RENOVATE_USER;
  return { username, gitAuthor: scmTokenGitAuthor(username, resolved.repo.host) };
}

/**
 * build-service's identity for a GitHub App installation token: user `<slug>[bot]`, git author
 * githubAppGitAuthor. Read from the resolver's `githubApp` (set only for such tokens) field by
 * field, so that a resolver without it is simply not an App.
 */
export function githubAppIdentity(resolved: ResolvedForge): RenovateIdentity | undefined {
  const app: unknown = (resolved as { readonly githubApp?: unknown }).githubApp;
  if (!isRecord(app) || typeof app.appSlug !== 'string' || typeof app.botId !== 'number') return undefined;
  return { username: `${app.appSlug}[bot]`, gitAuthor: githubAppGitAuthor(app.appSlug, app.botId) };
}

/** The App's identity for an installation token, else the SCM Secret's. */
export function resolvedIdentity(resolved: ResolvedForge): RenovateIdentity | undefined {
  return githubAppIdentity(resolved) ?? scmTokenIdentity(resolved);
}

/** `https://api.github.com/`: Renovate's endpoint for a configured forge host. */
export function renovateEndpoint(apiUrl: string): string {
  return apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`;
}

export interface ForgeResolverAccessOptions {
  /** The hosts the manager serves (publicForgeHosts plus --<kind>-host): platform and API URL. */
  readonly hosts: ReadonlyMap<string, HostedForge>;
  /**
   * Renovate's user and git author for what the resolver returned; default resolvedIdentity (the
   * GitHub App's for an installation token, else the SCM Secret's user).
   */
  readonly identity?: (resolved: ResolvedForge) => RenovateIdentity | undefined;
}

/** RenovateForgeAccess through the manager's ForgeResolver. */
export class ForgeResolverAccess implements RenovateForgeAccessResolver {
  readonly #resolver: ForgeResolver;
  readonly #hosts: ReadonlyMap<string, HostedForge>;
  readonly #identity: (resolved: ResolvedForge) => RenovateIdentity | undefined;

  constructor(resolver: ForgeResolver, options: ForgeResolverAccessOptions) {
    this.#resolver = resolver;
    this.#hosts = options.hosts;
    this.#identity = options.identity ?? resolvedIdentity;
  }

  async resolve(gitUrl: string, namespace: string, signal?: AbortSignal): Promise<RenovateForgeAccess> {
    const resolved = await this.#resolver.resolve(gitUrl, namespace, signal, {
      minTokenValidityMs: RENOVATE_TOKEN_MIN_VALIDITY_MS,
    });
    const { repo } = resolved;
    const shown = redactUserInfo(repo.url);
    const forge = this.#hosts.get(repo.host);
    if (forge === undefined) {
      throw new ForgeResolutionError(shown, namespace, `no forge is configured for host ${repo.host}`, 'no-forge');
    }
    const credentials = resolved.provider.credentials;
    if (credentials === undefined) {
      throw new ForgeResolutionError(shown, namespace, 'the forge gave no credentials for it');
    }
    const identity = this.#identity(resolved);
    if (identity === undefined) {
      throw new ForgeResolutionError(shown, namespace, 'no Renovate user is known for these credentials');
    }
    return {
      platform: forge.kind,
      endpoint: renovateEndpoint(forge.apiUrl),
      ...identity,
      repository: repositoryPath(repo),
      credentials,
    };
  }
}

export function repositoryPath(repo: RepositoryRef): string {
  return `${repo.owner}/${repo.name}`;
}
