// The sandbox's ForgeResolver: `file://` repositories under one local forge's root, no credentials.
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { parseRepositoryUrl, RepositoryUrlError } from '../repository-url.ts';
import { ForgeResolutionError, type ForgeResolver, type ResolvedForge } from '../resolver.ts';
import type { LocalForge } from './local-forge.ts';

export class LocalForgeResolver implements ForgeResolver {
  readonly #forge: LocalForge;

  constructor(forge: LocalForge) {
    this.#forge = forge;
  }

  resolve(gitUrl: string, namespace: string): Promise<ResolvedForge> {
    try {
      const repo = parseRepositoryUrl(gitUrl);
      if (!gitUrl.startsWith('file:')) {
        throw new ForgeResolutionError(
          gitUrl,
          namespace,
          `not a repository of the local forge at ${this.#forge.root}`,
          'no-forge',
        );
      }
      const url = new URL(gitUrl);
      // Exactly <root>/<owner>/<name>.git on this machine: the forge serves by owner and name, so
      // a deeper path would silently name a different repository.
      const path = url.protocol === 'file:' && url.host === '' ? resolve(fileURLToPath(url)) : '';
      if (repo.host !== '' || path !== join(this.#forge.root, repo.owner, `${repo.name}.git`)) {
        throw new ForgeResolutionError(
          gitUrl,
          namespace,
          `not a repository of the local forge at ${this.#forge.root}`,
          'no-forge',
        );
      }
      return Promise.resolve({ provider: this.#forge, repo });
    } catch (error) {
      if (error instanceof RepositoryUrlError) {
        return Promise.reject(new ForgeResolutionError(error.url, namespace, error.reason, 'invalid-url'));
      }
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
