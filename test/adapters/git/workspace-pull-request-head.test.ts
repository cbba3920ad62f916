// BaseCheckout's reading of a pull request's head, for the monorepo synthetic commit (docs/decisions.md
// D11, N36): the head fetched by branch or by commit, the merge base found however far behind the
// base moved (the workspace is shallow), the paths changed since it, and a commit copying them
// byte for byte (a binary file, an executable, a deletion) onto the base.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync, unlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GitCommandError } from '../../../src/adapters/git/errors.ts';
import { GitWorkspaces } from '../../../src/adapters/git/workspace.ts';
import { git, removeTempDirs, seedRemote, tempDir } from './helpers.ts';

const BOT = { name: 'nudger[bot]', email: 'nudger@example.com' };

after(removeTempDirs);

/** A remote whose `feature` branch forked from main, changed three paths, and main moved 60 commits on. */
function forkedRemote(prefix: string) {
  const dir = tempDir(prefix);
  const url = seedRemote(dir, {
    'bundle/manifests/csv.yaml': 'digest: old\n',
    'operator/main.go': 'package main\n',
    'operator/old.go': 'package old\n',
    'README.md': 'hello\n',
  });
  const clone = join(dir, 'clone');
  git(dir, 'clone', '--quiet', url, clone);
  const forkPoint = git(clone, 'rev-parse', 'HEAD').trim();
  git(clone, 'checkout', '--quiet', '-b', 'feature');
  writeFileSync(join(clone, 'bundle/manifests/csv.yaml'), 'digest: new\n');
  mkdirSync(join(clone, 'bundle/bin'), { recursive: true });
  writeFileSync(join(clone, 'bundle/bin/tool'), Buffer.from([0, 1, 2, 255]), { mode: 0o755 });
  unlinkSync(join(clone, 'operator/old.go'));
  writeFileSync(join(clone, 'bundle/*.yaml'), 'a star in the name\n');
  git(clone, 'add', '--all');
  git(clone, 'commit', '--quiet', '-m', 'feature');
  const built = git(clone, 'rev-parse', 'HEAD').trim();
  git(clone, 'push', '--quiet', 'origin', 'feature');
  git(clone, 'checkout', '--quiet', 'main');
  for (let i = 0; i < 60; i += 1) git(clone, 'commit', '--quiet', '--allow-empty', '-m', `main ${String(i)}`);
  writeFileSync(join(clone, 'README.md'), 'hello again\n');
  git(clone, 'commit', '--quiet', '-am', 'readme');
  git(clone, 'push', '--quiet', 'origin', 'main');
  return { dir, url, clone, forkPoint, built };
}

