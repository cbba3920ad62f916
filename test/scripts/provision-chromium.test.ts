// scripts/provision-chromium.sh and how the browser tests read what it prints (docs/decisions.md
// N48). The install itself is not run here (it changes the machine): --dry-run says what would be
// run, and stand-ins for apt-cache and fc-list on PATH play a machine without package lists or
// fonts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BrowserUnavailableError, browserSkip, chromiumExecutable } from '../support/browser.ts';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'provision-chromium.sh');
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

function provision(args: string[], env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const base = { ...process.env };
  delete base.NUDGER_CHROMIUM;
  const result = spawnSync('bash', [SCRIPT, ...args], { encoding: 'utf8', env: { ...base, ...env } });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

const installed = ((): boolean => {
  try {
    accessSync(DEBIAN_CHROMIUM, constants.X_OK);
    return true;
  } catch {
    return false;
  }
})();

const stubs = mkdtempSync(join(tmpdir(), 'nudger-provision-chromium-'));
after(() => {
  rmSync(stubs, { recursive: true, force: true });
});

/** A directory with executables that print nothing: no package lists, no fonts. */
function emptyMachine(): string {
  for (const name of ['apt-cache', 'fc-list']) {
    writeFileSync(join(stubs, name), '#!/bin/sh\nexit 0\n');
    chmodSync(join(stubs, name), 0o755);
  }
  return `${stubs}:${process.env.PATH ?? ''}`;
}

describe('scripts/provision-chromium.sh', () => {
  it(
    'prints the path of the installed package, and nothing else, on stdout',
    { skip: !installed && `${DEBIAN_CHROMIUM} is not installed` },
    () => {
      const result = provision([]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${DEBIAN_CHROMIUM}\n`);
    },
  );

  it(
    'takes NUDGER_CHROMIUM as is when it is a Chromium, and refuses one that is not',
    { skip: !installed && `${DEBIAN_CHROMIUM} is not installed` },
    () => {
      const ok = provision([], { NUDGER_CHROMIUM: DEBIAN_CHROMIUM });
      assert.equal(ok.stdout, `${DEBIAN_CHROMIUM}\n`);
      const refused = provision([], { NUDGER_CHROMIUM: '/bin/true' });
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /NUDGER_CHROMIUM=\/bin\/true is not a Chromium executable that runs/);
    },
  );

  it('--dry-run on a machine without Chromium says it would install the package, and changes nothing', () => {
    const result = provision(['--dry-run'], { NUDGER_CHROMIUM_PACKAGE_PATH: join(stubs, 'no-chromium') });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${join(stubs, 'no-chromium')}\n`);
    assert.match(result.stderr, /missing: chromium/);
    assert.match(result.stderr, /would run: apt-get install -y --no-install-recommends chromium/);
  });

  it('--dry-run without package lists or fonts updates the lists first and adds a font', () => {
    const result = provision(['--dry-run'], {
      NUDGER_CHROMIUM_PACKAGE_PATH: join(stubs, 'no-chromium'),
      PATH: emptyMachine(),
    });
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.deepEqual(lines, [
      'nudger chromium: missing: chromium fonts-dejavu-core',
      'nudger chromium: would run: apt-get update',
      'nudger chromium: would run: apt-get install -y --no-install-recommends chromium fonts-dejavu-core',
    ]);
  });

  it('refuses an unknown argument with exit 2', () => {
    const result = provision(['--install']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown argument '--install'/);
  });
});

describe('the browser tests and NUDGER_CHROMIUM', () => {
  it('skip with the provisioning command outside CI when it is unset', () => {
    const reason = browserSkip({});
    assert.ok(typeof reason === 'string');
    assert.match(reason, /NUDGER_CHROMIUM is unset.*scripts\/provision-chromium\.sh/);
  });

  it('run (and fail at launch, naming the variable) in CI when it is unset', () => {
    assert.equal(browserSkip({ CI: 'true' }), false);
    assert.throws(
      () => chromiumExecutable({ CI: 'true' }),
      (error: unknown) => {
        assert.ok(error instanceof BrowserUnavailableError);
        assert.match(error.message, /NUDGER_CHROMIUM is unset in CI.*provision-chromium\.sh/);
        return true;
      },
    );
  });

  it('run when it is set', () => {
    assert.equal(browserSkip({ NUDGER_CHROMIUM: DEBIAN_CHROMIUM }), false);
    assert.equal(chromiumExecutable({ NUDGER_CHROMIUM: DEBIAN_CHROMIUM }), DEBIAN_CHROMIUM);
  });
});
