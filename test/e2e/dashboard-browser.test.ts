// The dashboard in a real browser (issue 14, docs/decisions.md D14, N48): Debian's Chromium driven
// by playwright-core against the dashboard the manager serves in a sandbox environment (real
// control plane, the manager with its controllers and dispatcher, the stand-ins), logged in with
// the run's one-time token as `nudger sandbox --dashboard` prints it. What each view shows is
// checked against the cluster state read with the KubeClient; a ChangeGroup is followed live as
// builds arrive, without a reload; the graph is clicked through; hostile text renders as text;
// nothing is served without the token. One environment serves every Konflux case; the Korifi view
// has one of its own (the korifi controller group).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { CHANGE_GROUPS, COMPONENTS, NUDGE_CONFIGS, PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { CF_APPS, CF_BUILDS } from '../../src/adapters/kubernetes/korifi-resources.ts';
import { isTerminalPhase } from '../../src/domain/changegroup/model.ts';
import {
  BUILD_ENTRY,
  DISPATCH_MARKER_ANNOTATION,
  isSettled,
  parseMarker,
} from '../../src/domain/nudge/dispatch-marker.ts';
import { COMPONENT_LABEL } from '../../src/domain/nudge-pipelinerun.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import type { ChangeGroupStatus } from '../../src/schema/changegroup.ts';
import type { CFApp, CFBuild } from '../../src/schema/korifi.ts';
import { dashboardLoginUrl, newDashboardToken } from '../../src/sandbox/dashboard.ts';
import { startSandboxEnvironment, type SandboxEnvironment } from '../../src/sandbox/environment.ts';
import { startKorifiEnvironment, type KorifiEnvironment } from '../../src/sandbox/korifi/environment.ts';
import { playKorifiInEnvironment } from '../../src/sandbox/korifi/play.ts';
import { ScenarioPlayer } from '../../src/sandbox/play.ts';
import { loadScenarioFile } from '../../src/sandbox/scenario/load.ts';
import { checkScenarioDocument } from '../../src/sandbox/scenario/parse.ts';
import type { Scenario } from '../../src/sandbox/scenario/schema.ts';
import { eventually } from '../integration/wait.ts';
import { browserSkip, launchBrowser, type TestBrowser } from '../support/browser.ts';

const skip = browserSkip();
const EXAMPLES = fileURLToPath(new URL('../../examples/sandbox/', import.meta.url));

/** Generous limits for what the system and the page do on their own: failure detectors, not timings. */
const WAIT_MS = 60_000;

const LIVE = 'dash-live';
const HOSTILE_NS = 'dash-hostile';
const CHANGE_GROUP = 'bundle-x-update';
const OPERANDS = ['operand-a', 'operand-b', 'operand-c'] as const;
const digestOf = (component: string): string =>
  `sha256:${Buffer.from(component).toString('hex').padEnd(64, '0').slice(0, 64)}`;

/**
 * What an attacker who may edit a Component (or a PipelineRun's annotations) would write. If any
 * view inserted it as markup, the page would hold an element with an `on…` attribute, an `<img
 * src=x>` or a second script, and the CSP would report the inline code it refused.
 */
const HOSTILE = '<img src=x onerror=alert(1)>';
const HOSTILE_MARKER_TARGET = '<svg/onload=alert(2)>';

interface ChangeGroupObject extends KubeObject {
  status?: ChangeGroupStatus;
}

interface PipelineRunObject extends KubeObject {
  metadata: KubeObject['metadata'] & { name: string; annotations?: Record<string, string> };
}

/**
 * The little of the DOM the functions run in the page use: the project compiles without lib.dom,
 * and these functions run in Chromium, not in Node.
 */
