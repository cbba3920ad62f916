// What one run may read: the total of all inputs, no FIFOs or devices (opening a FIFO waits for a
// writer for ever), and which hidden directories a walk enters (`.konflux/`) or reports skipping.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../src/adapters/fs/errors.ts';
import { readManifestFiles } from '../../src/adapters/fs/read-inputs.ts';
import { repoRoot } from '../cli/run-cli.ts';

const COMPONENT = (name: string): string =>
  `apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: ${name}\n`;

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'nudger-limits-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const base = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(base, path, '..'), { recursive: true });
    await writeFile(join(base, path), text);
  }
  return base;
}

async function inputError(promise: Promise<unknown>): Promise<InputError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof InputError, `expected InputError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected an InputError');
}

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

describe('readManifestFiles limits', () => {
  it('bounds the bytes of a whole run and names the file where the budget ran out', async () => {
    const base = await tree('budget', {
      'a.yaml': COMPONENT('a').padEnd(400, '#'),
      'b.yaml': COMPONENT('b').padEnd(400, '#'),
      'c.yaml': COMPONENT('c').padEnd(400, '#'),
    });
    assert.equal((await readManifestFiles([base], { maxTotalBytes: 1200 })).length, 3);
    const error = await inputError(readManifestFiles([base], { maxTotalBytes: 1000 }));
    assert.equal(error.path, join(base, 'c.yaml'));
    assert.match(error.message, /past the 1000-byte limit of one run \(--max-total-size\)/);
    // Each file alone is under the per-file limit: only the total stops the run.
    assert.equal((await readManifestFiles([join(base, 'c.yaml')], { maxTotalBytes: 1000 })).length, 1);
  });

  it('counts stdin against the same budget', async () => {
    const base = await tree('budget-stdin', { 'a.yaml': COMPONENT('a').padEnd(600, '#') });
    const { Readable } = await import('node:stream');
    const error = await inputError(
      readManifestFiles([join(base, 'a.yaml'), '-'], {
        maxTotalBytes: 1000,
        stdin: Readable.from([COMPONENT('b').padEnd(600, '#')]),
      }),
    );
    assert.equal(error.path, '-');
  });

  it('refuses a FIFO named on the command line instead of waiting for a writer', async () => {
    const base = await tree('fifo', {});
    await mkdir(base, { recursive: true });
    const fifo = join(base, 'components.yaml');
    mkfifo(fifo);
    const error = await inputError(readManifestFiles([fifo]));
    assert.equal(error.path, fifo);
    assert.match(error.message, /is a FIFO \(named pipe\), not a regular file or directory/);
    const device = await inputError(readManifestFiles(['/dev/null']));
    assert.match(device.message, /^\/dev\/null: is a character device/);
  });

  it('never opens a FIFO found while walking a directory, and says so with onSkip', async () => {
    const base = await tree('walk-fifo', { 'a.yaml': COMPONENT('a') });
    mkfifo(join(base, 'b.yaml'));
    const skipped: string[] = [];
    const files = await readManifestFiles([base], { onSkip: (path, reason) => skipped.push(`${path}: ${reason}`) });
    assert.deepEqual(
      files.map((f) => f.path),
      [join(base, 'a.yaml')],
    );
    assert.deepEqual(skipped, [`${join(base, 'b.yaml')}: a FIFO (named pipe), not a regular file`]);
  });

  it('reads .konflux/, skips other hidden directories and reports each one', async () => {
    const base = await tree('hidden', {
      '.konflux/components.yaml': COMPONENT('from-konflux'),
      '.github/workflows/ci.yaml': 'on: push\n',
      '.git/config.yaml': 'x: 1\n',
      'apps/.cache/c.yaml': COMPONENT('cached'),
      'apps/a.yaml': COMPONENT('a'),
      '.hidden.yaml': COMPONENT('hidden-file'),
      'node_modules/m.yaml': COMPONENT('m'),
    });
    const skipped: string[] = [];
    const files = await readManifestFiles([base], { onSkip: (path) => skipped.push(path) });
    assert.deepEqual(
      files.map((f) => f.path),
      [join(base, '.konflux', 'components.yaml'), join(base, 'apps', 'a.yaml')],
    );
    assert.deepEqual(skipped, [
      `${join(base, '.git')}/`,
      `${join(base, '.github')}/`,
      `${join(base, 'apps', '.cache')}/`,
    ]);
  });
});

describe('the CLI with special files', () => {
  const cli = join(repoRoot, 'src', 'cli', 'main.ts');

  it('exits 2 at once on a FIFO argument, and still reads process substitution', async () => {
    const base = await tree('cli-fifo', { 'a.yaml': COMPONENT('a') });
    const fifo = join(base, 'pipe.yaml');
    mkfifo(fifo);
    const refused = spawnSync(process.execPath, [cli, 'validate', fifo], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /pipe\.yaml: is a FIFO \(named pipe\)/);
    // `<(...)` reaches nudger as /dev/fd/N: a pipe this process already holds, not a FIFO to wait on.
    const substituted = spawnSync(
      'bash',
      ['-c', `"${process.execPath}" "${cli}" validate <(cat "${join(base, 'a.yaml')}")`],
      { encoding: 'utf8', timeout: 20_000 },
    );
    assert.equal(substituted.status, 0, substituted.stderr);
    assert.match(substituted.stdout, /read 1 Component/);
  });

  it('--verbose names the hidden directories a walk skipped', async () => {
    const base = await tree('cli-verbose', { '.konflux/a.yaml': COMPONENT('a'), '.tekton/p.yaml': 'kind: Pipeline\n' });
    const quiet = spawnSync(process.execPath, [cli, 'validate', base], { encoding: 'utf8' });
    assert.equal(quiet.status, 0, quiet.stderr);
    assert.equal(quiet.stderr, '');
    assert.match(quiet.stdout, /read 1 Component/);
    const verbose = spawnSync(process.execPath, [cli, 'validate', '--verbose', base], { encoding: 'utf8' });
    assert.equal(verbose.stderr, `nudger: skipped ${join(base, '.tekton')}/: hidden directory (name it to read it)\n`);
  });
});
