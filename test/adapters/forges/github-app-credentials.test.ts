// The GitHub App path of forge credentials (docs/decisions.md D9, N23): the Pipelines-as-Code
// Secret is read and checked (a malformed value names the Secret and the key, never the value), and
// the manager's resolver takes an installation token of the App for a GitHub repository the App is
// installed on, before the tenant's SCM Secret, as build-service does. The resolver runs against
// the GitHub emulator, so the JWT, the installation lookup and the token request are the real ones.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import {
  GITHUB_APP_ID_KEY,
  GITHUB_PRIVATE_KEY_KEY,
  GitHubAppSecretError,
  gitHubAppKeyOf,
  parseSecretRef,
  readGitHubAppKey,
  type SecretRef,
} from '../../../src/adapters/forges/github/app-secret.ts';
import { GitHubAppTokens } from '../../../src/adapters/forges/github/app-tokens.ts';
import { HostedForgeResolver } from '../../../src/adapters/forges/hosted-resolver.ts';
import { ForgeResolutionError } from '../../../src/adapters/forges/resolver.ts';
import { SCM_CREDENTIALS_LABEL, SCM_HOST_LABEL } from '../../../src/adapters/forges/scm-credentials.ts';
import type { KubeObject } from '../../../src/adapters/kubernetes/types.ts';
import { githubAppGitAuthor } from '../../../src/domain/nudge/git-author.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../../../src/sandbox/forges/github-emulator/emulator.ts';
import { FakeObjectClient, status } from '../../runtime/fakes.ts';

const REF: SecretRef = { namespace: 'build-service', name: 'pipelines-as-code-secret' };
const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PKCS1 = pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const PKCS8 = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const EC_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function pacSecret(data: Record<string, string>, ref: SecretRef = REF): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: ref.namespace, name: ref.name },
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, b64(value)])),
  } as KubeObject;
}

/** Every line of `value` long enough to be recognised, and its base64. */
function fragments(value: string): string[] {
  return [b64(value), ...value.split('\n').filter((line) => line.length >= 16)];
}

function refusal(data: Record<string, string>): GitHubAppSecretError {
  try {
    gitHubAppKeyOf(pacSecret(data), REF);
  } catch (error) {
    assert.ok(error instanceof GitHubAppSecretError, String(error));
    for (const value of Object.values(data)) {
      for (const fragment of fragments(value)) {
        assert.ok(!error.message.includes(fragment), `the message quotes the Secret: ${error.message}`);
        assert.ok(!inspect(error).includes(fragment), 'nor does the inspected error');
      }
    }
    return error;
  }
  assert.fail('accepted');
}

describe('the GitHub App Secret', () => {
  it('reads the App id and an RSA key in PKCS#1 or PKCS#8, with or without escaped newlines', () => {
    for (const pem of [PKCS1, PKCS8, PKCS1.replace(/\n/g, '\\n')]) {
      const key = gitHubAppKeyOf(pacSecret({ [GITHUB_APP_ID_KEY]: ' 12345\n', [GITHUB_PRIVATE_KEY_KEY]: pem }), REF);
      assert.equal(key?.appId, 12345);
      assert.match(key.revealPrivateKey(), /^-----BEGIN (RSA )?PRIVATE KEY-----\n/);
      const printed = [inspect(key), JSON.stringify(key), String(key)].join('\n');
      for (const fragment of fragments(PKCS1)) assert.ok(!printed.includes(fragment), printed);
      assert.match(printed, /12345 from build-service\/pipelines-as-code-secret/);
    }
  });

  it('is no App when the Secret is missing or holds neither key', async () => {
    const client = new FakeObjectClient();
    assert.equal(await readGitHubAppKey(client, REF), undefined);
    client.objects.set(`secrets/${REF.namespace}/${REF.name}`, pacSecret({ 'webhook.secret': 'x' }));
    assert.equal(await readGitHubAppKey(client, REF), undefined);
  });

  it('names the Secret and the key, never the value, for one key alone, a bad id or a bad key', () => {
    const only = refusal({ [GITHUB_PRIVATE_KEY_KEY]: PKCS1 });
    assert.equal(
      only.message,
      `Secret build-service/pipelines-as-code-secret key ${GITHUB_APP_ID_KEY}: is missing or empty beside ${GITHUB_PRIVATE_KEY_KEY}`,
    );
    assert.equal(refusal({ [GITHUB_APP_ID_KEY]: '1' }).key, GITHUB_PRIVATE_KEY_KEY);
    for (const id of ['abc', '0', '-4', '1.5', '99999999999999999999', '12 34']) {
      const error = refusal({ [GITHUB_APP_ID_KEY]: id, [GITHUB_PRIVATE_KEY_KEY]: PKCS1 });
      assert.equal(
        error.message,
        `Secret build-service/pipelines-as-code-secret key ${GITHUB_APP_ID_KEY}: is not a GitHub App id (a positive integer)`,
      );
    }
    const truncated = PKCS1.slice(0, Math.floor(PKCS1.length / 2));
    const corrupted = PKCS1.replace(/[A-Za-z]{8}/, 'AAAAAAAA');
    for (const pem of [
      'not a key',
      truncated,
      corrupted,
      EC_KEY,
      pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ]) {
      const error = refusal({ [GITHUB_APP_ID_KEY]: '12345', [GITHUB_PRIVATE_KEY_KEY]: pem });
      assert.deepEqual(
        [error.secret, error.key, error.reason],
        ['build-service/pipelines-as-code-secret', GITHUB_PRIVATE_KEY_KEY, 'is not a PEM-encoded RSA private key'],
      );
    }
  });

  it('is named by --github-app-secret as <namespace>/<name> or none', () => {
    assert.deepEqual(parseSecretRef('build-service/pipelines-as-code-secret'), REF);
    assert.equal(parseSecretRef('none'), undefined);
    for (const bad of ['pipelines-as-code-secret', 'a/b/c', 'A/b', '/x', 'x/'])
      assert.throws(() => parseSecretRef(bad), TypeError);
  });
});

