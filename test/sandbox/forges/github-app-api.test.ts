// The emulator's GitHub App endpoints against GitHub's contract: the App's JWT (RS256 over iss, iat,
// exp) is verified with the registered public key, and the installation token it mints reaches its
// own repositories only (REST, GraphQL, git), until it expires.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  INSTALLATION_TOKEN_LIFETIME_MS,
  type EmulatedApp,
} from '../../../src/sandbox/forges/github-emulator/app-api.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../../../src/sandbox/forges/github-emulator/emulator.ts';

const USER_TOKEN = 'ghp_emulatorAppTest0123456789';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

let emulator: GitHubEmulator;
let app: EmulatedApp;
let installationId: number;
let now = Date.parse('2026-11-26T10:00:00Z');

/** A JWT as GitHub documents it: RS256, `iss` the App id, `iat` and `exp` in seconds. */
function jwt(claims: { iss?: unknown; iat?: number; exp?: number }, key: KeyObject = privateKey): string {
  const nowS = Math.floor(now / 1000);
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url');
  const payload = Buffer.from(
    JSON.stringify({ iss: claims.iss ?? app.id, iat: claims.iat ?? nowS - 30, exp: claims.exp ?? nowS + 540 }),
  ).toString('base64url');
  const signature = sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), key).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

