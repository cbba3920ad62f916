// Debian's Chromium driven by playwright-core for the dashboard's browser tests and screenshots
// (docs/decisions.md N48). `scripts/provision-chromium.sh` provides the executable and
// scripts/test.sh exports it as NUDGER_CHROMIUM:
//
//   const skip = browserSkip();
//   describe('…', { skip }, () => {
//     let browser: TestBrowser;
//     before(async () => { browser = await launchBrowser(); });
//     after(() => browser?.close());
//   });
//
// Each launch has a user-data directory of its own, removed by close(): no profile, cookie or
// cache is shared between launches or left behind.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * The flags every launch gets: headless; no sandbox (the tests run as root in containers, where
 * Chromium's setuid/namespace sandbox cannot start); no GPU; and nothing that reaches the network
 * on its own (QUIC, first-run, background networking, component updates, sync), so a test talks
 * to the dashboard on loopback and to nothing else.
 */
export const CHROMIUM_ARGS: readonly string[] = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]);

/** The page size of the browser tests and the screenshots. */
export const VIEWPORT = Object.freeze({ width: 1280, height: 800 });

const PROVISION_HINT =
  'run `export NUDGER_CHROMIUM="$(bash scripts/provision-chromium.sh)"` (scripts/test.sh does; docs/decisions.md N48)';

/** No browser to drive: NUDGER_CHROMIUM is unset (in CI, where that is a failure) or fails to launch. */
export class BrowserUnavailableError extends Error {
  override readonly name = 'BrowserUnavailableError';
}

function inCi(env: NodeJS.ProcessEnv): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
}

/**
 * The reason to skip the browser tests, or false to run them. Only outside CI: in CI an unset
 * NUDGER_CHROMIUM is not a reason to skip, the tests run and launchBrowser() fails naming it.
 */
export function browserSkip(env: NodeJS.ProcessEnv = process.env): string | false {
  if ((env.NUDGER_CHROMIUM ?? '') !== '' || inCi(env)) return false;
  return `NUDGER_CHROMIUM is unset, so the browser tests are skipped: ${PROVISION_HINT}`;
}

/** NUDGER_CHROMIUM; throws BrowserUnavailableError when it is unset. */
export function chromiumExecutable(env: NodeJS.ProcessEnv = process.env): string {
  const path = env.NUDGER_CHROMIUM ?? '';
  if (path === '') {
    throw new BrowserUnavailableError(
      `NUDGER_CHROMIUM is unset${inCi(env) ? ' in CI, where the browser tests must run' : ''}: ${PROVISION_HINT}`,
    );
  }
  return path;
}

export interface TestBrowser {
  /** The browser context: one fresh profile, the viewport above. */
  readonly context: BrowserContext;
  /** A new tab. */
  newPage(): Promise<Page>;
  /** Closes Chromium and removes its profile. Safe to call twice. */
  close(): Promise<void>;
}

/** Launches Chromium with a fresh temporary profile. */
export async function launchBrowser(options: { executablePath?: string } = {}): Promise<TestBrowser> {
  const executablePath = options.executablePath ?? chromiumExecutable();
  const userDataDir = await mkdtemp(join(tmpdir(), 'nudger-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS],
      viewport: VIEWPORT,
      // A browser that hangs at start fails the test instead of the suite's own timeout.
      timeout: 60_000,
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw new BrowserUnavailableError(
      `Chromium ${executablePath} did not start: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  let closed: Promise<void> | undefined;
  return {
    context,
    newPage: () => context.newPage(),
    close: () => {
      closed ??= (async () => {
        try {
          await context.close();
        } finally {
          await rm(userDataDir, { recursive: true, force: true });
        }
      })();
      return closed;
    },
  };
}

/** Runs `use` with a launched browser and closes it whatever happens. */
export async function withBrowser<T>(use: (browser: TestBrowser) => Promise<T>): Promise<T> {
  const browser = await launchBrowser();
  try {
    return await use(browser);
  } finally {
    await browser.close();
  }
}
