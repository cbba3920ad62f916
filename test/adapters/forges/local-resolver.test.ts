// The sandbox's ForgeResolver: file:// repositories of one LocalForge, nothing else.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { LocalForge } from '../../../src/adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../../../src/adapters/forges/local/local-resolver.ts';
import { ForgeResolutionError } from '../../../src/adapters/forges/resolver.ts';
import { removeTempDirs, tempDir } from '../git/helpers.ts';

function setup(prefix: string) {
  const dir = tempDir(prefix);
  const forge = new LocalForge({ root: join(dir, 'forge') });
  return { dir, forge, resolver: new LocalForgeResolver(forge) };
}

function isResolutionError(namespace: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ForgeResolutionError, String(error));
    assert.equal(error.namespace, namespace);
    return true;
  };
}

describe('LocalForgeResolver', () => {
  after(removeTempDirs);

  it('resolves a repository of the forge to the forge itself', async () => {
    const { forge, resolver } = setup('resolver-ok');
    const repo = await forge.createRepository('acme', 'bundle', { 'a.yaml': 'a\n' });
    const resolved = await resolver.resolve(repo.url, 'tenant');
    assert.equal(resolved.provider, forge);
    assert.deepEqual(resolved.repo, repo);
    assert.equal(resolved.provider.cloneUrl(resolved.repo), repo.url);
  });

  it('accepts a URL under the root before the repository exists (the forge reports 404 later)', async () => {
    const { forge, resolver } = setup('resolver-missing');
    const url = forge.repositoryUrl('acme', 'later');
    const resolved = await resolver.resolve(url, 'tenant');
    assert.deepEqual(
      { owner: resolved.repo.owner, name: resolved.repo.name, host: resolved.repo.host },
      {
        owner: 'acme',
        name: 'later',
        host: '',
      },
    );
  });

  it('rejects file:// URLs outside the root, including a sibling sharing its prefix', async () => {
    const { dir, resolver } = setup('resolver-outside');
    const outside = [
      pathToFileURL(join(dir, 'elsewhere', 'acme', 'bundle.git')).href,
      pathToFileURL(join(`${dir}/forge2`, 'acme', 'bundle.git')).href,
      pathToFileURL(join(dir, 'forge', '..', 'acme', 'bundle.git')).href,
      'file:///etc/acme/passwd.git',
    ];
    for (const url of outside) {
      await assert.rejects(resolver.resolve(url, 'tenant'), isResolutionError('tenant'), url);
    }
  });

  it('rejects hosted URLs, even ones whose path looks like the root', async () => {
    const { forge, resolver } = setup('resolver-https');
    for (const url of [
      'https://github.com/acme/bundle',
      'git@github.com:acme/bundle.git',
      `https://example.com${forge.root}/acme/bundle.git`,
    ]) {
      await assert.rejects(resolver.resolve(url, 'tenant'), isResolutionError('tenant'), url);
    }
  });

  it('turns unparsable URLs into a ForgeResolutionError', async () => {
    const { resolver } = setup('resolver-garbage');
    await assert.rejects(resolver.resolve('not a url', 'ns-1'), isResolutionError('ns-1'));
    await assert.rejects(resolver.resolve('', 'ns-1'), isResolutionError('ns-1'));
  });

  it('rejects a file:// URL with a remote host as a ForgeResolutionError', async () => {
    const { forge, resolver } = setup('resolver-host');
    const url = `file://other-host${forge.root}/acme/bundle.git`;
    await assert.rejects(resolver.resolve(url, 'tenant'), isResolutionError('tenant'));
  });

  it('rejects a path deeper under the root than <root>/<owner>/<name>.git', {}, async () => {
    const { forge, resolver } = setup('resolver-deep');
    const repo = await forge.createRepository('acme', 'bundle', { 'a.yaml': 'a\n' });
    const nested = pathToFileURL(join(forge.root, 'nested', 'acme', 'bundle.git')).href;
    assert.notEqual(nested, repo.url);
    await assert.rejects(resolver.resolve(nested, 'tenant'), isResolutionError('tenant'));
  });
});
