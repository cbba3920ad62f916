// The sandbox's side of `nudger sandbox --dashboard` (docs/decisions.md D14): the run's token, the
// manager's settings, the printed URL, and the order of a run with the dashboard open. The real
// run (control plane, manager, browser) is in test/cli/sandbox-dashboard.test.ts and
// test/e2e/dashboard-browser.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  SandboxDashboardError,
  dashboardLoginUrl,
  managerDashboardOptions,
  newDashboardToken,
  withDashboard,
  type SandboxDashboardRun,
} from '../../src/sandbox/dashboard.ts';
import type { SandboxResult } from '../../src/sandbox/scenario/result.ts';

const RESULT: SandboxResult = { changeGroups: [], builds: {}, files: {}, pullRequests: [], nudges: [] };

function recordingRun(events: string[], hold: Promise<void> = Promise.resolve()): SandboxDashboardRun {
  return {
    port: 0,
    token: 'tok',
    onReady: (url) => events.push(`ready ${url}`),
    whileOpen: async (result) => {
      events.push(`open ${String(result === RESULT)}`);
      await hold;
      events.push('closed');
    },
  };
}

describe('the sandbox dashboard', () => {
  it('makes a new 32-byte base64url token for every run', () => {
    const tokens = new Set(Array.from({ length: 20 }, newDashboardToken));
    assert.equal(tokens.size, 20);
    for (const token of tokens) {
      assert.match(token, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(token, 'base64url').length, 32);
    }
  });

  it('asks the manager for a loopback dashboard with the token, on the given port', () => {
    assert.deepEqual(managerDashboardOptions({ port: 0, token: 't' }), {
      port: 0,
      host: '127.0.0.1',
      auth: { mode: 'token', token: 't' },
    });
    assert.equal(managerDashboardOptions({ port: 0, token: 't' }, 41000).port, 41000);
  });

  it('prints a loopback login URL carrying the token', () => {
    assert.equal(dashboardLoginUrl(8088, 'a-b_c'), 'http://127.0.0.1:8088/login?token=a-b_c');
    assert.equal(dashboardLoginUrl(1, 'a+b/c='), 'http://127.0.0.1:1/login?token=a%2Bb%2Fc%3D');
  });

  it('tells the URL before the play, and holds the result open after it', async () => {
    const events: string[] = [];
    let release = (): void => undefined;
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const run = withDashboard(recordingRun(events, hold), { dashboardPort: 40123 }, () => {
      events.push('play');
      return Promise.resolve(RESULT);
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(events, ['ready http://127.0.0.1:40123/login?token=tok', 'play', 'open true']);
    release();
    assert.equal(await run, RESULT);
    assert.deepEqual(events.at(-1), 'closed');
  });

  it('does not hold a failed play open', async () => {
    const events: string[] = [];
    await assert.rejects(
      withDashboard(recordingRun(events), { dashboardPort: 1 }, () => Promise.reject(new Error('settle failed'))),
      /settle failed/,
    );
    assert.deepEqual(events, ['ready http://127.0.0.1:1/login?token=tok']);
  });

  it('fails, before playing, when the manager serves no dashboard', async () => {
    const events: string[] = [];
    await assert.rejects(
      withDashboard(recordingRun(events), {}, () => {
        events.push('play');
        return Promise.resolve(RESULT);
      }),
      SandboxDashboardError,
    );
    assert.deepEqual(events, []);
  });

  it('plays as before without the dashboard', async () => {
    assert.equal(await withDashboard(undefined, {}, () => Promise.resolve(RESULT)), RESULT);
  });
});
