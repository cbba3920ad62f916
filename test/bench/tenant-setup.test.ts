// The scale benchmarks' repositories are copies of templates (bench/tenant-setup.ts,
// docs/decisions.md N50): a copy must be the repository LocalForge.createRepository would make
// (same first commit's tree), a repository of its own (a push to it lands in its event log only,
// not the template's or a sibling's), and no copy over an existing repository. Old builds are
// recorded with each Component read once (withCachedGets).
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readForgeEvents, LocalForge } from '../../src/adapters/forges/local/local-forge.ts';
import type { ObjectClient } from '../../src/adapters/kubernetes/client.ts';
import { COMPONENTS, PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ListPage, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import type { RepositorySeed } from '../../src/sandbox/scenario/objects.ts';
import { RepositoryTemplates, withCachedGets } from '../../bench/tenant-setup.ts';
import { foreignPush, git, removeTempDirs, tempDir } from '../adapters/git/helpers.ts';

function seed(component: string, files: Record<string, string>): RepositorySeed {
  return { component, components: [component], url: '', branch: 'main', files };
}

const BUNDLE_FILES = { Dockerfile: 'FROM a@sha256:1 AS op\nFROM base\n', 'README.md': '# bundle\n' };

/** An ObjectClient whose methods are on its prototype, as KubeClient's: counts GETs, fails `broken` once. */
class CountingClient implements ObjectClient {
  readonly gets: string[] = [];
  #failed = false;
  get<T extends KubeObject>(ref: ResourceRef, _namespace: string, name: string): Promise<T> {
    this.gets.push(`${ref.plural} ${name}`);
    if (name === 'broken' && !this.#failed) {
      this.#failed = true;
      return Promise.reject(new Error('503'));
    }
    return Promise.resolve({ metadata: { name } } as T);
  }
  list<T extends KubeObject>(): Promise<ListPage<T>> {
    return Promise.resolve({ items: [], resourceVersion: String(this.gets.length) });
  }
  create<T extends KubeObject>(_ref: ResourceRef, object: T): Promise<T> {
    return Promise.resolve(object);
  }
  replace<T extends KubeObject>(_ref: ResourceRef, object: T): Promise<T> {
    return Promise.resolve(object);
  }
  replaceStatus<T extends KubeObject>(_ref: ResourceRef, object: T): Promise<T> {
    return Promise.resolve(object);
  }
  patch<T extends KubeObject>(): Promise<T> {
    return Promise.resolve({} as T);
  }
  patchStatus<T extends KubeObject>(): Promise<T> {
    return Promise.resolve({} as T);
  }
  delete(): Promise<void> {
    return Promise.resolve();
  }
}

describe('withCachedGets', () => {
  it('sends one GET per object of the cached kind, every other request as it is, a failed GET again', async () => {
    const counting = new CountingClient();
    const client = withCachedGets(counting, COMPONENTS);
    await client.get(COMPONENTS, 'ns', 'op-1');
    await client.get(COMPONENTS, 'ns', 'op-1');
    await client.get(COMPONENTS, 'other', 'op-1');
    await client.get(PIPELINE_RUNS, 'ns', 'run');
    await client.get(PIPELINE_RUNS, 'ns', 'run');
    await assert.rejects(client.get(COMPONENTS, 'ns', 'broken'));
    await client.get(COMPONENTS, 'ns', 'broken');
    assert.deepEqual(counting.gets, [
      'components op-1',
      'components op-1',
      'pipelineruns run',
      'pipelineruns run',
      'components broken',
      'components broken',
    ]);
    // Methods read through the wrapper keep their object (list reads the counting client's own field).
    assert.equal((await client.list(COMPONENTS)).resourceVersion, '6');
  });
});

describe('RepositoryTemplates', () => {
  after(removeTempDirs);

  it('copies a repository equal to a created one, with its own event log, once per path', async () => {
    const dir = tempDir('tenant-setup');
    const forge = new LocalForge({ root: join(dir, 'forge') });
    const templates = new RepositoryTemplates(forge, join(dir, 'templates'));
    await Promise.all([
      templates.copy('ns-a', seed('bundle', BUNDLE_FILES)),
      templates.copy('ns-b', seed('bundle', BUNDLE_FILES)),
      templates.copy('ns-a', seed('op', { 'README.md': '# op\n' })),
    ]);
    assert.equal(templates.size, 2, 'one template per distinct first commit');
    const created = await forge.createRepository('ns-c', 'bundle', BUNDLE_FILES);

    const tree = (owner: string, name: string): string =>
      git(forge.gitDirectory(forge.repository(owner, name)), 'rev-parse', 'main^{tree}').trim();
    assert.equal(tree('ns-a', 'bundle'), tree(created.owner, created.name));
    assert.equal(tree('ns-b', 'bundle'), tree(created.owner, created.name));
    assert.equal(git(forge.gitDirectory(forge.repository('ns-a', 'op')), 'show', 'main:README.md'), '# op\n');
    const a = forge.repository('ns-a', 'bundle');
    const b = forge.repository('ns-b', 'bundle');
    assert.equal(await forge.branchHead(a, 'main'), await forge.branchHead(b, 'main'));
    assert.equal(git(forge.gitDirectory(a), 'fsck', '--strict', '--no-progress'), '');

    // A push through the forge's URL: the copy's own post-receive hook logs it.
    const pushed = foreignPush(dir, forge.cloneUrl(a), 'main', 'Dockerfile', 'FROM b@sha256:2 AS op\n');
    assert.equal(await forge.branchHead(a, 'main'), pushed);
    const events = (await readForgeEvents(forge, a, 0)).events;
    assert.deepEqual(
      events.map((event) => event.type),
      ['push'],
    );
    assert.equal((await readForgeEvents(forge, b, 0)).events.length, 0);
    assert.notEqual(await forge.branchHead(b, 'main'), pushed);

    // The objects are shared with the template, not copied.
    const objects = git(forge.gitDirectory(b), 'rev-parse', `main^{tree}`).trim();
    const path = join(forge.gitDirectory(b), 'objects', objects.slice(0, 2), objects.slice(2));
    assert.ok((await stat(path)).nlink >= 3, 'template, ns-a and ns-b share the tree object file');

    await assert.rejects(templates.copy('ns-a', seed('bundle', BUNDLE_FILES)), { code: 'EEXIST' });
  });
});
