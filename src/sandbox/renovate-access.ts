// The `renovate` executor's forge access in the sandbox: repositories of the local forge, which
// needs no token and has no API. Renovate never talks to it (the Tekton stand-in runs the config
// itself), so the platform is `github`, whose pull requests the local forge behaves like, and the
// endpoint names no real host. The token is a fixed placeholder: the nudge's Secret must hold
// something for the run to start, as a real token would be. The git author is the one the `direct`
// executor writes for the local forge (host `localhost`), so both executors' commits compare equal.
import { Credentials } from '../adapters/credentials/credentials.ts';
import type { LocalForge } from '../adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../adapters/forges/local/local-resolver.ts';
import {
  repositoryPath,
  type RenovateForgeAccess,
  type RenovateForgeAccessResolver,
} from '../controllers/dispatch/renovate/forge-access.ts';
import { DEFAULT_RENOVATE_USER, scmTokenGitAuthor } from '../domain/nudge/git-author.ts';

export const LOCAL_FORGE_RENOVATE_ENDPOINT = 'http://local-forge.nudger.invalid/';
/** Not a secret: the local forge accepts any push. */
export const LOCAL_FORGE_PLACEHOLDER_TOKEN = 'local-forge-needs-no-token';

export class LocalForgeRenovateAccess implements RenovateForgeAccessResolver {
  readonly #resolver: LocalForgeResolver;

  constructor(forge: LocalForge) {
    this.#resolver = new LocalForgeResolver(forge);
  }

  async resolve(gitUrl: string, namespace: string): Promise<RenovateForgeAccess> {
    const { repo } = await this.#resolver.resolve(gitUrl, namespace);
    return {
      platform: 'github',
      endpoint: LOCAL_FORGE_RENOVATE_ENDPOINT,
      username: DEFAULT_RENOVATE_USER,
      gitAuthor: scmTokenGitAuthor(undefined, 'localhost'),
      repository: repositoryPath(repo),
      credentials: new Credentials({ token: LOCAL_FORGE_PLACEHOLDER_TOKEN }),
    };
  }
}
