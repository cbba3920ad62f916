// The "nudges in flight" view (issue 14, docs/decisions.md D14): dispatcher outcomes from markers
// written by the marker's own writer, held nudges from the records the webhook and the dispatcher
// write, and the NudgeConfig's validated status; caps, ordering, and hostile values escaped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { namespaceNudgeGraph } from '../../../src/cluster/nudge-graph.ts';
import {
  HOLD_REASON_ANNOTATION,
  RELEASED_TARGETS_ANNOTATION,
  holdAnnotations,
} from '../../../src/domain/changegroup/hold-decision.ts';
import { decodePipelineRun } from '../../../src/domain/cluster-objects.ts';
import { MAX_HELD_ROWS, MAX_OUTCOME_BUILDS, nudgesView } from '../../../src/domain/dashboard/nudges-view.ts';
import type { NamespaceSnapshot, ViewContext } from '../../../src/domain/dashboard/inputs.ts';
import {
  COMPONENT_LABEL,
  NUDGED_COMPONENTS_ANNOTATION,
  NUDGE_TYPE_LABEL,
  NUDGE_TYPE_VALUE,
  NUDGING_COMPONENT_ANNOTATION,
  NUDGING_PIPELINE_ANNOTATION,
  PAC_EVENT_TYPE_KEY,
} from '../../../src/domain/nudge-pipelinerun.ts';
import { heldNudgeRecord } from '../../../src/domain/nudge/dispatch-held-record.ts';
import {
  DISPATCH_MARKER_ANNOTATION,
  serializeMarker,
  type MarkerEntry,
} from '../../../src/domain/nudge/dispatch-marker.ts';
import type { ClusterNudgeConfig, ValidatedNudgesStatus } from '../../../src/schema/nudgeconfig.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';

const NS = 'team-a';
const NOW = Date.parse('2026-01-15T12:00:00Z');
const CONTEXT: ViewContext = { now: NOW, korifi: false };
const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';

function at(minutes: number): string {
  return new Date(Date.parse('2026-01-15T10:00:00Z') + minutes * 60_000).toISOString().replace('.000Z', 'Z');
}

function marker(entries: readonly MarkerEntry[]): string {
  return serializeMarker({ entries });
}

interface BuildOptions {
  readonly marker?: string;
  readonly minute?: number;
  readonly succeeded?: 'True' | 'False' | 'Unknown';
  readonly component?: string;
}

/** A push build PipelineRun as the informer holds it (decoded). */
function build(name: string, options: BuildOptions = {}): PipelineRun {
  const minute = options.minute ?? 0;
  const succeeded = options.succeeded ?? 'True';
  const decoded = decodePipelineRun({
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      creationTimestamp: at(minute),
      labels: { [COMPONENT_LABEL]: options.component ?? 'api', [PAC_EVENT_TYPE_KEY]: 'push' },
      annotations: options.marker === undefined ? {} : { [DISPATCH_MARKER_ANNOTATION]: options.marker },
    },
    spec: {},
    status: {
      conditions: [{ type: 'Succeeded', status: succeeded, reason: succeeded === 'True' ? 'Succeeded' : 'Running' }],
      ...(succeeded === 'Unknown' ? {} : { completionTime: at(minute + 5) }),
    },
  });
  assert.ok(decoded.ok);
  return decoded.object;
}

/** A nudge PipelineRun from its metadata (a held-nudge record, or a run cancelled at admission). */
function nudgeRun(name: string, annotations: Record<string, string>, cancelled = true): PipelineRun {
  const decoded = decodePipelineRun({
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: { name, namespace: NS, labels: { [NUDGE_TYPE_LABEL]: NUDGE_TYPE_VALUE }, annotations },
    spec: cancelled ? { status: 'Cancelled' } : {},
  });
  assert.ok(decoded.ok);
  return decoded.object;
}

function nudgeConfig(
  nudges: readonly { from: string; to: string; mode?: 'immediate' | 'validated'; gatingGroup?: string }[],
  validatedNudges?: ValidatedNudgesStatus,
): ClusterNudgeConfig {
  return {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: NS },
    spec: { nudges: [...nudges] },
    ...(validatedNudges === undefined ? {} : { status: { validatedNudges } }),
  };
}

