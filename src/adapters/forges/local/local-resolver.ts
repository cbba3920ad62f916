// The sandbox's ForgeResolver: `file://` repositories under one local forge's root, no credentials.
import { fileURLToPath } from 'node:url';
import { resolve, sep } from 'node:path';
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
      const path = gitUrl.startsWith('file:') ? resolve(fileURLToPath(gitUrl)) : '';
      if (repo.host !== '' || !path.startsWith(this.#forge.root + sep)) {
        throw new ForgeResolutionError(gitUrl, namespace, `not a repository of the local forge at ${this.#forge.root}`);
      }
      return Promise.resolve({ provider: this.#forge, repo });
    } catch (error) {
      if (error instanceof RepositoryUrlError) {
        return Promise.reject(new ForgeResolutionError(error.url, namespace, error.reason));
      }
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
