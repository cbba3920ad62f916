// The token a renovate nudge's Secret gets must outlive the wait before its run starts
// (docs/decisions.md N23, N24): through the manager's own resolver and the App token cache, a kept
// installation token with less than RENOVATE_TOKEN_MIN_VALIDITY_MS left is minted afresh for the
// renovate executor, while the direct executor, which pushes at once, keeps using it. GitHub is a
// fake GitHubAppApi on the cache's injectable clock (as in test/adapters/forges/github-app-tokens.test.ts).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { GITHUB_APP_ID_KEY, GITHUB_PRIVATE_KEY_KEY } from '../../src/adapters/forges/github/app-secret.ts';
import {
  GitHubAppTokens,
  TOKEN_REFRESH_MARGIN_MS,
  type GitHubAppApi,
} from '../../src/adapters/forges/github/app-tokens.ts';
import { HostedForgeResolver } from '../../src/adapters/forges/hosted-resolver.ts';
import { publicForgeHosts } from '../../src/adapters/forges/registry.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import {
  ForgeResolverAccess,
  RENOVATE_TOKEN_MIN_VALIDITY_MS,
} from '../../src/controllers/dispatch/renovate/forge-access.ts';
import { FakeObjectClient } from '../runtime/fakes.ts';

const HOUR = 60 * 60 * 1000;
const MINUTE = 60 * 1000;
const REPO = 'https://github.com/acme/operator-bundle';
const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** A GitHub whose App is installed everywhere and whose tokens live an hour from `clock()`. */
function fakeGitHub(clock: () => number): { mints: () => number; factory: () => GitHubAppApi } {
  let minted = 0;
  const api: GitHubAppApi = {
    findInstallation: () => Promise.resolve({ installationId: 77, appSlug: 'konflux-test' }),
    createToken: () => {
      minted += 1;
      return Promise.resolve({
        token: `ghs_token${String(minted)}`,
        expiresAt: new Date(clock() + HOUR).toISOString(),
      });
    },
    botId: () => Promise.resolve(4242),
  };
  return { mints: () => minted, factory: () => api };
}

function setUp() {
  let now = Date.parse('2026-11-26T10:00:00Z');
  const github = fakeGitHub(() => now);
  const client = new FakeObjectClient();
  const ref = { namespace: 'build-service', name: 'pipelines-as-code-secret' };
  client.objects.set(`secrets/${ref.namespace}/${ref.name}`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { ...ref },
    data: { [GITHUB_APP_ID_KEY]: b64('123'), [GITHUB_PRIVATE_KEY_KEY]: b64(PEM) },
  } as KubeObject);
  const hosts = publicForgeHosts();
  const tokens = new GitHubAppTokens({ clock: () => now, api: github.factory });
  const resolver = new HostedForgeResolver(client, hosts, { githubApp: { secret: ref, tokens } });
  return {
    github,
    resolver,
    renovate: new ForgeResolverAccess(resolver, { hosts }),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** The direct executor's call: resolve(url, namespace, signal), no validity asked for. */
async function directToken(resolver: HostedForgeResolver): Promise<string | undefined> {
  return (await resolver.resolve(REPO, 'tenant')).provider.credentials?.revealToken();
}

describe('the renovate executor asks for a token that outlives the wait for its run', () => {
  it('asks for 30 minutes, longer than the cache keeps a token for an immediate push', () => {
    assert.equal(RENOVATE_TOKEN_MIN_VALIDITY_MS, 30 * MINUTE);
    assert.ok(RENOVATE_TOKEN_MIN_VALIDITY_MS > TOKEN_REFRESH_MARGIN_MS);
  });

  it('a kept token with 20 minutes left serves the direct executor and is minted afresh for renovate', async () => {
    const { github, resolver, renovate, advance } = setUp();
    assert.equal(await directToken(resolver), 'ghs_token1');
    advance(40 * MINUTE);
    assert.equal(await directToken(resolver), 'ghs_token1', '20 minutes left is enough for a push that starts now');
    const access = await renovate.resolve(REPO, 'tenant');
    assert.equal(access.credentials.revealToken(), 'ghs_token2', 'a run that starts later gets a fresh token');
    assert.equal(access.username, 'konflux-test[bot]');
    assert.equal(github.mints(), 2);
    // The fresh token is kept, for both.
    assert.equal(await directToken(resolver), 'ghs_token2');
    assert.equal((await renovate.resolve(REPO, 'tenant')).credentials.revealToken(), 'ghs_token2');
    assert.equal(github.mints(), 2);
  });

  it('at the boundary: exactly 30 minutes and a millisecond left is kept, 30 minutes is not', async () => {
    const { github, resolver, renovate, advance } = setUp();
    await directToken(resolver);
    advance(HOUR - RENOVATE_TOKEN_MIN_VALIDITY_MS - 1);
    assert.equal((await renovate.resolve(REPO, 'tenant')).credentials.revealToken(), 'ghs_token1');
    advance(1);
    assert.equal((await renovate.resolve(REPO, 'tenant')).credentials.revealToken(), 'ghs_token2');
    assert.equal(github.mints(), 2);
  });
});
