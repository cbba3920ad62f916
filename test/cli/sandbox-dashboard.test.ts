// `nudger sandbox --dashboard` (docs/sandbox.md, docs/decisions.md D14) as a user runs it: a real
// process on a real control plane. The dashboard URL, with a fresh token, is on stderr before the
// scenario plays; the token logs in; the result is printed as without the flag; then the process
// serves until SIGINT, and exits 0 with nothing left listening.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { repoRoot, runCli } from './run-cli.ts';

const MAIN = join(repoRoot, 'src', 'cli', 'main.ts');
const SCENARIO = join(repoRoot, 'examples', 'sandbox', 'happy-path.yaml');
const URL_LINE = /^dashboard: (http:\/\/127\.0\.0\.1:(\d+))\/login\?token=([A-Za-z0-9_-]{43})$/;

describe('nudger sandbox --dashboard: usage', () => {
  it('refuses --dashboard-port without --dashboard, naming both', async () => {
    const result = await runCli(['sandbox', '--dashboard-port', '8088', '--scenario', SCENARIO]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--dashboard-port goes with --dashboard/);
  });

  it('refuses a --dashboard-port that is not a port number', async () => {
    for (const port of ['http', '-1', '65536', '1.5']) {
      const result = await runCli(['sandbox', '--dashboard', '--dashboard-port', port, '--scenario', SCENARIO]);
      assert.equal(result.code, 2, port);
      assert.match(result.stderr, new RegExp(`--dashboard-port: "${port.replace('.', '\\.')}" is not a port number`));
    }
  });
});

/** Lines of a child's stream, one promise per awaited pattern. */
class Lines {
  readonly all: string[] = [];
  readonly #waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  constructor(stream: NodeJS.ReadableStream) {
    createInterface({ input: stream }).on('line', (line) => {
      this.all.push(line);
      for (const waiter of this.#waiters.splice(0)) {
        if (waiter.pattern.test(line)) waiter.resolve(line);
        else this.#waiters.push(waiter);
      }
    });
  }
  next(pattern: RegExp): Promise<string> {
    const seen = this.all.find((line) => pattern.test(line));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ pattern, resolve }));
  }
}

describe('nudger sandbox --dashboard: a run', () => {
  it('prints the URL before playing, serves the views with the token only, prints the result, and exits 0 on SIGINT', async () => {
    const child = spawn(process.execPath, [MAIN, 'sandbox', '--dashboard', '--scenario', SCENARIO], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => {
      child.on('exit', (code) => {
        resolve(code);
      });
    });
    const stdout = new Lines(child.stdout);
    const stderr = new Lines(child.stderr);
    // A line on stderr, or a failure naming what the process said when it exits first.
    const until = (pattern: RegExp): Promise<string> =>
      Promise.race([
        stderr.next(pattern),
        exited.then((code) => {
          throw new Error(`exited ${String(code)} before printing ${String(pattern)}: ${stderr.all.join('\n')}`);
        }),
      ]);
    try {
      const line = await until(URL_LINE);
      const [, origin = '', , token = ''] = URL_LINE.exec(line) ?? [];
      // Before playing: nothing of the result is on stdout yet (it starts with the ChangeGroup).
      assert.deepEqual(stdout.all, []);

      const refused = await fetch(`${origin}/`, { redirect: 'manual' });
      assert.ok([401, 302, 303].includes(refused.status), `without the token: ${String(refused.status)}`);
      const wrong = await fetch(`${origin}/login?token=${'A'.repeat(43)}`, { redirect: 'manual' });
      assert.equal(wrong.headers.get('set-cookie'), null, 'a wrong token gets no session');

      const login = await fetch(`${origin}/login?token=${token}`, { redirect: 'manual' });
      const cookie = login.headers.get('set-cookie')?.split(';')[0];
      assert.ok(cookie !== undefined, `login answered ${String(login.status)} without a session cookie`);

      // The result as without the flag, then the hold.
      await until(/^dashboard: the scenario has played; serving until Ctrl-C$/);
      assert.match(stdout.all.join('\n'), /bundle-x-update/);
      const page = await fetch(`${origin}/`, { headers: { cookie } });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /href="\/ns\/my-tenant\/graph"/);

      child.kill('SIGINT');
      assert.equal(await exited, 0, stderr.all.join('\n'));
      await assert.rejects(fetch(`${origin}/`), 'nothing listens after the exit');
    } finally {
      // A failed assertion: the same shutdown, and SIGKILL only if it does not come.
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => {
          child.kill('SIGKILL');
        }, 30_000);
        await exited;
        clearTimeout(killer);
      }
    }
  });
});