function snapshot(parts: Partial<Omit<NamespaceSnapshot, 'graph' | 'namespace'>> = {}): NamespaceSnapshot {
  const components = parts.components ?? [];
  const config = 'nudgeConfig' in parts ? parts.nudgeConfig : nudgeConfig([{ from: 'api', to: 'web' }]);
  return {
    namespace: NS,
    components,
    nudgeConfig: config,
    graph: namespaceNudgeGraph(NS, { components, nudgeConfig: config }),
    changeGroups: [],
    buildRuns: [],
    nudgeRuns: [],
    ...parts,
  };
}

/**
 * Whitespace-free around tags, so tests do not depend on how the templates are laid out: escaped
 * text holds no raw `<` or `>`, so only markup is touched.
 */
function tight(page: string): string {
  return page.replace(/\s+/g, ' ').replace(/ ?([<>]) ?/g, '$1');
}

function render(parts: Partial<Omit<NamespaceSnapshot, 'graph' | 'namespace'>> = {}, context = CONTEXT): string {
  return tight(nudgesView(snapshot(parts), context).text);
}

/** The (first) `<tr>` holding every one of `needles`. */
function rowWith(page: string, ...needles: readonly string[]): string {
  const row = page
    .split('<tr>')
    .find((part) => needles.every((needle) => part.slice(0, part.indexOf('</tr>')).includes(needle)));
  assert.ok(row !== undefined, `no row with ${needles.join(' and ')}`);
  return row.slice(0, row.indexOf('</tr>'));
}

/** The section whose heading is `heading`. */
function section(page: string, heading: string): string {
  const start = page.indexOf(`<h2>${heading}</h2>`);
  assert.ok(start >= 0, `no section ${heading}`);
  const end = page.indexOf('</section>', start);
  return page.slice(start, end);
}

