// `npm run screenshots`: a PNG of each dashboard view (docs/dashboard.md, README) from a real run.
// Plays a small sandbox scenario with the dashboard on (a ChangeGroup half-way, a validated entry
// waiting for its gating group, a nudge pull request), then a Korifi example in an environment of
// its own, and photographs each view in Debian's Chromium (docs/decisions.md N48) at 1280×800 into
// docs/images/dashboard-<view>.png. Not a test: it checks nothing, it only shows.
//
//   npm run screenshots [-- --out <dir>]
//
// Needs what `nudger sandbox` needs (the control plane, the registry for Korifi) and Chromium:
// NUDGER_CHROMIUM, else whatever scripts/provision-chromium.sh prints.
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { createLogger } from '../src/runtime/logger.ts';
import { dashboardLoginUrl, newDashboardToken } from '../src/sandbox/dashboard.ts';
import { startSandboxEnvironment } from '../src/sandbox/environment.ts';
import { startKorifiEnvironment } from '../src/sandbox/korifi/environment.ts';
import { playKorifiInEnvironment } from '../src/sandbox/korifi/play.ts';
import { ScenarioPlayer } from '../src/sandbox/play.ts';
import { loadScenarioFile } from '../src/sandbox/scenario/load.ts';
import { checkScenarioDocument } from '../src/sandbox/scenario/parse.ts';
import { launchBrowser, type TestBrowser } from '../test/support/browser.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NAMESPACE = 'team-bundle';
const CHANGE_GROUP = 'bundle-update';

/**
 * Operands nudging an OLM bundle: three collected by a ChangeGroup, two gated by their group's
 * tests; beside it, examples/sandbox/happy-path.yaml played to the end (a merged ChangeGroup).
 */
const SCENARIO = {
  namespace: NAMESPACE,
  components: [
    ...['operand-a', 'operand-b', 'operand-c'].map((name) => ({
      name,
      image: `quay.io/team/${name}`,
      nudges: ['bundle'],
    })),
    ...['gated-d', 'gated-e'].map((name) => ({
      name,
      image: `quay.io/team/${name}`,
      nudges: [{ to: 'bundle', mode: 'validated', gatingGroup: 'gated' }],
    })),
    { name: 'base-image', image: 'quay.io/team/base-image', nudges: ['operand-a', 'operand-b', 'operand-c'] },
    { name: 'docs', image: 'quay.io/team/docs', nudges: ['bundle'] },
    { name: 'bundle', image: 'quay.io/team/bundle' },
  ],
  componentGroups: [{ name: 'gated', components: ['gated-d', 'gated-e'] }],
  changeGroups: [
    { name: CHANGE_GROUP, nudgedComponent: 'bundle', nudgingComponents: ['operand-a', 'operand-b', 'operand-c'] },
    { name: 'operand-a-base', nudgedComponent: 'operand-a', timeout: '24h' },
  ],
  steps: [
    { build: 'docs' },
    { build: 'gated-d' },
    { snapshot: { group: 'gated', passed: true } },
    { build: 'gated-e' },
    { build: 'operand-a' },
    { build: 'operand-b' },
  ],
};

function chromium(): string {
  const given = process.env.NUDGER_CHROMIUM ?? '';
  if (given !== '') return given;
  return execFileSync('bash', [join(ROOT, 'scripts', 'provision-chromium.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

async function shoot(page: Page, url: string, file: string): Promise<void> {
  await page.goto(url);
  await page.locator('main#view').waitFor();
  // The graph is laid out on the server; fonts are the system's: nothing more to wait for.
  await page.screenshot({ path: file, fullPage: false });
  console.error(`wrote ${file}`);
}

async function signedIn(browser: TestBrowser, port: number, token: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(dashboardLoginUrl(port, token));
  return page;
}

async function konfluxViews(browser: TestBrowser, out: string): Promise<void> {
  const token = newDashboardToken();
  const env = await startSandboxEnvironment({
    logger: createLogger({ level: 'error', destination: process.stderr }),
    dashboard: { port: 0, token },
  });
  try {
    for (const scenario of [
      checkScenarioDocument(SCENARIO, 'screenshots'),
      await loadScenarioFile(join(ROOT, 'examples', 'sandbox', 'happy-path.yaml')),
    ]) {
      const player = new ScenarioPlayer(env, scenario);
      await player.setUp();
      await player.play();
    }
    const port = env.dashboardPort;
    if (port === undefined) throw new Error('the sandbox serves no dashboard');
    const origin = `http://127.0.0.1:${String(port)}`;
    const page = await signedIn(browser, port, token);
    await shoot(page, `${origin}/`, join(out, 'dashboard-namespaces.png'));
    await shoot(page, `${origin}/ns/${NAMESPACE}/graph?component=operand-a`, join(out, 'dashboard-graph.png'));
    await shoot(page, `${origin}/ns/${NAMESPACE}/changegroups`, join(out, 'dashboard-changegroups.png'));
    await shoot(page, `${origin}/ns/${NAMESPACE}/changegroups/${CHANGE_GROUP}`, join(out, 'dashboard-changegroup.png'));
    await shoot(page, `${origin}/ns/${NAMESPACE}/nudges`, join(out, 'dashboard-nudges.png'));
  } finally {
    await env.close();
  }
}

async function korifiView(browser: TestBrowser, out: string): Promise<void> {
  const scenario = await loadScenarioFile(join(ROOT, 'examples', 'sandbox', 'korifi-stack-update.yaml'));
  if (scenario.korifi === undefined) throw new Error('korifi-stack-update.yaml is not a Korifi scenario');
  const token = newDashboardToken();
  const env = await startKorifiEnvironment({
    logger: createLogger({ level: 'error', destination: process.stderr }),
    clusterBuilder: scenario.korifi.clusterBuilder,
    dashboard: { port: 0, token },
  });
  try {
    await playKorifiInEnvironment(env, scenario);
    const port = env.manager.dashboardPort;
    if (port === undefined) throw new Error('the Korifi sandbox serves no dashboard');
    const page = await signedIn(browser, port, token);
    await shoot(page, `http://127.0.0.1:${String(port)}/korifi`, join(out, 'dashboard-korifi.png'));
  } finally {
    await env.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: join(ROOT, 'docs', 'images') } } });
  const out = values.out;
  await mkdir(out, { recursive: true });
  const browser = await launchBrowser({ executablePath: chromium() });
  try {
    await konfluxViews(browser, out);
    await korifiView(browser, out);
  } finally {
    await browser.close();
  }
}

await main();
