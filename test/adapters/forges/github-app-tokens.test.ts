// The GitHub App token cache (docs/decisions.md D9): one installation token per repository, kept in
// memory until TOKEN_REFRESH_MARGIN_MS before it expires, one lookup and one mint for concurrent
// requests, a repository the App is not installed on asked about again after a while, failures not
// kept. GitHub is a fake GitHubAppApi here; the real requests are tested against the emulator.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import { GitHubAppKey } from '../../../src/adapters/forges/github/app-secret.ts';
import {
  GitHubAppTokens,
  NOT_INSTALLED_RECHECK_MS,
  TOKEN_REFRESH_MARGIN_MS,
  type GitHubAppApi,
} from '../../../src/adapters/forges/github/app-tokens.ts';
import { parseRepositoryUrl } from '../../../src/adapters/forges/repository-url.ts';

const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();
const KEY = new GitHubAppKey(123, PEM, 'build-service/pipelines-as-code-secret');
const API = 'https://api.github.com';
const HOUR = 60 * 60 * 1000;
const repo = (name: string) => parseRepositoryUrl(`https://github.com/acme/${name}`);

/** A GitHub that counts its calls; the App is installed on `installed`, tokens live an hour. */
function fakeGitHub(clock: () => number, installed: readonly string[] = ['bundle', 'operand']) {
  const calls: string[] = [];
  let minted = 0;
  let failNext = false;
  const api: GitHubAppApi = {
    async findInstallation(r) {
      calls.push(`find ${r.name}`);
      await Promise.resolve();
      return installed.includes(r.name.toLowerCase()) ? { installationId: 77, appSlug: 'konflux-test' } : undefined;
    },
    async createToken(installationId, r) {
      calls.push(`mint ${String(installationId)} ${r.name}`);
      await Promise.resolve();
      if (failNext) {
        failNext = false;
        throw new Error('GitHub is down');
      }
      minted += 1;
      return { token: `ghs_token${String(minted)}_${r.name}`, expiresAt: new Date(clock() + HOUR).toISOString() };
    },
    async botId(slug) {
      calls.push(`bot ${slug}`);
      await Promise.resolve();
      return 4242;
    },
  };
  return {
    calls,
    factory: (apiUrl: string, key: GitHubAppKey) => {
      calls.push(`api ${apiUrl} ${String(key.appId)}`);
      return api;
    },
    failNextMint: () => {
      failNext = true;
    },
  };
}

