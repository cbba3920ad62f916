import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Credentials } from '../../../src/adapters/credentials/credentials.ts';
import { GitCommandError, InvalidChangeError, LeaseRejectedError } from '../../../src/adapters/git/errors.ts';
import { GitWorkspaces } from '../../../src/adapters/git/workspace.ts';
import { foreignPush, git, seedRemote, removeTempDirs, tempDir } from './helpers.ts';
import { startGitHttpServer } from './http-server.ts';

const BOT = { name: 'nudger[bot]', email: 'nudger@example.com' };

function remotePath(url: string): string {
  return new URL(url).pathname;
}

describe('GitWorkspaces', () => {
  after(removeTempDirs);

  it('fetches the base, commits one change on it and pushes a new branch', async () => {
    const dir = tempDir('git-cycle');
    const url = seedRemote(dir, { 'deploy/app.yaml': 'image: old\n', 'README.md': 'hello\n' });
    const workspaces = new GitWorkspaces({ cacheDir: join(dir, 'cache') });
    const base = await workspaces.prepareBase(url, 'main');
    assert.equal(base.baseSha, git(dir, '--git-dir', remotePath(url), 'rev-parse', 'main').trim());

    const commit = await base.commitOnBase({
      files: [
        { path: 'deploy/app.yaml', text: 'image: new\n' },
        { path: 'added/new.yaml', text: 'x: 1\n' },
      ],
      message: 'Update digests [skip ci]',
      author: BOT,
    });
    await base.pushWithLease('konflux/change-groups/cg', undefined);

    assert.equal(await base.remoteBranchHead('konflux/change-groups/cg'), commit);
    const remote = remotePath(url);
    assert.equal(git(dir, '--git-dir', remote, 'show', `${commit}:deploy/app.yaml`), 'image: new\n');
    assert.equal(git(dir, '--git-dir', remote, 'show', `${commit}:added/new.yaml`), 'x: 1\n');
    assert.equal(git(dir, '--git-dir', remote, 'show', `${commit}:README.md`), 'hello\n');
    assert.equal(
      git(dir, '--git-dir', remote, 'log', '-1', '--format=%an <%ae>|%cn|%s', commit).trim(),
      `${BOT.name} <${BOT.email}>|${BOT.name}|Update digests [skip ci]`,
    );
    assert.equal(await base.remoteBranchHead('no-such-branch'), undefined);
  });

  it('keeps the PR a single commit on the base however often it is rebuilt', async () => {
    const dir = tempDir('git-single');
    const url = seedRemote(dir, { 'a.yaml': 'a: 0\n' });
    const workspaces = new GitWorkspaces({ cacheDir: join(dir, 'cache') });
    let expected: string | undefined;
    for (const round of [1, 2, 3]) {
      const base = await workspaces.prepareBase(url, 'main');
      const commit = await base.commitOnBase({
        files: [{ path: 'a.yaml', text: `a: ${String(round)}\n` }],
        message: `round ${String(round)}`,
        author: BOT,
      });
      await base.pushWithLease('pr', expected);
      expected = commit;
    }
    const remote = remotePath(url);
    assert.equal(git(dir, '--git-dir', remote, 'rev-list', '--count', 'main..pr').trim(), '1');
    assert.equal(git(dir, '--git-dir', remote, 'show', 'pr:a.yaml'), 'a: 3\n');
    // Reused, not re-cloned: one workspace in the cache.
    assert.equal(readdirSync(join(dir, 'cache')).length, 1);
  });

  it('follows a moved base: the rebuilt commit sits on the new base tip', async () => {
    const dir = tempDir('git-moved-base');
    const url = seedRemote(dir, { 'a.yaml': 'a: 0\n', 'b.yaml': 'b: 0\n' });
    const workspaces = new GitWorkspaces({ cacheDir: join(dir, 'cache') });
    const first = await workspaces.prepareBase(url, 'main');
    const newBase = foreignPush(dir, url, 'main', 'b.yaml', 'b: 1\n');
    const second = await workspaces.prepareBase(url, 'main');
    assert.notEqual(first.baseSha, second.baseSha);
    assert.equal(second.baseSha, newBase);
    assert.deepEqual(await second.readFiles((path) => path === 'b.yaml'), [{ path: 'b.yaml', text: 'b: 1\n' }]);
  });

  it('rejects a push whose lease no longer holds with LeaseRejectedError', async () => {
    const dir = tempDir('git-lease');
    const url = seedRemote(dir, { 'a.yaml': 'a: 0\n' });
    const workspaces = new GitWorkspaces({ cacheDir: join(dir, 'cache') });
    const base = await workspaces.prepareBase(url, 'main');
    const ours = await base.commitOnBase({ files: [{ path: 'a.yaml', text: 'a: 1\n' }], message: 'ours', author: BOT });
    await base.pushWithLease('pr', undefined);
    const human = foreignPush(dir, url, 'pr', 'human.txt', 'mine\n');

    const again = await workspaces.prepareBase(url, 'main');
    await again.commitOnBase({ files: [{ path: 'a.yaml', text: 'a: 2\n' }], message: 'ours again', author: BOT });
    await assert.rejects(again.pushWithLease('pr', ours), (error: unknown) => {
      assert.ok(error instanceof LeaseRejectedError);
      assert.equal(error.branch, 'pr');
      assert.equal(error.expectedSha, ours);
      return true;
    });
    // "Must not exist" is a lease too.
    await assert.rejects(again.pushWithLease('pr', undefined), LeaseRejectedError);
    assert.equal(await again.remoteBranchHead('pr'), human, 'the human commit survives');
  });

  it('reads matching text files of the base and skips binary ones', async () => {
    const dir = tempDir('git-read');
    const url = seedRemote(dir, {
      Dockerfile: 'FROM quay.io/x@sha256:00\n',
      'deploy/a.yaml': 'ü: ✓\n',
      'deploy/blob.yaml': 'bin\u0000ary',
      'docs/readme.md': 'no\n',
    });
    const base = await new GitWorkspaces({ cacheDir: join(dir, 'cache') }).prepareBase(url, 'main');
    const files = await base.readFiles((path) => path.endsWith('.yaml') || path.includes('Dockerfile'));
    assert.deepEqual(files, [
      { path: 'Dockerfile', text: 'FROM quay.io/x@sha256:00\n' },
      { path: 'deploy/a.yaml', text: 'ü: ✓\n' },
    ]);
  });

  it('refuses paths that are not plain repository paths', async () => {
    const dir = tempDir('git-paths');
    const url = seedRemote(dir, { 'a.yaml': 'a\n' });
    const base = await new GitWorkspaces({ cacheDir: join(dir, 'cache') }).prepareBase(url, 'main');
    for (const path of ['/etc/passwd', '../x', 'a//b', '.git/config', '']) {
      await assert.rejects(
        base.commitOnBase({ files: [{ path, text: '' }], message: 'm', author: BOT }),
        InvalidChangeError,
        path,
      );
    }
  });

  it("names the repository and git's reason when the base branch does not exist", async () => {
    const dir = tempDir('git-missing');
    const url = seedRemote(dir, { 'a.yaml': 'a\n' });
    await assert.rejects(
      new GitWorkspaces({ cacheDir: join(dir, 'cache') }).prepareBase(url, 'release-9'),
      (error: unknown) => {
        assert.ok(error instanceof GitCommandError);
        assert.equal(error.message, `git fetch ${url}: couldn't find remote ref refs/heads/release-9`);
        return true;
      },
    );
  });

  it('sends the token only as an HTTP header and never leaks it into errors, argv or .git/config', async () => {
    const dir = tempDir('git-token');
    seedRemote(dir, { 'a.yaml': 'a\n' }); // <dir>/remote.git, served below
    const server = await startGitHttpServer(dir, { refusePush: true });
    const token = 'ghs_SuperSecretToken1234567890';
    const credentials = new Credentials({ token });
    const traced: string[] = [];
    try {
      const workspaces = new GitWorkspaces({
        cacheDir: join(dir, 'cache'),
        trace: (args) => traced.push(args.join(' ')),
      });
      const url = `${server.baseUrl}/remote.git`;
      const base = await workspaces.prepareBase(url, 'main', credentials);
      await base.commitOnBase({ files: [{ path: 'a.yaml', text: 'b\n' }], message: 'm', author: BOT });
      const failure = await base.pushWithLease('pr', undefined).then(
        () => assert.fail('the server refuses pushes'),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof GitCommandError);
      const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
      assert.ok(server.authorizations.includes(`Basic ${basic}`), 'git sent the header');
      for (const text of [
        failure.message,
        failure.details,
        String(failure.stack),
        JSON.stringify(failure),
        ...traced,
      ]) {
        assert.ok(!text.includes(token) && !text.includes(basic), text);
      }
      const config = readFileSync(join(base.directory, 'config'), 'utf8');
      assert.ok(!config.includes(basic) && !config.toLowerCase().includes('extraheader'), config);
      assert.ok(
        traced.some((line) => line.startsWith('push ')),
        'push traced',
      );
    } finally {
      await server.close();
    }
  });

  it('fetches as much history as asked for, and lists its newest subjects', async () => {
    const dir = tempDir('git-history');
    const url = seedRemote(dir, { 'README.md': 'hello\n' });
    const clone = join(dir, 'clone');
    git(dir, 'clone', '--quiet', url, clone);
    for (const subject of ['two', 'three', 'four']) git(clone, 'commit', '--quiet', '--allow-empty', '-m', subject);
    git(clone, 'push', '--quiet', 'origin', 'main');
    const workspaces = new GitWorkspaces({ cacheDir: join(dir, 'cache') });
    const tip = await workspaces.prepareBase(url, 'main');
    assert.deepEqual(await tip.recentSubjects(20), ['four'], 'depth 1 by default');
    const deeper = await workspaces.prepareBase(url, 'main', undefined, { depth: 3 });
    assert.deepEqual(await deeper.recentSubjects(20), ['four', 'three', 'two']);
    assert.deepEqual(await deeper.recentSubjects(2), ['four', 'three']);
    await assert.rejects(workspaces.prepareBase(url, 'main', undefined, { depth: 0 }), GitCommandError);
  });

  it("reads the remote's default branch from its HEAD", async () => {
    const dir = tempDir('git-default-branch');
    const url = seedRemote(dir, { 'README.md': 'hello\n' });
    const workspaces = new GitWorkspaces({ cacheDir: join(dir, 'cache') });
    assert.equal(await workspaces.remoteDefaultBranch(url), 'main');
    git(dir, '--git-dir', remotePath(url), 'branch', 'trunk', 'main');
    git(dir, '--git-dir', remotePath(url), 'symbolic-ref', 'HEAD', 'refs/heads/trunk');
    assert.equal(await workspaces.remoteDefaultBranch(url), 'trunk');
    await assert.rejects(
      workspaces.remoteDefaultBranch('https://user:hunter2@example.com/o/r.git'),
      (error: unknown) => error instanceof GitCommandError && !error.message.includes('hunter2'),
    );
  });

  it('refuses a URL with embedded credentials without echoing them', async () => {
    const dir = tempDir('git-userinfo');
    await assert.rejects(
      new GitWorkspaces({ cacheDir: dir }).prepareBase('https://user:hunter2@example.com/o/r.git', 'main'),
      (error: unknown) => error instanceof GitCommandError && !error.message.includes('hunter2'),
    );
  });
});