interface DomElement {
  readonly tagName: string;
  readonly textContent: string | null;
  getAttributeNames(): string[];
}
interface PageGlobals {
  readonly document: {
    querySelector(selector: string): DomElement | null;
    querySelectorAll(selector: string): ArrayLike<DomElement & { readonly src?: string }>;
    addEventListener(type: string, listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
  };
  __cspViolations?: string[];
  __notReloaded?: boolean;
}

/** What the page reported that it must not: dialogs, CSP violations, script errors. */
interface Watched {
  readonly dialogs: string[];
  readonly console: string[];
  readonly errors: string[];
}

function watch(page: Page): Watched {
  const watched: Watched = { dialogs: [], console: [], errors: [] };
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) watched.console.push(message.text());
  });
  page.on('pageerror', (error) => {
    watched.errors.push(error.message);
  });
  return watched;
}

/** Registered before any page script runs: the page's own record of what the CSP refused. */
const RECORD_CSP_VIOLATIONS = (): void => {
  const page = globalThis as unknown as PageGlobals;
  page.__cspViolations = [];
  page.document.addEventListener('securitypolicyviolation', (event) => {
    page.__cspViolations?.push(`${event.violatedDirective} ${event.blockedURI}`);
  });
};

/** Elements or script a view must never have made from data. */
async function injected(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const { document, __cspViolations } = globalThis as unknown as PageGlobals;
    const found: string[] = [];
    for (const element of Array.from(document.querySelectorAll('*'))) {
      for (const attribute of element.getAttributeNames()) {
        if (/^on/i.test(attribute)) found.push(`<${element.tagName.toLowerCase()} ${attribute}>`);
      }
    }
    if (document.querySelector('img[src="x"]') !== null) found.push('<img src=x>');
    for (const script of Array.from(document.querySelectorAll('script'))) {
      if (!(script.src ?? '').endsWith('/assets/dashboard.js')) found.push(`<script>${script.textContent ?? ''}`);
    }
    for (const violation of __cspViolations ?? []) found.push(`CSP: ${violation}`);
    return found;
  });
}

async function mainText(page: Page): Promise<string> {
  return (await page.locator('main#view').textContent()) ?? '';
}

/** Waits until the view shows every one of `texts` (live updates or the first render). */
async function until(page: Page, what: string, texts: readonly string[]): Promise<void> {
  await page
    .waitForFunction(
      (wanted) => {
        const { document } = globalThis as unknown as PageGlobals;
        const text = document.querySelector('main#view')?.textContent ?? '';
        return wanted.every((w) => text.includes(w));
      },
      texts,
      { timeout: WAIT_MS, polling: 100 },
    )
    .catch(async (error: unknown) => {
      throw new Error(
        `${what}: the page never showed ${JSON.stringify(texts)}; it shows: ${(await mainText(page)).slice(0, 2000)}`,
        { cause: error },
      );
    });
}

function liveScenario(): Scenario {
  return checkScenarioDocument(
    {
      namespace: LIVE,
      components: [
        ...OPERANDS.map((name) => ({ name, image: `quay.io/org/${name}`, nudges: ['bundle-x'] })),
        {
          name: 'op-v',
          image: 'quay.io/org/op-v',
          nudges: [{ to: 'bundle-x', mode: 'validated', gatingGroup: 'ops' }],
        },
        { name: 'helper', image: 'quay.io/org/helper', nudges: ['bundle-x'] },
        { name: 'bundle-x', image: 'quay.io/org/bundle-x' },
      ],
      componentGroups: [{ name: 'ops', components: ['op-v'] }],
      changeGroups: [{ name: CHANGE_GROUP, nudgedComponent: 'bundle-x', nudgingComponents: [...OPERANDS] }],
      steps: [
        { build: 'op-v', digest: digestOf('op-v') },
        { build: 'helper', digest: digestOf('helper') },
        ...OPERANDS.map((name) => ({ build: name, digest: digestOf(name) })),
      ],
    },
    'dashboard-browser live',
  );
}

function hostileScenario(): Scenario {
  return checkScenarioDocument(
    {
      namespace: HOSTILE_NS,
      components: [
        { name: 'web', image: 'quay.io/org/web', nudges: ['api'] },
        { name: 'api', image: 'quay.io/org/api' },
      ],
    },
    'dashboard-browser hostile',
  );
}

