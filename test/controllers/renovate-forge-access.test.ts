// The renovate executor's forge access (docs/decisions.md D9, N17): what the ForgeResolver gives
// becomes Renovate's platform, endpoint, user and git author, and the token stays in Credentials.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Credentials } from '../../src/adapters/credentials/credentials.ts';
import { FORGE_REGISTRY, parseForgeHosts, publicForgeHosts } from '../../src/adapters/forges/registry.ts';
import { parseRepositoryUrl } from '../../src/adapters/forges/repository-url.ts';
import { ForgeResolutionError, type ForgeResolver, type ResolvedForge } from '../../src/adapters/forges/resolver.ts';
import type { ForgeProvider } from '../../src/adapters/forges/types.ts';
import { ForgeResolverAccess, renovateEndpoint } from '../../src/controllers/dispatch/renovate/forge-access.ts';
import { TOKEN } from './renovate-executor-fixtures.ts';

function resolverOf(credentials: Credentials | undefined, extra: Record<string, unknown> = {}): ForgeResolver {
  return {
    resolve(gitUrl: string) {
      const repo = parseRepositoryUrl(gitUrl);
      const provider: ForgeProvider =
        credentials === undefined
          ? ({ kind: 'github', credentials: undefined } as unknown as ForgeProvider)
          : FORGE_REGISTRY.github.create({
              apiUrl: 'https://api.github.com',
              gitBaseUrl: 'https://github.com',
              credentials,
            });
      return Promise.resolve({ repo, provider, ...extra } as ResolvedForge);
    },
  };
}

const hosts = new Map([...publicForgeHosts(), ...parseForgeHosts('github', ['ghe.example.com'])]);

describe('ForgeResolverAccess', () => {
  it("an SCM Secret's user is Renovate's user, signing as build-service signs for it", async () => {
    const access = new ForgeResolverAccess(resolverOf(new Credentials({ token: TOKEN, username: 'acme-bot' })), {
      hosts,
    });
    const got = await access.resolve('https://github.com/acme/operator-bundle.git', 'tenant');
    assert.deepEqual(
      { ...got, credentials: got.credentials.revealToken() },
      {
        platform: 'github',
        endpoint: 'https://api.github.com/',
        username: 'acme-bot',
        gitAuthor: 'acme-bot <123456+acme-bot[bot]@users.noreply.github.com>',
        repository: 'acme/operator-bundle',
        credentials: TOKEN,
      },
    );
  });

  it('a Secret without a username acts as red-hat-konflux, not as the transport user x-access-token', async () => {
    const access = new ForgeResolverAccess(resolverOf(new Credentials({ token: TOKEN })), { hosts });
    const got = await access.resolve('https://github.com/acme/operator-bundle', 'tenant');
    assert.equal(got.username, 'red-hat-konflux');
    assert.equal(got.gitAuthor, 'red-hat-konflux <123456+red-hat-konflux[bot]@users.noreply.github.com>');
  });

  it("a GitHub App installation token acts as the App's bot", async () => {
    const app = { appId: 7, installationId: 9, appSlug: 'red-hat-konflux', botId: 126015336 };
    const access = new ForgeResolverAccess(resolverOf(new Credentials({ token: TOKEN }), { githubApp: app }), {
      hosts,
    });
    const got = await access.resolve('https://github.com/acme/operator-bundle', 'tenant');
    assert.equal(got.username, 'red-hat-konflux[bot]');
    assert.equal(got.gitAuthor, 'red-hat-konflux <126015336+red-hat-konflux[bot]@users.noreply.github.com>');
  });

  it('an Enterprise host gets its own API as the endpoint', async () => {
    const access = new ForgeResolverAccess(resolverOf(new Credentials({ token: TOKEN })), { hosts });
    const got = await access.resolve('https://ghe.example.com/acme/operator-bundle', 'tenant');
    assert.equal(got.endpoint, 'https://ghe.example.com/api/v3/');
    assert.equal(renovateEndpoint('https://api.github.com/'), 'https://api.github.com/');
  });

  it('no credentials, or a host it does not serve, is a ForgeResolutionError naming no token', async () => {
    const none = new ForgeResolverAccess(resolverOf(undefined), { hosts });
    await assert.rejects(none.resolve('https://github.com/acme/x', 'tenant'), (error: unknown) => {
      return error instanceof ForgeResolutionError && error.kind === 'no-credentials';
    });
    const elsewhere = new ForgeResolverAccess(resolverOf(new Credentials({ token: TOKEN })), { hosts });
    await assert.rejects(elsewhere.resolve('https://bitbucket.org/acme/x', 'tenant'), (error: unknown) => {
      return error instanceof ForgeResolutionError && error.kind === 'no-forge' && !error.message.includes(TOKEN);
    });
  });
});
