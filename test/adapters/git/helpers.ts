// Real git repositories in temp directories, set up with the git CLI directly so that the adapter
// under test is not also the tool that builds its fixtures.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const IDENTITY = ['-c', 'user.name=Human', '-c', 'user.email=human@example.com'];

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...IDENTITY, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
}

const created: string[] = [];

/** A fresh temp directory, removed by removeTempDirs(). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `nudger-${prefix}-`));
  created.push(dir);
  return dir;
}

/** For `after()`: deletes every directory tempDir() made in this test file. */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A bare repository at `<dir>/remote.git` whose `main` holds `files`; returns its file:// URL. */
export function seedRemote(dir: string, files: Record<string, string>): string {
  const remote = join(dir, 'remote.git');
  git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', remote);
  const seed = join(dir, 'seed');
  git(dir, 'init', '--quiet', '--initial-branch=main', seed);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(seed, path)), { recursive: true });
    writeFileSync(join(seed, path), text);
  }
  git(seed, 'add', '--all');
  git(seed, 'commit', '--quiet', '-m', 'initial');
  git(seed, 'push', '--quiet', remote, 'main');
  return `file://${remote}`;
}

/** A commit by someone else pushed onto `branch` of `remoteUrl`, on top of its current head. */
export function foreignPush(dir: string, remoteUrl: string, branch: string, path: string, text: string): string {
  const clone = mkdtempSync(join(dir, 'human-'));
  git(clone, 'clone', '--quiet', '--branch', branch, remoteUrl, '.');
  writeFileSync(join(clone, path), text);
  git(clone, 'add', '--all');
  git(clone, 'commit', '--quiet', '-m', 'human change');
  git(clone, 'push', '--quiet', 'origin', branch);
  return git(clone, 'rev-parse', 'HEAD').trim();
}
