import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WriteError } from '../../src/adapters/fs/errors.ts';
import { isTempFileName, removeStaleTempFiles, writeFileAtomic } from '../../src/adapters/fs/write-atomic.ts';
import { writeFilesAtomically } from '../../src/adapters/fs/write-files.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nudger-write-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('creates a new file and replaces an existing one, keeping its mode', async () => {
    const path = join(dir, 'a.yaml');
    await writeFileAtomic(path, 'one\n');
    assert.equal(await readFile(path, 'utf8'), 'one\n');
    await chmod(path, 0o640);
    await writeFileAtomic(path, 'two\n');
    assert.equal(await readFile(path, 'utf8'), 'two\n');
    assert.equal((await stat(path)).mode & 0o777, 0o640);
    assert.deepEqual(await readdir(dir), ['a.yaml'], 'no temporary file left behind');
  });

  it('writes through a symlink to the file it names', async () => {
    const real = join(dir, 'real.yaml');
    const link = join(dir, 'link.yaml');
    await writeFile(real, 'old\n');
    await symlink(real, link);
    await writeFileAtomic(link, 'new\n');
    assert.equal(await readFile(real, 'utf8'), 'new\n');
    assert.ok((await readdir(dir)).includes('link.yaml'));
  });

  it('fails with a one-line WriteError and removes its temporary file', async () => {
    const sub = join(dir, 'sub');
    await mkdir(join(sub, 'target.yaml'), { recursive: true }); // renaming a file over a directory fails
    await assert.rejects(writeFileAtomic(join(sub, 'target.yaml'), 'x'), (error: unknown) => {
      assert.ok(error instanceof WriteError);
      assert.match(error.message, /^.*target\.yaml: cannot write: .+$/);
      return true;
    });
    assert.deepEqual(await readdir(sub), ['target.yaml']);
    await assert.rejects(writeFileAtomic(join(dir, 'no', 'such', 'dir.yaml'), 'x'), WriteError);
  });

  it('writes several files, or none when one of them cannot be written', async () => {
    const first = join(dir, 'first.yaml');
    const second = join(dir, 'second.yaml');
    await writeFile(first, 'old\n');
    await assert.rejects(
      writeFilesAtomically([
        { path: first, text: 'new\n' },
        { path: join(dir, 'missing', 'x.yaml'), text: 'x' },
      ]),
      WriteError,
    );
    assert.equal(await readFile(first, 'utf8'), 'old\n', 'nothing replaced');
    assert.ok(!(await readdir(dir)).some((name) => name.endsWith('.tmp')), 'no temporary file left behind');
    await writeFilesAtomically([
      { path: first, text: 'new\n' },
      { path: second, text: 'two\n' },
    ]);
    assert.deepEqual([await readFile(first, 'utf8'), await readFile(second, 'utf8')], ['new\n', 'two\n']);
  });
});

describe('temporary files a killed run left', () => {
  it('are removed by the next write in their directory, unless their process still runs', async () => {
    const sub = join(dir, 'stale');
    await mkdir(sub);
    // A pid no process has: spawn one, let it exit, reuse its pid.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const stale = `.components.yaml.nudger-${String(gone)}-0123456789ab.tmp`;
    const older = '.components.yaml.nudger-abcdef012345.tmp'; // before names carried a pid
    const live = `.components.yaml.nudger-${String(process.ppid)}-0123456789ab.tmp`;
    const unrelated = ['.components.yaml.swp', 'notes.tmp', '.x.nudger-zz.tmp'];
    for (const name of [stale, older, live, ...unrelated]) await writeFile(join(sub, name), 'half-written');
    assert.ok(isTempFileName(stale) && isTempFileName(older) && isTempFileName(live));
    await writeFilesAtomically([{ path: join(sub, 'components.yaml'), text: 'new\n' }]);
    assert.deepEqual((await readdir(sub)).sort(), [live, ...unrelated, 'components.yaml'].sort());
    assert.deepEqual(await removeStaleTempFiles([join(dir, 'no-such-directory')]), []);
  });
});