/** No tag but ours: escaped text has no `<`, so every `<...>` is markup the view wrote. */
function assertInert(page: string): void {
  for (const tag of page.match(/<[^>]*>/g) ?? []) {
    // Values are escaped (no raw `"`), so without the quoted values only attribute names are left.
    const names = tag.replace(/"[^"]*"/g, '""');
    assert.doesNotMatch(names, /^<\/?(script|img|iframe|object|embed)\b/i, tag);
    assert.doesNotMatch(names, /\s(on[a-z]+|style)\s*=/i, tag);
    assert.doesNotMatch(tag, /(href|src)\s*=\s*"\s*javascript:/i, tag);
  }
}

const EVERY_STATE: MarkerEntry[] = [
  { name: 'a-pr', state: { kind: 'pullRequest' } },
  { name: 'b-held', state: { kind: 'held', changeGroup: 'cg-b' } },
  { name: 'c-failed', state: { kind: 'failed', reason: 'forge-refused' } },
  { name: 'd-skipped', state: { kind: 'skipped', reason: 'target-not-found' } },
  { name: 'e-holding', state: { kind: 'holding', changeGroup: 'cg-e' } },
  { name: 'f-firing', state: { kind: 'firing', attempt: 2, startedAt: Date.parse('2026-01-15T11:58:00Z') } },
  {
    name: 'g-retry',
    state: { kind: 'retry', failures: 3, notBefore: Date.parse('2026-01-15T12:04:00Z'), reason: 'rate-limited' },
  },
];

describe('nudgesView: recent dispatcher outcomes', () => {
  it('shows every marker state, one row per (build, target), with the reason', () => {
    const page = section(
      render({ buildRuns: [build('api-on-push-1', { marker: marker(EVERY_STATE) })] }),
      'Recent dispatcher outcomes',
    );
    const first = rowWith(page, 'a-pr');
    assert.match(first, /rowspan="7"[^>]*>api-on-push-1/);
    assert.match(first, /href="\/ns\/team-a\/graph\?component=api">api<\/a>/);
    assert.match(first, /pull request/);
    assert.match(rowWith(page, 'b-held'), /held by<\/span><a href="\/ns\/team-a\/changegroups\/cg-b">cg-b<\/a>/);
    const failed = rowWith(page, 'c-failed');
    assert.match(failed, /failed/);
    assert.match(failed, /<code>forge-refused<\/code>/);
    assert.match(
      rowWith(page, 'd-skipped'),
      /skipped[\s\S]*<code>target-not-found<\/code>: Component d-skipped does not exist/,
    );
    const holding = rowWith(page, 'e-holding');
    assert.match(holding, /being held by<\/span><a href="\/ns\/team-a\/changegroups\/cg-e">cg-e<\/a>/);
    assert.match(holding, /record being created/);
    assert.match(
      rowWith(page, 'f-firing'),
      /firing attempt 2<\/span>, started<time datetime="2026-01-15T11:58:00Z">2026-01-15 11:58:00Z<\/time>/,
    );
    const retry = rowWith(page, 'g-retry');
    assert.match(retry, /retry after 3 failures<\/span>, next not before<time datetime="2026-01-15T12:04:00Z">/);
    assert.match(retry, /<code>rate-limited<\/code>/);
    assert.doesNotMatch(retry, /\(due\)/);
    // Seven rows, one per target.
    assert.equal(page.split('<tr>').length - 2, 7);
  });

  it('says a retry is due once its time has come', () => {
    const page = nudgesView(snapshot({ buildRuns: [build('b1', { marker: marker(EVERY_STATE) })] }), {
      now: Date.parse('2026-01-15T12:04:00Z'),
      korifi: false,
    }).text;
    assert.match(rowWith(page, 'g-retry'), /\(due\)/);
  });

  it('shows the build-wide entry and what its reason means', () => {
    const page = render({
      buildRuns: [
        build('b1', { marker: marker([{ name: '*', state: { kind: 'skipped', reason: 'nudgeconfig-removed' } }]) }),
      ],
    });
    const row = rowWith(page, 'b1');
    assert.match(row, /<em>the whole build<\/em>/);
    assert.match(row, /<code>nudgeconfig-removed<\/code>: the namespace no longer has a NudgeConfig/);
  });

  it('shows an unreadable marker as the parser names it, never as nothing done', () => {
    const page = render({ buildRuns: [build('b1', { marker: `v1 web=pullRequest ${SCRIPT}` })] });
    const row = rowWith(page, 'b1');
    assert.match(row, /unreadable marker/);
    assert.match(
      row,
      /nudger\.konflux-ci\.dev\/nudges: entry 2 &quot;&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot; is not &lt;target&gt;=&lt;state&gt;/,
    );
    assert.doesNotMatch(row, /pull request/);
    const version = rowWith(render({ buildRuns: [build('b2', { marker: 'v9 web=pullRequest' })] }), 'b2');
    assert.match(version, /starts with &quot;v9&quot;, not the version v1/);
    assertInert(page);
  });

  it('says a finished build without a marker waits for the dispatcher; running or targetless builds are left out', () => {
    const page = render({
      buildRuns: [
        build('finished-1', { minute: 1 }),
        build('failed-1', { minute: 2, succeeded: 'False' }),
        build('running-1', { minute: 3, succeeded: 'Unknown' }),
        build('lonely-1', { minute: 4, component: 'web' }),
      ],
    });
    const finished = rowWith(page, 'finished-1');
    assert.match(finished, /waiting for the dispatcher/);
    assert.match(finished, /<td class="mono">web<\/td>/);
    assert.match(rowWith(page, 'failed-1'), /waiting for the dispatcher[\s\S]*build failed/);
    assert.doesNotMatch(page, /running-1/);
    assert.doesNotMatch(page, /lonely-1/);
  });

  it('does not say a build waits when it finished before the NudgeConfig existed (the dispatcher leaves it)', () => {
    const config = nudgeConfig([{ from: 'api', to: 'web' }]);
    const created = { ...config, metadata: { ...config.metadata, creationTimestamp: at(30) } };
    const page = render({
      nudgeConfig: created,
      buildRuns: [build('before-1', { minute: 1 }), build('after-1', { minute: 40 })],
    });
    assert.doesNotMatch(page, /before-1/);
    assert.match(rowWith(page, 'after-1'), /waiting for the dispatcher/);
  });

  it('lists the newest builds first and caps them, saying how many were left out', () => {
    const total = MAX_OUTCOME_BUILDS + 5;
    const runs = Array.from({ length: total }, (_, index) =>
      build(`api-build-${String(index).padStart(3, '0')}`, {
        minute: index,
        marker: marker([{ name: 'web', state: { kind: 'pullRequest' } }]),
      }),
    );
    const page = render({ buildRuns: [...runs].reverse() });
    assert.match(page, /5 more builds not shown\./);
    for (const index of [0, 1, 2, 3, 4]) assert.doesNotMatch(page, new RegExp(`api-build-00${index}<`));
    assert.match(page, /api-build-005</);
    const newest = page.indexOf(`api-build-${String(total - 1).padStart(3, '0')}`);
    const next = page.indexOf(`api-build-${String(total - 2).padStart(3, '0')}`);
    assert.ok(newest >= 0 && newest < next);
    assert.equal(page.match(/<tr>/g)?.length, MAX_OUTCOME_BUILDS + 1, 'the header row and one row per build');
  });

  it('renders the same HTML whatever order the caches list objects in', () => {
    const runs = [
      build('x1', { minute: 1, marker: marker(EVERY_STATE) }),
      build('x2', { minute: 1, marker: marker([{ name: 'web', state: { kind: 'pullRequest' } }]) }),
      build('x3', { minute: 3 }),
    ];
    assert.equal(render({ buildRuns: runs }), render({ buildRuns: [...runs].reverse() }));
  });
});

describe('nudgesView: held nudges', () => {
  const webhookHeld = nudgeRun('api-nudge-7xk', {
    [NUDGING_COMPONENT_ANNOTATION]: 'api',
    [NUDGED_COMPONENTS_ANNOTATION]: 'web bundle',
    [NUDGING_PIPELINE_ANNOTATION]: 'api-on-push-1',
    ...holdAnnotations(
      { namespace: NS, nudgingComponent: 'api', nudgedComponents: ['web', 'bundle'] },
      [
        { changeGroup: 'cg-bundle', target: 'bundle' },
        { changeGroup: 'cg-web', target: 'web' },
      ],
      [],
    ),
    [RELEASED_TARGETS_ANNOTATION]: 'bundle=cg-bundle',
  });
  const buildIdentity = { namespace: NS, name: 'db-on-push-2', uid: 'uid-db-on-push-2' };
  const record = heldNudgeRecord(buildIdentity, 'db', 'web', 'cg-web', 'quay.io/org/db:abc');
  const dispatcherRecord = nudgeRun(record.name, { ...record.annotations });
  const dbBuild = build('db-on-push-2', {
    component: 'db',
    minute: 9,
    marker: marker([
      { name: 'queue', state: { kind: 'holding', changeGroup: 'cg-queue' } },
      { name: 'web', state: { kind: 'held', changeGroup: 'cg-web' } },
    ]),
  });

  it('lists holds of admission-cancelled runs and of dispatcher records, linked to their ChangeGroup', () => {
    const page = section(render({ nudgeRuns: [dispatcherRecord, webhookHeld], buildRuns: [dbBuild] }), 'Held nudges');
    const web = rowWith(page, 'api-nudge-7xk', '>cg-web</a>');
    assert.match(web, /nudge PipelineRun cancelled at admission/);
    assert.match(web, /<a href="\/ns\/team-a\/changegroups\/cg-web">cg-web<\/a>/);
    assert.match(web, /<td class="mono">web<\/td>/);
    assert.match(web, /api-on-push-1/);
    assert.match(web, /cancelled by ChangeGroup cg-bundle, cg-web: the nudge of bundle, web from api/);
    const released = rowWith(page, 'cg-bundle</a>');
    assert.match(released, /released: handed back to ordinary nudging/);
    const fromDispatcher = rowWith(page, `${record.name}</span>`);
    assert.match(fromDispatcher, /held-nudge record \(dispatcher\)/);
    assert.match(fromDispatcher, /db-on-push-2/);
    assert.match(fromDispatcher, />held</);
    // The marker's held:cg-web entry is the same hold as the record: one row, not two.
    const dbWebRows = page.split('<tr>').filter((row) => row.includes('>cg-web</a>') && row.includes('component=db"'));
    assert.equal(dbWebRows.length, 1);
    const holding = rowWith(page, 'cg-queue</a>');
    assert.match(holding, /holding: the held-nudge record is being created/);
  });

  it('says when a held entry has lost its record', () => {
    const page = section(render({ buildRuns: [dbBuild] }), 'Held nudges');
    assert.match(rowWith(page, 'cg-web</a>'), /held; its held-nudge record is gone/);
  });

  it('caps the list and says how many were left out', () => {
    const runs = Array.from({ length: MAX_HELD_ROWS + 3 }, (_, index) =>
      nudgeRun(`run-${String(index).padStart(3, '0')}`, {
        [NUDGING_COMPONENT_ANNOTATION]: 'api',
        [NUDGED_COMPONENTS_ANNOTATION]: 'web',
        [NUDGING_PIPELINE_ANNOTATION]: `api-${String(index).padStart(3, '0')}`,
        ...holdAnnotations(
          { namespace: NS, nudgingComponent: 'api', nudgedComponents: ['web'] },
          [{ changeGroup: 'cg-web', target: 'web' }],
          [],
        ),
      }),
    );
    const page = section(render({ nudgeRuns: runs }), 'Held nudges');
    assert.match(page, /3 more held nudges not shown\./);
    assert.equal(page.match(/<tr>/g)?.length, MAX_HELD_ROWS + 1);
  });

  it('says so when nothing is held', () => {
    assert.match(section(render(), 'Held nudges'), /No nudge is held by a ChangeGroup\./);
  });
});

describe('nudgesView: validated entries', () => {
  const status: ValidatedNudgesStatus = {
    entries: 7,
    waiting: 6,
    gatingGroups: 3,
    groups: [
      {
        gatingGroup: 'group-a',
        entries: 5,
        targets: 2,
        waiting: 5,
        waitingEntries: ['api -> web', 'db -> web'],
        lastPassingSnapshot: { name: 'snapshot-a-1', startTime: Date.parse('2026-01-15T09:00:00Z') / 1000 },
        lastNudgeTime: '2026-01-15T09:30:00Z',
      },
      { gatingGroup: 'group-b', entries: 1, targets: 1, waiting: 1 },
    ],
  };

  it('shows each listed group, its waiting entries and last pass, and counts what the status leaves out', () => {
    const page = section(
      render({
        nudgeConfig: nudgeConfig([{ from: 'api', to: 'web', mode: 'validated', gatingGroup: 'group-a' }], status),
      }),
      'Validated entries waiting on their gating group',
    );
    assert.match(page, /7 validated entries in 3 gating groups; 6 waiting/);
    const a = rowWith(page, 'group-a');
    assert.match(a, /<td class="num">5<\/td>\s*<td class="num">2<\/td>/);
    assert.match(a, /<li>api -&gt; web<\/li>\s*<li>db -&gt; web<\/li>/);
    assert.match(a, /and 3 more/);
    assert.match(a, /snapshot-a-1<\/span><br \/><span class="muted">started<time datetime="2026-01-15T09:00:00Z">/);
    assert.match(a, /<time datetime="2026-01-15T09:30:00Z">/);
    const b = rowWith(page, 'group-b');
    assert.match(b, /none yet/);
    assert.doesNotMatch(b, /more/);
    assert.match(page, /1 more gating group not listed in the status/);
  });

  it('says when there is no NudgeConfig or no validated status', () => {
    assert.match(render({ nudgeConfig: undefined }), /This namespace has no NudgeConfig\./);
    assert.match(render(), /No validated entry with a gating group/);
  });
});

describe('nudgesView: hostile values', () => {
  it('escapes names, reasons and messages wherever they appear', () => {
    const reason = `held by "cg" & <b>friends</b> ${IMG}`;
    const page = render({
      buildRuns: [
        build(SCRIPT, { component: IMG, marker: marker([{ name: 'web', state: { kind: 'pullRequest' } }]) }),
        build(`${IMG}-2`, { component: SCRIPT }),
      ],
      nudgeRuns: [
        nudgeRun(IMG, {
          [NUDGING_COMPONENT_ANNOTATION]: SCRIPT,
          [NUDGED_COMPONENTS_ANNOTATION]: 'web',
          [NUDGING_PIPELINE_ANNOTATION]: IMG,
          'nudger.konflux-ci.dev/held-targets': `web=${SCRIPT} x=javascript:alert(1) ${IMG}`,
          [HOLD_REASON_ANNOTATION]: reason,
        }),
      ],
      nudgeConfig: nudgeConfig([{ from: 'api', to: 'web' }], {
        entries: 1,
        waiting: 1,
        gatingGroups: 1,
        groups: [
          {
            gatingGroup: SCRIPT,
            entries: 1,
            targets: 1,
            waiting: 1,
            waitingEntries: [IMG],
            lastPassingSnapshot: { name: `${SCRIPT} & "x"` },
            lastNudgeTime: IMG,
          },
        ],
      }),
    });
    assertInert(page);
    assert.match(page, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(page, /&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.match(page, /held by &quot;cg&quot; &amp; &lt;b&gt;friends&lt;\/b&gt;/);
    assert.match(page, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;x&quot;/);
    // A ChangeGroup name becomes one percent-encoded path segment of a link, never markup or a scheme.
    assert.match(page, /href="\/ns\/team-a\/changegroups\/%3Cscript%3Ealert\(1\)%3C%2Fscript%3E"/);
    assert.match(page, /href="\/ns\/team-a\/changegroups\/javascript%3Aalert\(1\)"/);
    assert.match(page, /href="\/ns\/team-a\/graph\?component=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert\(1\)%3E"/);
  });
});
