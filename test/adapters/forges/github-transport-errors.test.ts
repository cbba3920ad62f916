// A GitHub API that cannot be reached at all: the ForgeError says what happened and where (it used
// to read "HTTP 500 (500)"), and never carries the token. Real sockets: a port nobody listens on,
// a name that cannot resolve, a TLS server with a certificate nobody trusts, a server that never
// answers.
import assert from 'node:assert/strict';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { after, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { Credentials } from '../../../src/adapters/credentials/credentials.ts';
import { isForgeError, type ForgeError } from '../../../src/adapters/forges/errors.ts';
import { GitHubForge } from '../../../src/adapters/forges/github/index.ts';
import { parseRepositoryUrl } from '../../../src/adapters/forges/repository-url.ts';
import { selfSignedCertificate } from '../../webhooks/tls-fixture.ts';
import { closedPort } from './closed-port.ts';

const TOKEN = 'ghp_transportToken0123456789abcdefABCDEF';
const repo = parseRepositoryUrl('https://github.example/acme/bundle');
const servers: Server[] = [];

after(() => {
  for (const server of servers) server.close();
});

async function failureOf(apiUrl: string, timeoutMs = 10_000): Promise<ForgeError> {
  const forge = new GitHubForge({ apiUrl, credentials: new Credentials({ token: TOKEN }), request: { timeoutMs } });
  try {
    await forge.getPullRequest(repo, 7);
  } catch (error) {
    assert.ok(isForgeError(error), String(error));
    for (const text of [error.message, JSON.stringify(error), inspect(error, { depth: 10 }), error.stack ?? '']) {
      assert.ok(!text.includes(TOKEN), text);
    }
    assert.doesNotMatch(error.message, /HTTP 500|\(500\)/);
    return error;
  }
  assert.fail('the request succeeded');
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('GitHub forge: no answer from the API', () => {
  it('a refused connection names host and port', async () => {
    const port = await closedPort();
    const error = await failureOf(`http://127.0.0.1:${String(port)}/api/v3`);
    assert.equal(error.status, undefined);
    assert.deepEqual(error.transport, { code: 'ECONNREFUSED', host: `127.0.0.1:${String(port)}` });
    assert.match(
      error.message,
      new RegExp(`getPullRequest acme/bundle: connection refused to 127\\.0\\.0\\.1:${String(port)}$`),
    );
  });

  it('a name that does not resolve says DNS', async () => {
    const error = await failureOf('https://github.nudger-test.invalid/api/v3');
    assert.ok(['ENOTFOUND', 'EAI_AGAIN'].includes(error.transport?.code ?? ''), error.message);
    assert.equal(error.transport?.host, 'github.nudger-test.invalid:443');
    assert.match(error.message, /host github\.nudger-test\.invalid could not be resolved \(DNS E/);
  });

  it('an untrusted certificate says TLS', async () => {
    const certificate = await selfSignedCertificate('github-transport-test');
    const port = await listen(
      createHttpsServer({ cert: certificate.cert, key: certificate.key }, (_request, response) => response.end('{}')),
    );
    const error = await failureOf(`https://127.0.0.1:${String(port)}/api/v3`);
    assert.match(error.message, new RegExp(`TLS failure talking to 127\\.0\\.0\\.1:${String(port)} \\(`));
  });

  it('a server that accepts and never answers times out, naming the endpoint', async () => {
    const port = await listen(createNetServer(() => undefined));
    const error = await failureOf(`http://127.0.0.1:${String(port)}/api/v3`, 300);
    assert.deepEqual(error.transport, { code: 'timeout', host: `127.0.0.1:${String(port)}` });
    assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${String(port)} did not answer`));
  });
});
