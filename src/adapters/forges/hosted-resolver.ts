// The manager's ForgeResolver: a Component's repository host picks a configured forge (the public
// hosts of FORGE_REGISTRY by default, plus any given with --<kind>-host), and the tenant
// namespace's SCM Secret for that host and repository supplies the token. Secrets are read live
// and never cached: the manager holds no tenant's token longer than one reconcile needs it.
import type { ObjectClient } from '../kubernetes/client.ts';
import { SECRETS } from '../kubernetes/resources.ts';
import type { KubeObject } from '../kubernetes/types.ts';
import { parseRepositoryUrl, RepositoryUrlError } from './repository-url.ts';
import { redactUserInfo } from '../credentials/credentials.ts';
import { ForgeResolutionError, type ForgeResolver, type ResolvedForge } from './resolver.ts';
import { chooseScmSecret, scmSecretSelector, type SecretObject } from './scm-credentials.ts';

import { FORGE_REGISTRY, type HostedForge } from './registry.ts';

export class HostedForgeResolver implements ForgeResolver {
  readonly #client: ObjectClient;
  readonly #hosts: ReadonlyMap<string, HostedForge>;

  constructor(client: ObjectClient, hosts: ReadonlyMap<string, HostedForge>) {
    this.#client = client;
    this.#hosts = hosts;
  }

  async resolve(gitUrl: string, namespace: string, signal?: AbortSignal): Promise<ResolvedForge> {
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
    const page = await this.#client.list<KubeObject & SecretObject>(SECRETS, {
      namespace,
      labelSelector: scmSecretSelector(repo.host),
      ...(signal === undefined ? {} : { signal }),
    });
    const choice = chooseScmSecret(page.items, repo.host, `${repo.owner}/${repo.name}`);
    if (!choice.ok) throw new ForgeResolutionError(shown, namespace, choice.reason);
    return {
      repo,
      provider: FORGE_REGISTRY[forge.kind].create({
        apiUrl: forge.apiUrl,
        gitBaseUrl: forge.gitBaseUrl ?? `https://${repo.host}`,
        credentials: choice.credentials,
      }),
    };
  }
}
