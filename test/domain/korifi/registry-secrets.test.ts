// Registry credentials from a kpack service account's Secrets (docs/decisions.md N41).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { registryAuthsOf, registryHostOf } from '../../../src/domain/korifi/registry-secrets.ts';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('registryAuthsOf', () => {
  it('reads a dockerconfigjson Secret, by username and password or by auth', () => {
    const config = {
      auths: {
        'https://index.docker.io/v1/': { username: 'u1', password: 'p1' },
        'registry.local:5000': { auth: b64('u2:p:2') },
        'empty.example': {},
      },
    };
    const secret = {
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': b64(JSON.stringify(config)) },
    };
    assert.deepEqual(registryAuthsOf(secret), {
      auths: [
        { registry: 'index.docker.io', username: 'u1', password: 'p1' },
        { registry: 'registry.local:5000', username: 'u2', password: 'p:2' },
      ],
    });
  });

  it('reads the legacy dockercfg and kpack basic-auth forms', () => {
    const legacy = {
      type: 'kubernetes.io/dockercfg',
      data: { '.dockercfg': b64(JSON.stringify({ 'r.example': { auth: b64('a:b') } })) },
    };
    assert.deepEqual(registryAuthsOf(legacy).auths, [{ registry: 'r.example', username: 'a', password: 'b' }]);
    const basic = {
      type: 'kubernetes.io/basic-auth',
      metadata: { annotations: { 'kpack.io/docker': 'https://R.example:443' } },
      data: { username: b64('bot'), password: b64('s3cret') },
    };
    assert.deepEqual(registryAuthsOf(basic).auths, [
      { registry: 'r.example:443', username: 'bot', password: 's3cret' },
    ]);
    assert.deepEqual(
      registryAuthsOf({ ...basic, metadata: {} }).auths,
      [],
      'basic-auth without kpack.io/docker is not a registry Secret',
    );
  });

  it('a malformed Secret is skipped, named, and its value never shown', () => {
    const secret = {
      metadata: { name: 'bad' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': b64('{"token": "hunter2"') },
    };
    const result = registryAuthsOf(secret);
    assert.deepEqual(result.auths, []);
    assert.match(result.problem ?? '', /Secret bad: \.dockerconfigjson/);
    assert.doesNotMatch(result.problem ?? '', /hunter2/);
  });

  it('other Secret types hold no registry credentials', () => {
    assert.deepEqual(registryAuthsOf({ type: 'Opaque', data: { x: b64('y') } }), { auths: [] });
  });
});

describe('registryHostOf', () => {
  it('drops scheme and path, lower-cases', () => {
    assert.equal(registryHostOf('https://Index.Docker.io/v1/'), 'index.docker.io');
    assert.equal(registryHostOf('127.0.0.1:5000'), '127.0.0.1:5000');
    assert.equal(registryHostOf('ghcr.io/org'), 'ghcr.io');
  });
});