describe('HostedForgeResolver with a GitHub App', () => {
  const USER_TOKEN = 'ghp_emulatorUserToken0123456789';
  const SCM_TOKEN = 'ghp_tenantScmToken0123456789abcdef';
  let github: GitHubEmulator;
  let host: string;
  let appId: number;

  before(async () => {
    github = await startGitHubEmulator({ token: USER_TOKEN });
    host = new URL(github.gitBaseUrl).host;
    for (const name of ['bundle', 'operand', 'elsewhere'])
      await github.createRepository('acme', name, { 'a.txt': 'a\n' });
    const app = github.apps.registerApp({ slug: 'konflux-test', publicKey: pair.publicKey, botId: 4242 });
    appId = app.id;
    github.apps.install(app.id, 'acme', ['bundle', 'operand']);
  });
  after(async () => {
    await github.close();
    assert.deepEqual(github.contractViolations, []);
  });

  function resolver(secrets: readonly KubeObject[]): { resolver: HostedForgeResolver; client: FakeObjectClient } {
    const client = new FakeObjectClient();
    for (const secret of secrets) {
      client.objects.set(`secrets/${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? ''}`, secret);
    }
    const forges = new Map([[host, { kind: 'github' as const, apiUrl: github.apiUrl, gitBaseUrl: github.gitBaseUrl }]]);
    return {
      client,
      resolver: new HostedForgeResolver(client, forges, { githubApp: { secret: REF, tokens: new GitHubAppTokens() } }),
    };
  }
  const app = (): KubeObject => pacSecret({ [GITHUB_APP_ID_KEY]: String(appId), [GITHUB_PRIVATE_KEY_KEY]: PKCS1 });
  const scm = (): KubeObject =>
    ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        namespace: 'tenant',
        name: 'scm',
        labels: { [SCM_CREDENTIALS_LABEL]: 'scm', [SCM_HOST_LABEL]: '127.0.0.1' },
      },
      data: { password: b64(SCM_TOKEN) },
    }) as KubeObject;

  it('uses the App where it is installed, before the SCM Secret, with a token for that repository only', async () => {
    const { resolver: forges } = resolver([app(), scm()]);
    const resolved = await forges.resolve(`${github.gitBaseUrl}/acme/bundle.git`, 'tenant');
    assert.deepEqual(resolved.githubApp, {
      appId,
      installationId: resolved.githubApp?.installationId,
      appSlug: 'konflux-test',
      botId: 4242,
    });
    assert.equal(
      githubAppGitAuthor(resolved.githubApp.appSlug, resolved.githubApp.botId),
      'konflux-test <4242+konflux-test[bot]@users.noreply.github.com>',
    );
    const credentials = resolved.provider.credentials;
    assert.equal(credentials?.username, 'x-access-token');
    assert.match(credentials.revealToken(), /^ghs_/);
    const pulls = await resolved.provider.findPullRequestByHeadBranch(resolved.repo, 'nothing');
    assert.equal(pulls, undefined, 'the token works on its repository');
    const again = await forges.resolve(`${github.gitBaseUrl}/acme/bundle`, 'tenant');
    assert.equal(again.provider.credentials?.revealToken(), credentials.revealToken(), 'kept, not minted again');
    const operand = await forges.resolve(`${github.gitBaseUrl}/acme/operand`, 'tenant');
    assert.notEqual(operand.provider.credentials?.revealToken(), credentials.revealToken(), 'one token per repository');
    const cross = resolved.provider.getPullRequest(operand.repo, 1);
    await assert.rejects(
      cross,
      (error: Error) => error.message.includes('(404)'),
      'the bundle token does not reach operand',
    );
  });

  it('falls back to the SCM Secret where the App is not installed, and says both when there is none', async () => {
    const { resolver: forges } = resolver([app(), scm()]);
    const resolved = await forges.resolve(`${github.gitBaseUrl}/acme/elsewhere`, 'tenant');
    assert.equal(resolved.githubApp, undefined);
    assert.equal(resolved.provider.credentials?.revealToken(), SCM_TOKEN);
    const { resolver: appOnly } = resolver([app()]);
    await assert.rejects(appOnly.resolve(`${github.gitBaseUrl}/acme/elsewhere`, 'tenant'), (error: unknown) => {
      assert.ok(error instanceof ForgeResolutionError);
      assert.equal(error.kind, 'no-credentials');
      assert.match(
        error.reason,
        /no Secret labelled .* is for acme\/elsewhere, and the GitHub App of Secret build-service\/pipelines-as-code-secret is not installed on it/,
      );
      return true;
    });
  });

  it('reads no App when the Secret is absent, and refuses a malformed one naming the Secret and key', async () => {
    const { resolver: scmOnly } = resolver([scm()]);
    const resolved = await scmOnly.resolve(`${github.gitBaseUrl}/acme/bundle`, 'tenant');
    assert.equal(resolved.provider.credentials?.revealToken(), SCM_TOKEN);
    const broken = pacSecret({ [GITHUB_APP_ID_KEY]: String(appId), [GITHUB_PRIVATE_KEY_KEY]: PKCS1.slice(0, 200) });
    const { resolver: malformed } = resolver([broken, scm()]);
    await assert.rejects(malformed.resolve(`${github.gitBaseUrl}/acme/bundle`, 'tenant'), (error: unknown) => {
      assert.ok(error instanceof ForgeResolutionError);
      assert.match(
        error.message,
        /Secret build-service\/pipelines-as-code-secret key github-private-key: is not a PEM-encoded RSA private key/,
      );
      for (const fragment of fragments(PKCS1.slice(0, 200))) assert.ok(!error.message.includes(fragment));
      return true;
    });
  });

  it('says how to fix a manager that may not read the App Secret, and passes other API failures on', async () => {
    const { resolver: forges, client } = resolver([app(), scm()]);
    client.fault = (verb, _ref, namespace) =>
      verb === 'get' && namespace === REF.namespace ? status(403, 'Forbidden') : undefined;
    await assert.rejects(forges.resolve(`${github.gitBaseUrl}/acme/bundle`, 'tenant'), (error: unknown) => {
      assert.ok(error instanceof ForgeResolutionError);
      assert.match(
        error.reason,
        /the GitHub App Secret build-service\/pipelines-as-code-secret cannot be read \(forbidden\): grant get on it, or run the manager with --github-app-secret=none/,
      );
      return true;
    });
    client.fault = (verb, _ref, namespace) =>
      verb === 'get' && namespace === REF.namespace ? status(500, 'InternalError') : undefined;
    await assert.rejects(forges.resolve(`${github.gitBaseUrl}/acme/bundle`, 'tenant'), { name: 'KubeApiError' });
  });

  it('reports a JWT GitHub refuses (a key that is not the App key) as a 401 ForgeError', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString();
    const { resolver: forges } = resolver([
      pacSecret({ [GITHUB_APP_ID_KEY]: String(appId), [GITHUB_PRIVATE_KEY_KEY]: other }),
    ]);
    await assert.rejects(forges.resolve(`${github.gitBaseUrl}/acme/bundle`, 'tenant'), (error: Error) => {
      assert.equal(error.name, 'ForgeError');
      assert.match(error.message, /findAppInstallation acme\/bundle: A JSON web token could not be decoded \(401\)/);
      for (const fragment of fragments(other)) assert.ok(!error.message.includes(fragment));
      return true;
    });
  });

  it('drops the App JWT from an answer that quotes the Authorization header (a proxy echoing it)', async () => {
    github.failRepository('acme', 'operand', { status: 500, appEndpoints: true });
    try {
      const { resolver: forges } = resolver([app()]);
      await assert.rejects(forges.resolve(`${github.gitBaseUrl}/acme/operand`, 'tenant'), (error: Error) => {
        assert.equal(error.name, 'ForgeError');
        assert.match(
          error.message,
          /findAppInstallation acme\/operand: Upstream refused the request \(Authorization: /,
        );
        // The JWT's base64url header, as every RS256 JWT starts: whole or cut short, it is gone.
        assert.ok(!error.message.includes('eyJ'), error.message);
        assert.ok(!inspect(error).includes('eyJ'), 'nor does the inspected error');
        return true;
      });
    } finally {
      github.failRepository('acme', 'operand', undefined);
    }
  });
});