describe('GitHubAppTokens', () => {
  it('mints once per repository and keeps the token until the refresh margin before expiry', async () => {
    let now = Date.parse('2026-11-26T10:00:00Z');
    const github = fakeGitHub(() => now);
    const tokens = new GitHubAppTokens({ clock: () => now, api: github.factory });
    const first = await tokens.tokenFor(API, KEY, repo('bundle'));
    assert.equal(first?.credentials.revealToken(), 'ghs_token1_bundle');
    assert.equal(first.credentials.username, 'x-access-token', 'git pushes with the installation-token user');
    assert.deepEqual(first.identity, { appId: 123, installationId: 77, appSlug: 'konflux-test', botId: 4242 });
    now += HOUR - TOKEN_REFRESH_MARGIN_MS - 1;
    assert.equal((await tokens.tokenFor(API, KEY, repo('Bundle')))?.credentials.revealToken(), 'ghs_token1_bundle');
    assert.deepEqual(github.calls, [`api ${API} 123`, 'find bundle', 'mint 77 bundle', 'bot konflux-test']);
    now += 1;
    const renewed = await tokens.tokenFor(API, KEY, repo('bundle'));
    assert.equal(renewed?.credentials.revealToken(), 'ghs_token2_bundle', 'renewed at the margin');
    assert.deepEqual(github.calls.slice(4), [`api ${API} 123`, 'find bundle', 'mint 77 bundle'], 'the bot id is kept');
  });

  it('mints afresh for a caller that needs the token longer than the kept one has left', async () => {
    let now = Date.parse('2026-11-26T10:00:00Z');
    const github = fakeGitHub(() => now);
    const tokens = new GitHubAppTokens({ clock: () => now, api: github.factory });
    await tokens.tokenFor(API, KEY, repo('bundle'));
    now += 40 * 60 * 1000;
    const direct = await tokens.tokenFor(API, KEY, repo('bundle'));
    assert.equal(direct?.credentials.revealToken(), 'ghs_token1_bundle', '20 minutes left is enough by default');
    const later = await tokens.tokenFor(API, KEY, repo('bundle'), { minValidityMs: 30 * 60 * 1000 });
    assert.equal(
      later?.credentials.revealToken(),
      'ghs_token2_bundle',
      'a PipelineRun that starts later gets a fresh one',
    );
    const kept = await tokens.tokenFor(API, KEY, repo('bundle'));
    assert.equal(kept?.credentials.revealToken(), 'ghs_token2_bundle', 'and the fresh one is kept');
  });

  it('scopes tokens to one repository, one App and one API', async () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    const github = fakeGitHub(() => now);
    const tokens = new GitHubAppTokens({ clock: () => now, api: github.factory });
    const bundle = await tokens.tokenFor(API, KEY, repo('bundle'));
    const operand = await tokens.tokenFor(API, KEY, repo('operand'));
    const otherApp = await tokens.tokenFor(API, new GitHubAppKey(124, PEM, 'x/y'), repo('bundle'));
    const otherApi = await tokens.tokenFor('https://ghe.example.com/api/v3', KEY, repo('bundle'));
    const all = [bundle, operand, otherApp, otherApi].map((token) => token?.credentials.revealToken());
    assert.equal(new Set(all).size, 4, all.join());
    assert.equal(github.calls.filter((call) => call.startsWith('mint')).length, 4);
    assert.equal(tokens.size, 4);
  });

  it('has concurrent requests for one repository share one lookup and one mint', async () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    const github = fakeGitHub(() => now);
    const tokens = new GitHubAppTokens({ clock: () => now, api: github.factory });
    const results = await Promise.all(Array.from({ length: 8 }, () => tokens.tokenFor(API, KEY, repo('bundle'))));
    assert.equal(new Set(results.map((result) => result?.credentials.revealToken())).size, 1);
    assert.deepEqual(
      github.calls.filter((call) => !call.startsWith('api')),
      ['find bundle', 'mint 77 bundle', 'bot konflux-test'],
    );
  });

  it('answers undefined where the App is not installed, and asks again after the recheck interval', async () => {
    let now = Date.parse('2026-11-26T10:00:00Z');
    const github = fakeGitHub(() => now);
    const tokens = new GitHubAppTokens({ clock: () => now, api: github.factory });
    assert.equal(await tokens.tokenFor(API, KEY, repo('elsewhere')), undefined);
    now += NOT_INSTALLED_RECHECK_MS - 1;
    assert.equal(await tokens.tokenFor(API, KEY, repo('elsewhere')), undefined);
    assert.equal(github.calls.filter((call) => call === 'find elsewhere').length, 1);
    now += 1;
    assert.equal(await tokens.tokenFor(API, KEY, repo('elsewhere')), undefined);
    assert.equal(github.calls.filter((call) => call === 'find elsewhere').length, 2);
  });

  it('keeps no failure: the next request mints again', async () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    const github = fakeGitHub(() => now);
    const tokens = new GitHubAppTokens({ clock: () => now, api: github.factory });
    github.failNextMint();
    await assert.rejects(tokens.tokenFor(API, KEY, repo('bundle')), /GitHub is down/);
    assert.equal((await tokens.tokenFor(API, KEY, repo('bundle')))?.credentials.revealToken(), 'ghs_token1_bundle');
  });

  it('prints neither the token nor the key', async () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    const tokens = new GitHubAppTokens({ clock: () => now, api: fakeGitHub(() => now).factory });
    const token = await tokens.tokenFor(API, KEY, repo('bundle'));
    const shown = [
      inspect(token, { depth: 5 }),
      JSON.stringify(token),
      inspect(KEY),
      JSON.stringify(KEY),
      String(KEY),
    ].join('\n');
    assert.ok(!shown.includes('ghs_token1_bundle'), shown);
    for (const line of PEM.split('\n').filter((l) => l.length > 40)) assert.ok(!shown.includes(line), shown);
    assert.match(shown, /123/);
  });
});
