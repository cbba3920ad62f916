// The Pipelines-as-Code stand-in on a real local forge: which PR events count as builds.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LocalForge } from '../../src/adapters/forges/local/local-forge.ts';
import { GitWorkspaces } from '../../src/adapters/git/workspace.ts';
import { SKIP_MARKERS } from '../../src/domain/pr-description/skip-markers.ts';
import { PacStandIn } from '../../src/sandbox/pac.ts';
import { removeTempDirs, tempDir } from '../adapters/git/helpers.ts';

const AUTHOR = { name: 'someone', email: 'someone@example.com' };

async function setup(prefix: string) {
  const dir = tempDir(prefix);
  const forge = new LocalForge({ root: join(dir, 'forge') });
  const repo = await forge.createRepository('acme', 'bundle', { 'csv.yaml': 'image: old\n' });
  const workspaces = new GitWorkspaces({ cacheDir: join(dir, 'cache') });
  /** One commit on main with `message`, pushed to `branch` (force, with the lease it expects). */
  const push = async (branch: string, message: string, text: string): Promise<string> => {
    const base = await workspaces.prepareBase(forge.cloneUrl(repo), 'main');
    const sha = await base.commitOnBase({ files: [{ path: 'csv.yaml', text }], message, author: AUTHOR });
    await base.pushWithLease(branch, await forge.branchHead(repo, branch));
    return sha;
  };
  const pac = new PacStandIn(forge);
  pac.watch(repo, 'bundle');
  return { forge, repo, push, pac };
}

describe('PacStandIn', () => {
  after(removeTempDirs);

  it('counts opened, synchronize and ready_for_review, never edited, draft changes or other branches', async () => {
    const { forge, repo, push, pac } = await setup('pac-triggers');
    await push('feature', 'first', 'image: 1\n'); // no PR yet: not a PR build
    const pr = await forge.createPullRequest({
      repo,
      base: 'main',
      head: 'feature',
      title: 't',
      body: 'b',
      draft: true,
    });
    const second = await push('feature', 'second', 'image: 2\n');
    await forge.updatePullRequest(repo, pr.number, { body: 'edited' });
    await forge.markReadyForReview(repo, pr.number);
    await forge.convertToDraft(repo, pr.number);
    await push('other', 'unrelated', 'image: 3\n');
    const builds = await pac.poll();
    assert.deepEqual(
      builds.map((build) => `${build.trigger} #${String(build.pullRequest)} ${build.headSha}`),
      [`opened #1 ${pr.headSha}`, `synchronize #1 ${second}`, `ready_for_review #1 ${second}`],
    );
    assert.ok(builds.every((build) => build.component === 'bundle' && build.repository === 'acme/bundle'));
    assert.deepEqual(await pac.poll(), [], 'nothing new: nothing counted twice');
    assert.equal(pac.buildCount('bundle'), 3);
  });

  it('counts no build for a head whose commit message holds any of the four skip markers', async () => {
    const { forge, repo, push, pac } = await setup('pac-skip');
    await push('feature', `Update [skip ci]`, 'image: 1\n');
    const pr = await forge.createPullRequest({
      repo,
      base: 'main',
      head: 'feature',
      title: 't',
      body: 'b',
      draft: false,
    });
    for (const [index, marker] of SKIP_MARKERS.entries()) {
      await push('feature', `subject\n\nbody ${marker}`, `image: ${String(index + 2)}\n`);
    }
    assert.deepEqual(await pac.poll(), []);
    assert.equal(pac.skipped.length, 1 + SKIP_MARKERS.length);
    // Upper case is not a marker for PaC: this one builds.
    const built = await push('feature', 'final [SKIP CI]', 'image: 9\n');
    assert.deepEqual(
      (await pac.poll()).map((build) => [build.trigger, build.headSha]),
      [['synchronize', built]],
    );
    await forge.close(repo, pr.number);
    await push('feature', 'after close', 'image: 10\n');
    assert.deepEqual(await pac.poll(), [], 'a push to the head of a closed PR builds nothing');
  });

  it('counts one build per push among many rapid pushes, polled while they happen', async () => {
    const { forge, repo, push, pac } = await setup('pac-many');
    await push('feature', 'start', 'image: 0\n');
    await forge.createPullRequest({ repo, base: 'main', head: 'feature', title: 't', body: 'b', draft: false });
    const pushes = 25;
    const counted: string[] = [];
    for (let i = 1; i <= pushes; i += 1) {
      await push('feature', `change ${String(i)}`, `image: ${String(i)}\n`);
      if (i % 4 === 0) counted.push(...(await pac.poll()).map((build) => build.trigger));
    }
    counted.push(...(await pac.poll()).map((build) => build.trigger));
    assert.equal(counted.filter((trigger) => trigger === 'synchronize').length, pushes);
    assert.equal(counted.filter((trigger) => trigger === 'opened').length, 1);
    assert.equal(pac.buildCount(), pushes + 1);
  });

  it('counts a build per component for a repository several components build from', async () => {
    const { forge, repo, push, pac } = await setup('pac-monorepo');
    pac.watch(repo, 'operator');
    pac.watch(repo, 'operator'); // watching twice changes nothing
    await push('feature', 'x', 'image: 1\n');
    await forge.createPullRequest({ repo, base: 'main', head: 'feature', title: 't', body: 'b', draft: false });
    assert.deepEqual((await pac.poll()).map((build) => build.component).sort(), ['bundle', 'operator']);
  });

  it('builds a component watched with pathChanged globs only when the PR changes a path they match (N33)', async () => {
    const { forge, repo, pac } = await setup('pac-path-changed');
    pac.watch(repo, 'operand', ['operand/***', 'go.mod']);
    pac.watch(repo, 'docs');
    pac.watch(repo, 'bundle', ['bundle/***']);
    const workspaces = new GitWorkspaces({ cacheDir: join(tempDir('pac-path-changed-git'), 'cache') });
    const commit = async (from: string, path: string): Promise<string> => {
      const base = await workspaces.prepareBase(forge.cloneUrl(repo), from);
      const sha = await base.commitOnBase({ files: [{ path, text: `${path}\n` }], message: path, author: AUTHOR });
      await base.pushWithLease('feature', await forge.branchHead(repo, 'feature'));
      return sha;
    };
    await commit('main', 'operand/main.go');
    await forge.createPullRequest({ repo, base: 'main', head: 'feature', title: 't', body: 'b', draft: false });
    await commit('feature', 'bundle/manifests/csv.yaml');
    const builds = await pac.poll();
    assert.deepEqual(
      builds.map((build) => `${build.trigger} ${build.component}`),
      // Opened: operand/ only (docs has no globs: every change). The second push changes bundle/
      // too, and PaC compares with the merge base, so then the PR changes both.
      ['opened operand', 'opened docs', 'synchronize bundle', 'synchronize operand', 'synchronize docs'],
    );
  });
});
