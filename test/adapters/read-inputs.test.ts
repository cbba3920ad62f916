import assert from 'node:assert/strict';
import { mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../src/adapters/fs/errors.ts';
import { readManifestFiles } from '../../src/adapters/fs/read-inputs.ts';

const COMPONENT = 'apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: a\n';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'nudger-read-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const base = join(root, name);
  await mkdir(base, { recursive: true });
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

describe('readManifestFiles', () => {
  it('walks directories recursively in sorted order, skipping hidden entries, node_modules and other extensions', async () => {
    const dir = await tree('walk', {
      'b.yaml': COMPONENT,
      'a/z.yml': COMPONENT,
      'a/y.JSON': '{}',
      'c.txt': 'not read',
      '.hidden/x.yaml': COMPONENT,
      '.dot.yaml': COMPONENT,
      'node_modules/m.yaml': COMPONENT,
      'README.md': '# no',
    });
    const files = await readManifestFiles([dir]);
    assert.deepEqual(
      files.map((f) => f.path),
      [join(dir, 'a/y.JSON'), join(dir, 'a/z.yml'), join(dir, 'b.yaml')],
    );
    assert.equal(files[2]!.text, COMPONENT);
  });

  it('reads explicitly named files whatever their extension, in the order given, once each', async () => {
    const dir = await tree('explicit', { 'x.txt': 'a: 1\n', 'y.yaml': 'b: 2\n' });
    const files = await readManifestFiles([join(dir, 'x.txt'), dir, join(dir, 'y.yaml')]);
    assert.deepEqual(
      files.map((f) => f.path),
      [join(dir, 'x.txt'), join(dir, 'y.yaml')],
    );
  });

  it('reads stdin from a stream, and only once', async () => {
    const files = await readManifestFiles(['-'], { stdin: Readable.from([Buffer.from('a: '), Buffer.from('1\n')]) });
    assert.deepEqual(files, [{ path: '-', text: 'a: 1\n' }]);
    const twice = await inputError(readManifestFiles(['-', '-'], { stdin: Readable.from(['a: 1\n']) }));
    assert.equal(twice.message, 'stdin: stdin can be read only once');
  });

  it('refuses stdin over the size limit', async () => {
    const error = await inputError(
      readManifestFiles(['-'], { stdin: Readable.from(['x'.repeat(2048)]), maxFileBytes: 1024 }),
    );
    assert.equal(error.message, 'stdin: input exceeds the 1 KiB limit (--max-file-size)');
  });

  it('names a missing path', async () => {
    const missing = join(root, 'missing.yaml');
    const error = await inputError(readManifestFiles([missing]));
    assert.equal(error.message, `${missing}: no such file or directory`);
    assert.equal(error.path, missing);
  });

  it('refuses binary and non-UTF-8 files', async () => {
    const dir = await tree('binary', {});
    await writeFile(join(dir, 'x.bin'), Buffer.from([0, 1, 2]));
    await writeFile(join(dir, 'latin1.yaml'), Buffer.from([0x61, 0x3a, 0x20, 0xe9, 0x0a]));
    assert.equal(
      (await inputError(readManifestFiles([join(dir, 'x.bin')]))).message,
      `${join(dir, 'x.bin')}: not a text file (NUL byte at offset 0)`,
    );
    assert.equal(
      (await inputError(readManifestFiles([join(dir, 'latin1.yaml')]))).message,
      `${join(dir, 'latin1.yaml')}: not a text file (invalid UTF-8)`,
    );
  });

  it('refuses a 50 MB file by its size, before reading it', async () => {
    const big = join(root, 'big.yaml');
    const handle = await open(big, 'w');
    await handle.truncate(50 * 1024 * 1024); // sparse: no 50 MB actually written
    await handle.close();
    try {
      const error = await inputError(readManifestFiles([big]));
      assert.equal(error.message, `${big}: file is 50.0 MiB, over the 32 MiB limit (--max-file-size)`);
    } finally {
      await rm(big);
    }
  });

  it('says when a directory holds no manifests', async () => {
    const dir = await tree('empty', { 'notes.txt': 'x' });
    const error = await inputError(readManifestFiles([dir]));
    assert.equal(error.message, `${dir}/: contains no manifest files (.yaml, .yml, .json)`);
  });

  it('reads a 3,000-file directory without running out of file descriptors', async () => {
    const dir = join(root, 'many');
    await mkdir(dir);
    const names = Array.from({ length: 3000 }, (_, i) => `c${String(i).padStart(4, '0')}.yaml`);
    await Promise.all(names.map((name, i) => writeFile(join(dir, name), `# ${String(i)}\n${COMPONENT}`)));
    const files = await readManifestFiles([dir]);
    assert.equal(files.length, 3000);
    assert.deepEqual(
      files.map((f) => f.path),
      names.map((name) => join(dir, name)),
    );
    assert.ok(files[2999]!.text.startsWith('# 2999\n'));
  });

  it('follows symlinked directories once, so a loop ends, and skips dangling links', async () => {
    const dir = await tree('loop', { 'sub/a.yaml': COMPONENT });
    await symlink('..', join(dir, 'sub', 'up'));
    await symlink(join(dir, 'sub'), join(dir, 'again'));
    await symlink(join(dir, 'gone.yaml'), join(dir, 'dangling.yaml'));
    const files = await readManifestFiles([dir]);
    assert.deepEqual(
      files.map((f) => f.path),
      [join(dir, 'again', 'a.yaml')],
    );
  });
});
