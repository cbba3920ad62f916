// Under a Node.js older than nudger needs, the `nudger` executable prints one line and exits 2
// instead of a stack trace from a dependency (issue 8, part 2 item 9). The real check runs the
// built bin under an old Node when the machine has one (Debian's node is 20), else it is skipped.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { REQUIRED_NODE_MAJOR, unsupportedNodeMessage } from '../../src/cli/node-version.ts';
import { builtCli as builtBin, repoRoot } from './run-cli.ts';

/** A node binary older than REQUIRED_NODE_MAJOR on PATH or in the usual places, if any. */
function olderNode(): { path: string; version: string } | undefined {
  const candidates = [
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node')),
    '/usr/bin/node',
    '/usr/local/bin/node',
  ];
  for (const path of new Set(candidates)) {
    if (!existsSync(path)) continue;
    const probe = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    const version = probe.stdout.trim();
    if (probe.status === 0 && Number(version.split('.')[0]) < REQUIRED_NODE_MAJOR) return { path, version };
  }
  return undefined;
}

describe('the Node.js version check', () => {
  it('accepts the required major and later, refuses earlier ones in one line', () => {
    assert.equal(unsupportedNodeMessage('24.0.0'), undefined);
    assert.equal(unsupportedNodeMessage('25.1.2'), undefined);
    assert.equal(
      unsupportedNodeMessage('20.20.2'),
      'nudger needs Node.js >= 24; this is v20.20.2. Install Node.js 24 or later and run nudger with it.',
    );
    assert.match(unsupportedNodeMessage('v22.19.0') ?? '', /this is v22\.19\.0\./);
    assert.match(unsupportedNodeMessage('garbage') ?? '', /needs Node\.js >= 24/);
  });

  it('requires what package.json engines declares', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      engines: { node: string };
      bin: { nudger: string };
    };
    assert.equal(manifest.engines.node, `>=${String(REQUIRED_NODE_MAJOR)}`);
    assert.equal(manifest.bin.nudger, 'dist/cli/bin.js');
  });

  const old = olderNode();
  it(
    `exits 2 with one line under an older Node.js, for manager, sandbox and validate`,
    { skip: old === undefined ? `no Node.js older than ${String(REQUIRED_NODE_MAJOR)} on this machine` : false },
    () => {
      assert.ok(old !== undefined);
      assert.ok(existsSync(builtBin), 'run npm run build first');
      for (const command of [['manager'], ['sandbox'], ['validate', '.']]) {
        const result: SpawnSyncReturns<string> = spawnSync(old.path, [builtBin, ...command], {
          encoding: 'utf8',
          cwd: repoRoot,
          timeout: 60_000,
        });
        assert.equal(result.status, 2, `${command.join(' ')}: ${result.stderr}`);
        assert.equal(result.stdout, '');
        assert.equal(
          result.stderr,
          `nudger: nudger needs Node.js >= ${String(REQUIRED_NODE_MAJOR)}; this is v${old.version}. Install Node.js ${String(REQUIRED_NODE_MAJOR)} or later and run nudger with it.\n`,
        );
      }
    },
  );

  it('runs the CLI through the same bin under this Node.js', () => {
    assert.ok(existsSync(builtBin), 'run npm run build first');
    const result = spawnSync(process.execPath, [builtBin, '--version'], { encoding: 'utf8', cwd: repoRoot });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), '0.1.0');
  });
});