async function changeGroupOf(env: SandboxEnvironment): Promise<ChangeGroupObject> {
  return env.client.get<ChangeGroupObject>(CHANGE_GROUPS, LIVE, CHANGE_GROUP);
}

/** Each component's newest push build that carries the dispatcher's marker, read from the cluster. */
async function newestMarkedBuilds(
  env: SandboxEnvironment,
  namespace: string,
): Promise<Map<string, { name: string; marker: string }>> {
  const runs = (await env.client.list<PipelineRunObject>(PIPELINE_RUNS, { namespace })).items;
  const newest = new Map<string, PipelineRunObject>();
  for (const run of runs) {
    const component = run.metadata.labels?.[COMPONENT_LABEL];
    if (component === undefined || run.metadata.annotations?.[DISPATCH_MARKER_ANNOTATION] === undefined) continue;
    const current = newest.get(component);
    if (current === undefined || (current.metadata.creationTimestamp ?? '') <= (run.metadata.creationTimestamp ?? ''))
      newest.set(component, run);
  }
  return new Map(
    [...newest].map(([component, run]) => [
      component,
      { name: run.metadata.name, marker: run.metadata.annotations?.[DISPATCH_MARKER_ANNOTATION] ?? '' },
    ]),
  );
}

describe('the dashboard in Chromium', { skip }, () => {
  const token = newDashboardToken();
  let env: SandboxEnvironment;
  let browser: TestBrowser;
  let origin: string;
  let page: Page;
  let watched: Watched;
  let live: ScenarioPlayer;
  /** Run after each build of the live scenario: the ChangeGroup test follows the page there. */
  let afterBuild: (component: string) => Promise<void> = () => Promise.resolve();

  before(async () => {
    env = await startSandboxEnvironment({
      logger: createLogger({ level: 'silent' }),
      dashboard: { port: 0, token },
    });
    const port = env.dashboardPort;
    assert.ok(port !== undefined, 'the manager serves the dashboard');
    origin = `http://127.0.0.1:${String(port)}`;
    browser = await launchBrowser();
    await browser.context.addInitScript(RECORD_CSP_VIOLATIONS);
    page = await browser.newPage();
    watched = watch(page);
    // Signed in as the printed URL signs in: the token for an HttpOnly session cookie, then the namespaces.
    const response = await page.goto(dashboardLoginUrl(port, token));
    assert.equal(response?.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/');

    live = new ScenarioPlayer(env, liveScenario(), {
      afterStep: async (step) => {
        if ('build' in step) await afterBuild(step.build);
      },
    });
    await live.setUp();
    const hostile = new ScenarioPlayer(env, hostileScenario());
    await hostile.setUp();
  });

  after(async () => {
    // Whatever before() got to start (it may have failed half-way).
    await (browser as TestBrowser | undefined)?.close();
    await (env as SandboxEnvironment | undefined)?.close();
  });

  it('refuses every request without the token: pages, events, the login with a wrong token', async () => {
    for (const path of ['/', `/ns/${LIVE}/graph`, `/ns/${LIVE}/changegroups/${CHANGE_GROUP}`, '/events?view=/']) {
      const response = await fetch(`${origin}${path}`, { redirect: 'manual' });
      assert.equal(response.status, 401, path);
      const body = await response.text();
      assert.doesNotMatch(body, new RegExp(LIVE), `${path} shows nothing of the cluster`);
    }
    const wrong = await fetch(`${origin}/login?token=${newDashboardToken()}`, { redirect: 'manual' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
    // A browser without the session cookie (a profile of its own) gets the refusal too.
    const stranger = await launchBrowser();
    try {
      const other = await stranger.newPage();
      const response = await other.goto(`${origin}/ns/${LIVE}/graph`);
      assert.equal(response?.status(), 401);
      assert.doesNotMatch((await other.textContent('body')) ?? '', /operand-a/);
    } finally {
      await stranger.close();
    }
  });

  it('sends the security headers on pages, refusals, assets and events', async () => {
    const cookie = (await browser.context.cookies(origin)).map((c) => `${c.name}=${c.value}`).join('; ');
    assert.notEqual(cookie, '');
    const responses = [
      await fetch(`${origin}/`, { headers: { cookie } }),
      await fetch(`${origin}/`),
      await fetch(`${origin}/assets/dashboard.js`),
      await fetch(`${origin}/nowhere`, { headers: { cookie } }),
    ];
    for (const response of responses) {
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/, response.url);
      assert.match(csp, /script-src 'self'(;|$)/, response.url);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, response.url);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', response.url);
      assert.equal(response.headers.get('x-frame-options'), 'DENY', response.url);
      await response.body?.cancel();
    }
    const controller = new AbortController();
    const events = await fetch(`${origin}/events?view=/`, { headers: { cookie }, signal: controller.signal });
    assert.equal(events.headers.get('content-type')?.split(';')[0], 'text/event-stream');
    assert.equal(events.headers.get('x-content-type-options'), 'nosniff');
    controller.abort();
  });

  it('follows a ChangeGroup live as builds arrive, without reloading the page', async () => {
    // The scenario plays to its end whatever the page does: the later cases read its builds.
    let opened: Error | undefined;
    try {
      await page.goto(`${origin}/ns/${LIVE}/changegroups/${CHANGE_GROUP}`);
      const initial = await changeGroupOf(env);
      await until(page, 'the ChangeGroup detail', [CHANGE_GROUP, initial.status?.phase ?? '']);
      await page.evaluate(() => {
        (globalThis as unknown as PageGlobals).__notReloaded = true;
      });
    } catch (error) {
      opened = error instanceof Error ? error : new Error(String(error));
    }
    const seen: string[] = [];
    const problems: Error[] = [];
    afterBuild = async (component) => {
      if (opened !== undefined || problems.length > 0 || !(OPERANDS as readonly string[]).includes(component)) return;
      try {
        // The cluster first: the controller has taken the build in.
        const status = await eventually(`${component} Ready in ${CHANGE_GROUP}`, async () => {
          const cg = await changeGroupOf(env);
          const entry = cg.status?.components?.find((c) => c.name === component);
          return entry?.state === 'Ready' && entry.newBuild === digestOf(component) ? cg.status : undefined;
        });
        // Then the page, by itself: the new digest (as shown, its first hex digits) and the phase.
        await until(page, `${component}'s build`, [digestOf(component).slice(7, 19), status.phase ?? '']);
        seen.push(component);
      } catch (error) {
        problems.push(error instanceof Error ? error : new Error(String(error)));
      }
    };
    try {
      await live.play();
    } finally {
      afterBuild = () => Promise.resolve();
    }
    if (opened !== undefined) throw opened;
    if (problems[0] !== undefined) throw problems[0];
    assert.deepEqual(seen, [...OPERANDS]);
    assert.equal(await page.evaluate(() => (globalThis as unknown as PageGlobals).__notReloaded), true);

    // Every component row against the status, and the pull request link.
    const cg = await changeGroupOf(env);
    const text = await mainText(page);
    for (const component of cg.status?.components ?? []) {
      assert.ok(text.includes(component.name), component.name);
      assert.ok(text.includes(component.state), `${component.name}: ${component.state}`);
      if (component.originalBuild !== undefined)
        assert.ok(text.includes(component.originalBuild.slice(7, 19)), `${component.name}: old digest`);
    }
    assert.equal(cg.status?.phase, 'Ready');
    assert.ok(text.includes('Ready'));
    const pullRequest = cg.status.pullRequest;
    assert.ok(pullRequest !== undefined, 'the ChangeGroup has its pull request');
    assert.ok(text.includes(pullRequest.url), pullRequest.url);
    assert.deepEqual(await injected(page), []);
  });

  it('lists the ChangeGroups with their phase, linking the detail', async () => {
    await page.goto(`${origin}/ns/${LIVE}/changegroups`);
    const cg = await changeGroupOf(env);
    await until(page, 'the ChangeGroups list', [CHANGE_GROUP, cg.status?.phase ?? '']);
    await page.locator(`main#view a[href="/ns/${LIVE}/changegroups/${CHANGE_GROUP}"]`).first().click();
    await page.waitForURL(`${origin}/ns/${LIVE}/changegroups/${CHANGE_GROUP}`);
    await until(page, 'the detail', [CHANGE_GROUP]);
  });

  it('shows each namespace with the counts the cluster has', async () => {
    await page.goto(`${origin}/`);
    for (const namespace of [LIVE, HOSTILE_NS]) {
      const components = (await env.client.list(COMPONENTS, { namespace })).items.length;
      const config = await env.client.get<KubeObject & { spec?: { nudges?: { from: string; to: string }[] } }>(
        NUDGE_CONFIGS,
        namespace,
        'nudge-config',
      );
      const componentObjects = (
        await env.client.list<KubeObject & { spec?: { 'build-nudges-ref'?: string[] } }>(COMPONENTS, { namespace })
      ).items;
      const edges = new Set([
        ...(config.spec?.nudges ?? []).map((n) => `${n.from}\n${n.to}`),
        ...componentObjects.flatMap((c) =>
          (c.spec?.['build-nudges-ref'] ?? []).map((to) => `${c.metadata?.name ?? ''}\n${to}`),
        ),
      ]).size;
      const changeGroups = (await env.client.list<ChangeGroupObject>(CHANGE_GROUPS, { namespace })).items;
      const active = changeGroups.filter((cg) => cg.status?.phase === undefined || !isTerminalPhase(cg.status.phase));
      let pullRequests = 0;
      for (const { marker } of (await newestMarkedBuilds(env, namespace)).values()) {
        const reading = parseMarker(marker);
        if (reading.ok)
          pullRequests += reading.marker.entries.filter(
            (e) => e.name !== BUILD_ENTRY && e.state.kind === 'pullRequest',
          ).length;
      }
      const row = page.locator('main#view tr', { has: page.locator(`a[href="/ns/${namespace}/graph"]`) });
      await row.waitFor({ timeout: WAIT_MS });
      const cells = (await row.locator('td').allTextContents()).map((cell) => cell.replace(/\s+/g, ' ').trim());
      assert.equal(cells[0], namespace);
      assert.equal(cells[2], String(components), `${namespace}: components`);
      assert.equal(cells[3], String(edges), `${namespace}: edges`);
      assert.match(cells[4] ?? '', new RegExp(`^${String(pullRequests)}\\b`), `${namespace}: nudge PRs`);
      assert.match(cells[5] ?? '', new RegExp(`^${String(active.length)} of ${String(changeGroups.length)}$`));
    }
    assert.deepEqual(await injected(page), []);
  });

  it('clicks through the graph: a node opens what its last build nudged', async () => {
    await page.goto(`${origin}/ns/${LIVE}/graph`);
    await page.locator('main#view svg').first().waitFor({ timeout: WAIT_MS });
    const builds = await newestMarkedBuilds(env, LIVE);
    for (const component of ['helper', 'operand-a']) {
      await page.locator(`main#view svg a[href$="component=${component}"]`).first().click();
      await page.waitForURL(`${origin}/ns/${LIVE}/graph?component=${component}`);
      const build = builds.get(component);
      assert.ok(build !== undefined, `${component} has a dispatched build`);
      const reading = parseMarker(build.marker);
      assert.ok(reading.ok);
      const targets = reading.marker.entries.map((entry) => entry.name);
      assert.ok(targets.length > 0);
      await until(page, `${component}'s side panel`, [build.name, ...targets]);
    }
    // The validated edge is drawn dashed and labelled with its gating group.
    const svg = await page.locator('main#view svg').first().innerHTML();
    assert.match(svg, /stroke-dasharray/);
    assert.ok(svg.includes('ops'));
    assert.deepEqual(await injected(page), []);
  });

  it('shows the nudges in flight: outcomes, held nudges, validated entries waiting', async () => {
    await page.goto(`${origin}/ns/${LIVE}/nudges`);
    const builds = await newestMarkedBuilds(env, LIVE);
    const expected: string[] = ['op-v', 'ops'];
    for (const [component, build] of builds) {
      const reading = parseMarker(build.marker);
      assert.ok(reading.ok, component);
      assert.ok(isSettled(reading.marker), component);
      expected.push(build.name, ...reading.marker.entries.map((entry) => entry.name));
    }
    await until(page, 'the nudges view', expected);
    assert.deepEqual(await injected(page), []);
  });

  it('renders hostile text as text in every view', async () => {
    // Component names are DNS-1123, but spec.build-nudges-ref items and annotations are free text.
    await env.client.patch(COMPONENTS, HOSTILE_NS, 'web', 'merge', { spec: { 'build-nudges-ref': [HOSTILE] } });
    // A build whose marker a human (or an attacker) wrote: unreadable, and quoted in the problem.
    const recorded = await env.konflux.recordBuild({ namespace: HOSTILE_NS, component: 'api', nudge: false });
    await env.client.patch(PIPELINE_RUNS, HOSTILE_NS, recorded.pipelineRun, 'merge', {
      metadata: { annotations: { [DISPATCH_MARKER_ANNOTATION]: `v1 ${HOSTILE_MARKER_TARGET}=pullRequest` } },
    });
    for (const path of [
      '/',
      `/ns/${HOSTILE_NS}/graph`,
      `/ns/${HOSTILE_NS}/graph?component=web`,
      `/ns/${HOSTILE_NS}/nudges`,
    ]) {
      await page.goto(`${origin}${path}`);
      await page.locator('main#view').waitFor();
      assert.deepEqual(await injected(page), [], path);
      if (path.includes('/graph')) await until(page, path, [HOSTILE]);
      // The marker's parser quotes what it refuses: the problem shows it, as text.
      if (path.endsWith('/nudges')) await until(page, path, [HOSTILE_MARKER_TARGET]);
    }
    assert.deepEqual(watched.dialogs, []);
    assert.deepEqual(watched.console, []);
    assert.deepEqual(watched.errors, []);
  });
});

describe('the Korifi view in Chromium', { skip }, () => {
  const token = newDashboardToken();
  let env: KorifiEnvironment;
  let browser: TestBrowser;
  let scenario: Scenario;

  before(async () => {
    scenario = await loadScenarioFile(join(EXAMPLES, 'korifi-lifecycles.yaml'));
    assert.ok(scenario.korifi !== undefined);
    env = await startKorifiEnvironment({
      logger: createLogger({ level: 'silent' }),
      clusterBuilder: scenario.korifi.clusterBuilder,
      dashboard: { port: 0, token },
    });
    browser = await launchBrowser();
  });

  after(async () => {
    await (browser as TestBrowser | undefined)?.close();
    await (env as KorifiEnvironment | undefined)?.close();
  });

  it("shows each app's current droplet, builder and readiness as the cluster has them", async () => {
    await playKorifiInEnvironment(env, scenario);
    const port = env.manager.dashboardPort;
    assert.ok(port !== undefined);
    const page = await browser.newPage();
    await page.goto(dashboardLoginUrl(port, token));
    await page.goto(`http://127.0.0.1:${String(port)}/korifi`);
    const apps = (await env.client.list<CFApp>(CF_APPS, { namespace: scenario.namespace })).items;
    const builds = (await env.client.list<CFBuild>(CF_BUILDS, { namespace: scenario.namespace })).items;
    assert.ok(apps.length > 0);
    const expected: string[] = [scenario.namespace];
    for (const app of apps) {
      expected.push(app.spec?.displayName ?? '');
      const current = app.spec?.currentDropletRef?.name;
      if (current !== undefined) {
        expected.push(current);
        const droplet = builds.find((b) => b.metadata?.name === current);
        assert.equal(droplet?.status?.state, 'STAGED');
      }
    }
    await until(page, 'the Korifi view', expected);
    assert.deepEqual(await injected(page), []);
  });
});
