// The ChangeGroup's ForgeAvailable condition for every way the forge's credentials can fail, with
// the manager's own resolver (HostedForgeResolver over the namespace's SCM Secrets) and the GitHub
// provider against the GitHub emulator: the condition names the repository's host and the reason,
// and the token is in no status write, Event or log line the Controller writes. The unreachable
// forge is tested in changegroup-reconciler.test.ts.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { HostedForgeResolver } from '../../src/adapters/forges/hosted-resolver.ts';
import type { HostedForge } from '../../src/adapters/forges/registry.ts';
import { ForgeResolutionError } from '../../src/adapters/forges/resolver.ts';
import {
  SCM_CREDENTIALS_LABEL,
  SCM_HOST_LABEL,
  SCM_REPOSITORY_ANNOTATION,
} from '../../src/adapters/forges/scm-credentials.ts';
import { GitCommandError } from '../../src/adapters/git/errors.ts';
import { SECRETS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { forgeFailureOf, forgeHostOf } from '../../src/controllers/changegroup/forge-availability.ts';
import { FORGE_AVAILABLE_REASONS } from '../../src/domain/changegroup/model.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../../src/sandbox/forges/github-emulator/emulator.ts';
import { removeTempDirs } from '../adapters/git/helpers.ts';
import { NS, NUDGED_FILES, setup, type SetupOptions } from './changegroup-env.ts';

/** A token as a tenant's SCM Secret holds one: recognisable wherever it would leak. */
const TOKEN = 'ghp_LEAKCANARYnudgerFake0123456789abcdEF';
/** What the GitHub emulator accepts instead (the Secret's token is wrong or revoked). */
const ACCEPTED = 'ghp_emulatorAccepts0123456789abcdefABCDEF';
const HOST = 'git.example.com';
const NUDGED_URL = `https://${HOST}/acme/bundle-x`;

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** The forms the token could leak in: as is, and base64 (a Secret's data, a Basic header). */
const LEAKS = [TOKEN, b64(TOKEN), b64(`x-access-token:${TOKEN}`)];

/** A Konflux SCM Secret for HOST holding TOKEN, optionally only for `repositories`. */
function scmSecret(name: string, repositories?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: NS,
      labels: { [SCM_CREDENTIALS_LABEL]: 'scm', [SCM_HOST_LABEL]: HOST },
      ...(repositories === undefined ? {} : { annotations: { [SCM_REPOSITORY_ANNOTATION]: repositories } }),
    },
    type: 'kubernetes.io/basic-auth',
    data: { username: b64('x-access-token'), password: b64(TOKEN) },
  } as KubeObject;
}

/** The manager's resolver, serving HOST with `forge` and reading Secrets from the test's client. */
function hostedForges(forge: HostedForge): SetupOptions['forges'] {
  return (_local, client) => new HostedForgeResolver(client, new Map([[HOST, forge]]));
}

/**
 * One reconcile of a ChangeGroup with a held nudge, run by the Controller; returns its
 * ForgeAvailable condition after asserting that no form of the token reached the status writes,
 * the Events or the Controller's log lines (which must report the failure).
 */
async function forgeAvailabilityAfterFailure(
  prefix: string,
  options: SetupOptions & { secrets?: readonly KubeObject[] },
): Promise<{ status: string; reason: string; message: string }> {
  const env = await setup(prefix, { nudgedUrl: NUDGED_URL, ...options });
  for (const secret of options.secrets ?? []) env.client.put(SECRETS, secret);
  env.nudge('operand-a', '1', 1);
  const logs = await env.reconcileLogged(2);
  assert.ok(
    logs.some((line) => line.includes('reconcile failed; retrying with backoff')),
    `the Controller reports the failure: ${logs.join('\n')}`,
  );
  const written = JSON.stringify(env.client.writes());
  const events = JSON.stringify(env.events);
  for (const leak of LEAKS) {
    assert.ok(!written.includes(leak), `no status write holds ${leak}: ${written}`);
    assert.ok(!events.includes(leak), `no Event holds ${leak}: ${events}`);
    assert.ok(!logs.join('\n').includes(leak), `no log line holds ${leak}: ${logs.join('\n')}`);
  }
  const condition = env.status().conditions?.find((c) => c.type === 'ForgeAvailable');
  assert.ok(condition !== undefined, 'ForgeAvailable is set');
  const { status, reason, message } = condition;
  return { status, reason, message };
}

