// The registry transport's auth and redirect rules where the local registry cannot show them: the
// Bearer token flow (distribution's token auth needs a signing token server) and redirects to
// other hosts. A recording fetch answers as a token-protected registry and a blob store would; the
// registry client's read and write paths are tested against the real registry in
// registry-client.test.ts (docs/decisions.md N40).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Credentials } from '../../../src/adapters/credentials/credentials.ts';
import { InsecureRegistryError, RegistryAuthError } from '../../../src/adapters/registry/errors.ts';
import { parseImageReference } from '../../../src/adapters/registry/reference.ts';
import { RegistryTransport } from '../../../src/adapters/registry/transport.ts';

interface Seen {
  readonly url: string;
  readonly authorization: string | undefined;
}

function recordingFetch(answer: (url: URL, authorization: string | undefined) => Response): {
  fetch: typeof fetch;
  seen: Seen[];
} {
  const seen: Seen[] = [];
  const fake = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const headers = new Headers(init?.headers);
    const authorization = headers.get('authorization') ?? undefined;
    seen.push({ url: url.href, authorization });
    return Promise.resolve(answer(url, authorization));
  };
  return { fetch: fake, seen };
}

const SECRET = 'robot-token-0123456789';
const credentials = new Credentials({ username: 'robot', token: SECRET });
const basic = `Basic ${Buffer.from(`robot:${SECRET}`).toString('base64')}`;

describe('RegistryTransport Bearer token flow', () => {
  const ref = parseImageReference('registry.example.com/cf/app:latest');
  const challenge =
    'Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:cf/app:pull"';

  it('fetches a token from the realm with Basic credentials, retries with it, and reuses it', async () => {
    const { fetch, seen } = recordingFetch((url, authorization) => {
      if (url.host === 'auth.example.com') return Response.json({ token: 'registry-jwt' });
      if (authorization === 'Bearer registry-jwt') return new Response('{}', { status: 200 });
      return new Response(null, { status: 401, headers: { 'www-authenticate': challenge } });
    });
    const transport = new RegistryTransport({
      fetch,
      credentials: (host) => (host === ref.registry ? credentials : undefined),
    });
    const request = { method: 'GET', target: '/v2/cf/app/manifests/latest', access: 'pull' } as const;
    assert.equal((await transport.send(ref, request)).status, 200);
    assert.equal((await transport.send(ref, request)).status, 200);
    assert.deepEqual(seen, [
      { url: 'https://registry.example.com/v2/cf/app/manifests/latest', authorization: undefined },
      {
        url: 'https://auth.example.com/token?service=registry.example.com&scope=repository%3Acf%2Fapp%3Apull',
        authorization: basic,
      },
      { url: 'https://registry.example.com/v2/cf/app/manifests/latest', authorization: 'Bearer registry-jwt' },
      { url: 'https://registry.example.com/v2/cf/app/manifests/latest', authorization: 'Bearer registry-jwt' },
    ]);
  });

  it('asks for an anonymous token without credentials', async () => {
    const { fetch, seen } = recordingFetch((url, authorization) => {
      if (url.host === 'auth.example.com') return Response.json({ access_token: 'anon' });
      return authorization === 'Bearer anon'
        ? new Response('{}', { status: 200 })
        : new Response(null, { status: 401, headers: { 'www-authenticate': challenge } });
    });
    const transport = new RegistryTransport({ fetch });
    const response = await transport.send(ref, {
      method: 'GET',
      target: '/v2/cf/app/manifests/latest',
      access: 'pull',
    });
    assert.equal(response.status, 200);
    assert.equal(seen[1]?.authorization, undefined);
  });

  it('a refused token request is a RegistryAuthError naming the image and the realm host, not the secret', async () => {
    const { fetch } = recordingFetch((url) =>
      url.host === 'auth.example.com'
        ? new Response(null, { status: 403 })
        : new Response(null, { status: 401, headers: { 'www-authenticate': challenge } }),
    );
    const transport = new RegistryTransport({ fetch, credentials: () => credentials });
    await assert.rejects(
      transport.send(ref, { method: 'GET', target: '/v2/cf/app/manifests/latest', access: 'pull' }),
      (error: unknown) => {
        assert.ok(error instanceof RegistryAuthError);
        assert.equal(error.reference, 'registry.example.com/cf/app:latest');
        assert.equal(error.host, 'auth.example.com');
        assert.equal(error.status, 403);
        assert.ok(!error.message.includes(SECRET) && !error.message.includes(basic.slice(6)));
        return true;
      },
    );
  });

  it('refuses a realm served over plain HTTP off loopback without sending the credentials', async () => {
    const { fetch, seen } = recordingFetch(
      () =>
        new Response(null, {
          status: 401,
          headers: { 'www-authenticate': 'Bearer realm="http://auth.example.com/token"' },
        }),
    );
    const transport = new RegistryTransport({ fetch, credentials: () => credentials });
    await assert.rejects(
      transport.send(ref, { method: 'GET', target: '/v2/cf/app/manifests/latest', access: 'pull' }),
      InsecureRegistryError,
    );
    assert.equal(seen.length, 1);
  });
});

describe('RegistryTransport redirects', () => {
  const ref = parseImageReference('registry.example.com/cf/app:latest');
  const blob = '/v2/cf/app/blobs/sha256:' + 'c'.repeat(64);

  it('follows a redirect to another host without our Authorization header', async () => {
    const { fetch, seen } = recordingFetch((url, authorization) => {
      if (url.host === 'blobs.example.net') return new Response('blob', { status: 200 });
      if (authorization === undefined) {
        return new Response(null, { status: 401, headers: { 'www-authenticate': 'Basic realm="r"' } });
      }
      return new Response(null, { status: 307, headers: { location: 'https://blobs.example.net/signed?x=1' } });
    });
    const transport = new RegistryTransport({ fetch, credentials: () => credentials });
    const response = await transport.send(ref, { method: 'GET', target: blob, access: 'pull' });
    assert.equal(await response.text(), 'blob');
    assert.deepEqual(
      seen.map((s) => [new URL(s.url).host, s.authorization]),
      [
        ['registry.example.com', undefined],
        ['registry.example.com', basic],
        ['blobs.example.net', undefined],
      ],
    );
  });

  it('refuses a redirect to plain HTTP off loopback', async () => {
    const { fetch, seen } = recordingFetch(
      () => new Response(null, { status: 302, headers: { location: 'http://blobs.example.net/x' } }),
    );
    const transport = new RegistryTransport({ fetch });
    await assert.rejects(transport.send(ref, { method: 'GET', target: blob, access: 'pull' }), (error: unknown) => {
      assert.ok(error instanceof InsecureRegistryError);
      assert.equal(error.host, 'blobs.example.net');
      return true;
    });
    assert.equal(seen.length, 1);
  });
});