async function api(
  method: string,
  path: string,
  authorization: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${emulator.apiUrl}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

async function gitStatus(repository: string, password: string): Promise<number> {
  const basic = Buffer.from(`x-access-token:${password}`).toString('base64');
  const response = await fetch(`${emulator.gitBaseUrl}/acme/${repository}.git/info/refs?service=git-upload-pack`, {
    headers: { authorization: `Basic ${basic}` },
  });
  await response.body?.cancel();
  return response.status;
}

async function graphqlReady(token: string, pullNodeId: string): Promise<Record<string, unknown>> {
  const response = await fetch(emulator.graphqlUrl, {
    method: 'POST',
    headers: { authorization: `bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query:
        'mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }',
      variables: { id: pullNodeId },
    }),
  });
  assert.equal(response.status, 200);
  return (await response.json()) as Record<string, unknown>;
}

/** A draft PR on `repository` from a branch one commit ahead of main, opened with the user token. */
async function draftPullRequest(repository: string): Promise<string> {
  const gitDir = join(emulator.projectRoot, 'acme', `${repository}.git`);
  const run = (...args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' }).trim();
  const commit = run(
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@example.com',
    'commit-tree',
    'main^{tree}',
    '-p',
    'main',
    '-m',
    'x',
  );
  run('update-ref', 'refs/heads/topic', commit);
  const created = await api('POST', `/repos/acme/${repository}/pulls`, `token ${USER_TOKEN}`, {
    title: 't',
    head: 'topic',
    base: 'main',
    draft: true,
  });
  assert.equal(created.status, 201);
  return created.json.node_id as string;
}

async function mint(repositories?: string[]): Promise<{ status: number; json: Record<string, unknown> }> {
  return api(
    'POST',
    `/app/installations/${String(installationId)}/access_tokens`,
    `Bearer ${jwt({})}`,
    repositories === undefined ? undefined : { repositories },
  );
}

describe('GitHub emulator: App installations', () => {
  before(async () => {
    emulator = await startGitHubEmulator({ token: USER_TOKEN, clock: () => now });
    for (const name of ['bundle', 'sibling', 'elsewhere'])
      await emulator.createRepository('acme', name, { 'a.txt': 'a\n' });
    app = emulator.apps.registerApp({ slug: 'konflux-test', publicKey, botId: 4242 });
    installationId = emulator.apps.install(app.id, 'acme', ['bundle', 'sibling']);
  });
  after(async () => {
    await emulator.close();
    assert.deepEqual(emulator.contractViolations, []);
  });

  it('finds the installation of a repository for the App JWT, 404 where it is not installed', async () => {
    const found = await api('GET', '/repos/acme/bundle/installation', `Bearer ${jwt({})}`);
    assert.equal(found.status, 200);
    assert.deepEqual([found.json.id, found.json.app_id, found.json.app_slug], [installationId, app.id, 'konflux-test']);
    assert.equal((await api('GET', '/repos/acme/elsewhere/installation', `Bearer ${jwt({})}`)).status, 404);
    assert.equal((await api('GET', '/repos/acme/missing/installation', `Bearer ${jwt({})}`)).status, 404);
  });

  it('refuses a JWT that is not the App key, expired, too long-lived, from the future, or of an unknown App', async () => {
    const refused = async (token: string): Promise<string> => {
      const answer = await api('GET', '/repos/acme/bundle/installation', `Bearer ${token}`);
      assert.equal(answer.status, 401);
      return answer.json.message as string;
    };
    const nowS = Math.floor(now / 1000);
    assert.equal(await refused(jwt({}, stranger)), 'A JSON web token could not be decoded');
    assert.equal(await refused(jwt({ iss: 999_999 })), 'A JSON web token could not be decoded');
    assert.match(await refused(jwt({ exp: nowS - 1 })), /'Expiration time' claim \('exp'\) must be a numeric value/);
    assert.match(await refused(jwt({ exp: nowS + 601 })), /'Expiration time' claim \('exp'\) is too far in the future/);
    assert.match(await refused(jwt({ iat: nowS + 60 })), /'Issued at' claim/);
    assert.equal(await refused('not.a.jwt'), 'A JSON web token could not be decoded');
    assert.equal(await refused(USER_TOKEN), 'A JSON web token could not be decoded', 'App endpoints take only the JWT');
    const onRepo = await api('GET', '/repos/acme/bundle/pulls', `Bearer ${jwt({})}`);
    assert.equal(onRepo.status, 403, 'the JWT reaches nothing but the App endpoints');
  });

  it('mints a token for the repositories asked for, and refuses one outside the installation', async () => {
    const minted = await mint(['bundle']);
    assert.equal(minted.status, 201);
    assert.match(minted.json.token as string, /^ghs_/);
    assert.equal(
      Date.parse(minted.json.expires_at as string),
      Math.floor((now + INSTALLATION_TOKEN_LIFETIME_MS) / 1000) * 1000,
    );
    assert.deepEqual(
      (minted.json.repositories as { full_name: string }[]).map((repo) => repo.full_name),
      ['acme/bundle'],
    );
    const outside = await mint(['elsewhere']);
    assert.equal(outside.status, 422);
    const otherApp = emulator.apps.registerApp({
      slug: 'other',
      publicKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey,
    });
    const foreign = await api(
      'POST',
      `/app/installations/${String(installationId)}/access_tokens`,
      `Bearer ${jwt({ iss: otherApp.id })}`,
    );
    assert.equal(foreign.status, 401, 'signed with another App key');
    const installationToken = minted.json.token as string;
    const withToken = await api(
      'POST',
      `/app/installations/${String(installationId)}/access_tokens`,
      `token ${installationToken}`,
    );
    assert.equal(withToken.status, 401, 'an installation token mints nothing');
  });

  it('accepts the installation token on its repository only: REST, GraphQL and git, until it expires', async () => {
    const bundlePr = await draftPullRequest('bundle');
    const siblingPr = await draftPullRequest('sibling');
    const token = (await mint(['bundle'])).json.token as string;

    assert.equal((await api('GET', '/repos/acme/bundle/pulls', `token ${token}`)).status, 200);
    assert.equal((await api('GET', '/repos/acme/sibling/pulls', `token ${token}`)).status, 404);
    assert.equal(await gitStatus('bundle', token), 200);
    assert.equal(await gitStatus('sibling', token), 401);
    const ready = await graphqlReady(token, bundlePr);
    assert.deepEqual(ready.data, { markPullRequestReadyForReview: { pullRequest: { isDraft: false } } });
    const hidden = (await graphqlReady(token, siblingPr)) as { errors?: { type: string }[] };
    assert.equal(hidden.errors?.[0]?.type, 'NOT_FOUND', 'a node of another repository is not found');
    assert.equal(emulator.pullRequests('acme', 'sibling')[0]?.draft, true);

    const bot = await api('GET', `/users/${encodeURIComponent('konflux-test[bot]')}`, `token ${token}`);
    assert.deepEqual([bot.status, bot.json.id, bot.json.type], [200, 4242, 'Bot']);

    now += INSTALLATION_TOKEN_LIFETIME_MS;
    const expired = await api('GET', '/repos/acme/bundle/pulls', `token ${token}`);
    assert.deepEqual([expired.status, expired.json.message], [401, 'Bad credentials']);
    assert.equal(await gitStatus('bundle', token), 401);
  });
});