/** An HTTP server answering every request `status` with `message`; closed after the test file. */
async function answeringServer(status: number, message: (authorization: string) => string): Promise<string> {
  const server = createServer((request, response) => {
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ message: message(request.headers.authorization ?? ''), status: String(status) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/api/v3`;
}

describe('ForgeAvailable when the credentials fail', () => {
  const emulators: GitHubEmulator[] = [];
  after(async () => {
    for (const emulator of emulators) await emulator.close();
    removeTempDirs();
  });
  const emulator = async (token: string): Promise<GitHubEmulator> => {
    const started = await startGitHubEmulator({ token });
    emulators.push(started);
    await started.createRepository('acme', 'bundle-x', NUDGED_FILES);
    return started;
  };

  it('ForgeNotConfigured: names the host and the hosts the manager serves', async () => {
    const condition = await forgeAvailabilityAfterFailure('forge-not-configured', {
      nudgedUrl: 'https://git.unknown.example/acme/bundle-x',
      forges: hostedForges({ kind: 'github', apiUrl: 'https://git.example.com/api/v3' }),
      secrets: [scmSecret('bundle-x-token')],
    });
    assert.deepEqual(condition, {
      status: 'False',
      reason: FORGE_AVAILABLE_REASONS.notConfigured,
      message: `git.unknown.example: namespace ${NS}: no forge is configured for host git.unknown.example (configured: ${HOST})`,
    });
  });

  it('ForgeNotConfigured: a token pasted into the Component URL is refused, its host named, the token not', async () => {
    const condition = await forgeAvailabilityAfterFailure('forge-url-credentials', {
      nudgedUrl: `https://x-access-token:${TOKEN}@${HOST}/acme/bundle-x`,
      forges: hostedForges({ kind: 'github', apiUrl: 'https://git.example.com/api/v3' }),
    });
    assert.deepEqual(condition, {
      status: 'False',
      reason: FORGE_AVAILABLE_REASONS.notConfigured,
      message: `${HOST}: namespace ${NS}: must not embed credentials; use an scm credentials Secret`,
    });
  });

  it('CredentialsMissing: names the Secret selector and the repository, not the token of the Secret for another', async () => {
    const condition = await forgeAvailabilityAfterFailure('forge-credentials-missing', {
      forges: hostedForges({ kind: 'github', apiUrl: 'https://git.example.com/api/v3' }),
      secrets: [scmSecret('other-repository-token', 'acme/other')],
    });
    assert.deepEqual(condition, {
      status: 'False',
      reason: FORGE_AVAILABLE_REASONS.credentialsMissing,
      message: `${HOST}: namespace ${NS}: no Secret labelled ${SCM_CREDENTIALS_LABEL}=scm,${SCM_HOST_LABEL}=${HOST} is for acme/bundle-x`,
    });
  });

  it('CredentialsRejected (401): the forge refuses the Secret token', async () => {
    const github = await emulator(ACCEPTED);
    const condition = await forgeAvailabilityAfterFailure('forge-credentials-401', {
      forges: hostedForges({ kind: 'github', apiUrl: github.apiUrl, gitBaseUrl: github.gitBaseUrl }),
      secrets: [scmSecret('bundle-x-token')],
    });
    assert.deepEqual(condition, {
      status: 'False',
      reason: FORGE_AVAILABLE_REASONS.credentialsRejected,
      message: `${HOST}: findPullRequestByHeadBranch acme/bundle-x: Bad credentials`,
    });
  });

  it('CredentialsRejected (403): the token may not use the repository, and an echo of it is redacted', async () => {
    // A gateway that echoes the request's Authorization header in its refusal.
    const apiUrl = await answeringServer(403, (authorization) => `Resource not accessible (${authorization})`);
    const condition = await forgeAvailabilityAfterFailure('forge-credentials-403', {
      forges: hostedForges({ kind: 'github', apiUrl }),
      secrets: [scmSecret('bundle-x-token')],
    });
    assert.deepEqual(condition, {
      status: 'False',
      reason: FORGE_AVAILABLE_REASONS.credentialsRejected,
      message: `${HOST}: findPullRequestByHeadBranch acme/bundle-x: Resource not accessible (token [redacted])`,
    });
  });

  it('CredentialsRejected (git): the API takes the token, git over HTTPS refuses it', async () => {
    const api = await emulator(TOKEN);
    const git = await emulator(ACCEPTED);
    const condition = await forgeAvailabilityAfterFailure('forge-credentials-git', {
      forges: hostedForges({ kind: 'github', apiUrl: api.apiUrl, gitBaseUrl: git.gitBaseUrl }),
      secrets: [scmSecret('bundle-x-token')],
    });
    // git asked for other credentials, as it does when the server refuses those it sent.
    assert.deepEqual(condition, {
      status: 'False',
      reason: FORGE_AVAILABLE_REASONS.credentialsRejected,
      message: `${HOST}: git fetch: could not read Username for '${git.gitBaseUrl}': terminal prompts disabled`,
    });
    assert.ok(
      git.requests.some((request) => request.operationId === 'git' && request.status === 401),
      'git was refused',
    );
  });
});