describe('BaseCheckout: a pull request head', () => {
  it('finds the merge base past a shallow base, lists the changes and copies them onto the base', async () => {
    const { dir, url, forkPoint, built } = forkedRemote('git-pr-head');
    const base = await new GitWorkspaces({ cacheDir: join(dir, 'cache') }).prepareBase(url, 'main');
    const head = await base.fetchPullRequestHead({ branch: 'feature' });
    assert.deepEqual(head, { sha: built, mergeBase: forkPoint });
    const changed = await base.changedPaths(head.mergeBase, head.sha);
    assert.deepEqual(changed, [
      { path: 'bundle/*.yaml', deleted: false },
      { path: 'bundle/bin/tool', deleted: false },
      { path: 'bundle/manifests/csv.yaml', deleted: false },
      { path: 'operator/old.go', deleted: true },
    ]);

    const paths = ['bundle/*.yaml', 'bundle/bin/tool', 'bundle/manifests/csv.yaml', 'operator/old.go'];
    const date = '2026-01-01T10:00:00Z';
    const copy = await base.copyCommit({ from: head.sha, paths, message: 'copy', author: BOT, date });
    const again = await base.copyCommit({ from: head.sha, paths, message: 'copy', author: BOT, date });
    assert.equal(again, copy, 'the same copy on the same base is the same commit');
    assert.equal(git(dir, '--git-dir', base.directory, 'rev-parse', `${copy}^`).trim(), base.baseSha);
    assert.equal(git(dir, '--git-dir', join(dir, 'remote.git'), 'rev-parse', 'main').trim(), base.baseSha);
    const tree = git(dir, '--git-dir', base.directory, 'ls-tree', '-r', copy);
    assert.match(tree, /^100755 blob \S+\tbundle\/bin\/tool$/m, 'the executable bit is copied');
    assert.doesNotMatch(tree, /operator\/old\.go/, 'the deleted file is deleted');
    assert.match(tree, /\toperator\/main\.go$/m);
    assert.match(tree, /\tbundle\/\*\.yaml$/m, 'a path with a glob character is a name');
    assert.equal(git(dir, '--git-dir', base.directory, 'show', `${copy}:README.md`), 'hello again\n', "the base's");
    assert.equal(git(dir, '--git-dir', base.directory, 'show', `${copy}:bundle/manifests/csv.yaml`), 'digest: new\n');
    const binary = execBytes(dir, base.directory, `${copy}:bundle/bin/tool`);
    assert.deepEqual([...binary], [0, 1, 2, 255], 'a binary file byte for byte');

    // The digest commit goes on top of the copy, reading the copy's files.
    assert.deepEqual(await base.readFiles((path) => path.startsWith('bundle/manifests/'), copy), [
      { path: 'bundle/manifests/csv.yaml', text: 'digest: new\n' },
    ]);
    const top = await base.commitOnBase({
      files: [{ path: 'bundle/manifests/csv.yaml', text: 'digest: pinned\n' }],
      message: 'pin',
      author: BOT,
      parent: copy,
    });
    assert.equal(git(dir, '--git-dir', base.directory, 'rev-parse', `${top}^`).trim(), copy);
  });

  it('takes the commit that was built over a branch that moved on, and fetches a commit without its branch', async () => {
    const { dir, url, clone, built, forkPoint } = forkedRemote('git-pr-head-sha');
    git(clone, 'checkout', '--quiet', 'feature');
    writeFileSync(join(clone, 'later.txt'), 'later\n');
    git(clone, 'add', '--all');
    git(clone, 'commit', '--quiet', '-m', 'later');
    git(clone, 'push', '--quiet', 'origin', 'feature');
    const workspaces = new GitWorkspaces({ cacheDir: join(dir, 'cache') });
    const base = await workspaces.prepareBase(url, 'main');
    assert.deepEqual(await base.fetchPullRequestHead({ branch: 'feature', sha: built }), {
      sha: built,
      mergeBase: forkPoint,
    });

    // The branch deleted (a fork's PR names a branch the repository does not have): by commit.
    git(dir, '--git-dir', join(dir, 'remote.git'), 'config', 'uploadpack.allowAnySHA1InWant', 'true');
    git(dir, '--git-dir', join(dir, 'remote.git'), 'update-ref', 'refs/keep/built', built);
    git(dir, '--git-dir', join(dir, 'remote.git'), 'branch', '-D', 'feature');
    const fresh = await new GitWorkspaces({ cacheDir: join(dir, 'cache2') }).prepareBase(url, 'main');
    assert.deepEqual(await fresh.fetchPullRequestHead({ branch: 'feature', sha: built }), {
      sha: built,
      mergeBase: forkPoint,
    });
    await assert.rejects(fresh.fetchPullRequestHead({ branch: 'gone' }), GitCommandError);
    await assert.rejects(fresh.fetchPullRequestHead({ branch: '--upload-pack=evil' }), GitCommandError);
    await assert.rejects(fresh.fetchPullRequestHead({ sha: 'abc' }), GitCommandError);
    await assert.rejects(fresh.fetchPullRequestHead({}), GitCommandError);
  });
});

function execBytes(dir: string, gitDir: string, object: string): Buffer {
  return execFileSync('git', ['--git-dir', gitDir, 'cat-file', 'blob', object], { cwd: dir });
}