describe('forgeHostOf', () => {
  it('names the host of a URL nudger refuses to use, never its user info', () => {
    assert.equal(forgeHostOf(`https://x-access-token:${TOKEN}@${HOST}/acme/bundle-x`), HOST);
    assert.equal(forgeHostOf(`https://${HOST}/acme`), HOST);
    assert.equal(forgeHostOf(NUDGED_URL), HOST);
    assert.equal(forgeHostOf('file:///srv/forge/acme/bundle-x.git'), 'local forge');
    assert.equal(forgeHostOf('not a url'), 'unknown host');
    assert.equal(forgeHostOf(undefined), 'unknown host');
  });
});

describe('forgeFailureOf', () => {
  const reasonOf = (error: unknown): string | undefined => {
    const failure = forgeFailureOf(error, HOST);
    return failure?.ok === false ? failure.reason : undefined;
  };

  it('reads the kind of a resolution failure', () => {
    const failure = (kind: 'no-credentials' | 'no-forge') =>
      reasonOf(new ForgeResolutionError(NUDGED_URL, NS, 'why', kind));
    assert.equal(failure('no-credentials'), FORGE_AVAILABLE_REASONS.credentialsMissing);
    assert.equal(failure('no-forge'), FORGE_AVAILABLE_REASONS.notConfigured);
  });

  it('tells rejected credentials from an unreachable server by what git printed', () => {
    const gitFailure = (details: string): GitCommandError =>
      new GitCommandError('fetch', NUDGED_URL, details.split('\n').at(-1) ?? '', details);
    const rejected = [
      "remote: Invalid username or token. Password authentication is not supported for Git operations.\nfatal: Authentication failed for 'https://git.example.com/acme/bundle-x.git/'",
      "fatal: could not read Username for 'https://git.example.com': terminal prompts disabled",
      "remote: Invalid username or password.\nfatal: Authentication failed for 'https://git.example.com/acme/bundle-x.git/'",
      "fatal: unable to access 'https://git.example.com/acme/bundle-x.git/': The requested URL returned error: 403",
      "fatal: unable to access 'https://git.example.com/acme/bundle-x.git/': The requested URL returned error: 401",
    ];
    const unreachable = [
      "fatal: unable to access 'https://git.example.com/acme/bundle-x.git/': Could not resolve host: git.example.com",
      "fatal: unable to access 'https://git.example.com/acme/bundle-x.git/': Failed to connect to git.example.com port 443 after 2 ms: Connection refused",
      "fatal: unable to access 'https://git.example.com/acme/bundle-x.git/': SSL certificate problem: unable to get local issuer certificate",
    ];
    for (const details of rejected)
      assert.equal(reasonOf(gitFailure(details)), FORGE_AVAILABLE_REASONS.credentialsRejected, details);
    for (const details of unreachable)
      assert.equal(reasonOf(gitFailure(details)), FORGE_AVAILABLE_REASONS.unreachable, details);
    assert.deepEqual(forgeFailureOf(gitFailure("fatal: couldn't find remote ref refs/heads/main"), HOST), {
      ok: false,
      host: HOST,
      reason: FORGE_AVAILABLE_REASONS.failed,
      message: "git fetch: fatal: couldn't find remote ref refs/heads/main",
    });
  });
});
