// status.validatedNudges (issue 11, docs/decisions.md D10): which validated entries wait on which
// gating group, and the last pass used; bounded whatever the spec holds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildNamespaceGraph, type NamespaceGraph } from '../../../src/domain/graph.ts';
import { objectDecoder } from '../../../src/domain/schema-validation.ts';
import type { NudgedDigest, ValidatedRecord } from '../../../src/domain/nudge/validated-record.ts';
import {
  sameValidatedNudgesStatus,
  validatedNudgesStatus,
  type ValidatedNudgesStatus,
  type ValidatedStatusInputs,
} from '../../../src/domain/nudge/validated-status.ts';
import {
  MAX_STATUS_GATING_GROUPS,
  MAX_WAITING_ENTRIES_LISTED,
  MAX_WAITING_ENTRIES_PER_GROUP,
  ValidatedNudgesStatus as ValidatedNudgesStatusSchema,
} from '../../../src/schema/nudgeconfig.ts';
import { manifestSet, nudgeConfig, type EntrySpec } from '../fixtures.ts';

const NAMESPACE = 'tenant';
const DIGEST = `sha256:${'a'.repeat(64)}`;
const AT = '2026-11-26T13:00:00.000Z';
/** The bound the size tests hold the status to: 1/16 of etcd's 1 MiB object limit. */
const STATUS_BYTE_BOUND = 64 * 1024;

const decodeStatus = objectDecoder(ValidatedNudgesStatusSchema);

function graphOf(entries: readonly EntrySpec[]): NamespaceGraph {
  return buildNamespaceGraph(NAMESPACE, manifestSet({ nudgeConfigs: [nudgeConfig(NAMESPACE, entries)] }));
}

const validated = (from: string, to: string, gatingGroup: string): EntrySpec => ({
  from,
  to,
  mode: 'validated',
  gatingGroup,
});

function nudged(buildCreatedAt: number): NudgedDigest {
  return { digest: DIGEST, snapshot: 'snap-old', startTime: 1, buildCreatedAt };
}

function record(group: string, target: string, parts: Partial<ValidatedRecord> = {}): ValidatedRecord {
  return { group, target, nudged: new Map(), ...parts };
}

function inputs(
  graph: NamespaceGraph,
  records: readonly ValidatedRecord[],
  builds: Readonly<Record<string, number>>,
): ValidatedStatusInputs {
  const byPair = new Map(records.map((r) => [`${r.group}\u0000${r.target}`, r]));
  return {
    graph,
    record: (group, target) => byPair.get(`${group}\u0000${target}`),
    newestBuildCreatedAt: (component) => builds[component],
  };
}

describe('validatedNudgesStatus', () => {
  it('is undefined without a validated entry that names a gating group', () => {
    const graph = graphOf([
      { from: 'a', to: 'b' },
      { from: 'a', to: 'c', mode: 'immediate' },
      { from: 'a', to: 'd', mode: 'validated' },
      { from: 'a', to: 'e', mode: 'validated', gatingGroup: '' },
    ]);
    assert.equal(validatedNudgesStatus(inputs(graph, [], { a: 10 })), undefined);
  });

  it('counts entries and targets per group, lists the waiting entries and the last pass', () => {
    const graph = graphOf([
      validated('a', 't', 'g1'),
      validated('b', 't', 'g1'),
      validated('c', 'u', 'g1'),
      validated('e', 'u', 'g1'),
      { from: 'x', to: 't' },
      validated('d', 't', 'g2'),
    ]);
    const records = [
      record('g1', 't', {
        nudged: new Map([['a', nudged(100)]]),
        lastPass: { snapshot: 'snap-1', startTime: 50, at: AT },
      }),
      record('g1', 'u', { lastPass: { snapshot: 'snap-2', startTime: 60, at: '2026-11-26T12:00:00Z' } }),
      record('g2', 't', { nudged: new Map([['d', nudged(250)]]) }),
    ];
    // a: nudged its newest build; b: never nudged, has a build; c: no build yet; e: never nudged,
    // has a build; d: a build newer than the one nudged.
    const status = validatedNudgesStatus(inputs(graph, records, { a: 100, b: 200, d: 300, e: 5, x: 999 }));
    assert.deepEqual(status, {
      entries: 5,
      waiting: 3,
      gatingGroups: 2,
      groups: [
        {
          gatingGroup: 'g1',
          entries: 4,
          targets: 2,
          waiting: 2,
          waitingEntries: ['b -> t', 'e -> u'],
          // The newer Snapshot by start time, though used earlier.
          lastPassingSnapshot: { name: 'snap-2', startTime: 60 },
          lastNudgeTime: '2026-11-26T12:00:00Z',
        },
        { gatingGroup: 'g2', entries: 1, targets: 1, waiting: 1, waitingEntries: ['d -> t'] },
      ],
    });
    assert.ok(decodeStatus(status).ok);
  });

  it('does not count as waiting a build the batch under way carries, but a newer one', () => {
    const graph = graphOf([validated('a', 't', 'g'), validated('b', 't', 'g')]);
    const entry = { digest: DIGEST, snapshot: 'snap-3', startTime: 70, build: 'build-a', buildCreatedAt: 400 };
    const batched = record('g', 't', {
      nudged: new Map([
        ['a', nudged(100)],
        ['b', nudged(100)],
      ]),
      batch: {
        key: '0123456789abcdef',
        state: 'firing',
        attempt: 1,
        since: 0,
        entries: { a: entry, b: { ...entry, build: 'build-b' } },
      },
    });
    const status = validatedNudgesStatus(inputs(graph, [batched], { a: 400, b: 401 }));
    assert.equal(status?.waiting, 1);
    assert.deepEqual(status.groups[0]?.waitingEntries, ['b -> t']);
  });

  it('counts a held entry (handed to a ChangeGroup) as nudged with its build', () => {
    const graph = graphOf([validated('a', 't', 'g')]);
    const held = record('g', 't', {
      nudged: new Map([['a', { ...nudged(100), heldBy: { changeGroup: 'cg', build: 'build-a' } }]]),
    });
    assert.equal(validatedNudgesStatus(inputs(graph, [held], { a: 100 }))?.waiting, 0);
    assert.equal(validatedNudgesStatus(inputs(graph, [held], { a: 101 }))?.waiting, 1);
  });

  it("leaves out a last nudge time the API server's date-time format would refuse", () => {
    const graph = graphOf([validated('a', 't', 'g')]);
    const odd = record('g', 't', { lastPass: { snapshot: 'snap-1', startTime: 5, at: 'yesterday' } });
    const group = validatedNudgesStatus(inputs(graph, [odd], {}))?.groups[0];
    assert.deepEqual(group?.lastPassingSnapshot, { name: 'snap-1', startTime: 5 });
    assert.equal(group.lastNudgeTime, undefined);
  });

  it('is the same whatever order the spec declares the entries in', () => {
    const entries = Array.from({ length: 60 }, (_, i) =>
      validated(`c${String(i)}`, `t${String(i % 7)}`, `g${String(i % 5)}`),
    );
    const builds = Object.fromEntries(entries.map((e, i) => [e.from, i]));
    const forward = validatedNudgesStatus(inputs(graphOf(entries), [], builds));
    const backward = validatedNudgesStatus(inputs(graphOf([...entries].reverse()), [], builds));
    assert.deepEqual(backward, forward);
    assert.equal(JSON.stringify(backward), JSON.stringify(forward));
  });

  it('lists at most 20 waiting entries of a group, the first in code-unit order, and counts them all', () => {
    const entries = Array.from({ length: 5000 }, (_, i) => validated(`c${String(i)}`, `t${String(i % 3)}`, 'g'));
    const builds = Object.fromEntries(entries.map((e) => [e.from, 1]));
    const status = validatedNudgesStatus(inputs(graphOf(entries), [], builds));
    const group = status?.groups[0];
    assert.equal(group?.waiting, 5000);
    assert.equal(group.targets, 3);
    const all = entries.map((e) => `${e.from} -> ${e.to}`).sort();
    assert.deepEqual(group.waitingEntries, all.slice(0, MAX_WAITING_ENTRIES_PER_GROUP));
  });

  it('lists at most 50 groups, those with the most waiting entries first, and 200 waiting entries in all', () => {
    // 5,000 groups of one entry; groups 4000.. have a second entry, and the first 30 of those wait twice.
    const entries: EntrySpec[] = Array.from({ length: 5000 }, (_, i) => validated(`c${String(i)}`, 'target', gate(i)));
    for (let i = 4000; i < 4100; i += 1) entries.push(validated(`d${String(i)}`, 'other', gate(i)));
    const builds: Record<string, number> = {};
    for (let i = 0; i < 5000; i += 1) builds[`c${String(i)}`] = 1;
    for (let i = 4000; i < 4030; i += 1) builds[`d${String(i)}`] = 1;
    const status = validatedNudgesStatus(inputs(graphOf(entries), [], builds));
    assert.ok(status !== undefined);
    assert.equal(status.gatingGroups, 5000);
    assert.equal(status.entries, 5100);
    assert.equal(status.waiting, 5030);
    assert.equal(status.groups.length, MAX_STATUS_GATING_GROUPS);
    const names = status.groups.map((g) => g.gatingGroup);
    assert.deepEqual(names, [...names].sort());
    // The 30 groups waiting twice, then the first 20 by name of those waiting once.
    const expected = [
      ...Array.from({ length: 30 }, (_, i) => gate(4000 + i)),
      ...Array.from({ length: 20 }, (_, i) => gate(i)),
    ].sort();
    assert.deepEqual(names, expected);
    const listedWaiting = status.groups.reduce((sum, g) => sum + (g.waitingEntries?.length ?? 0), 0);
    assert.ok(listedWaiting <= MAX_WAITING_ENTRIES_LISTED, String(listedWaiting));
    assert.ok(decodeStatus(status).ok);
  });
});

function gate(i: number): string {
  return `g${String(i).padStart(4, '0')}`;
}

describe('sameValidatedNudgesStatus', () => {
  const status: ValidatedNudgesStatus = {
    entries: 2,
    waiting: 1,
    gatingGroups: 1,
    groups: [
      {
        gatingGroup: 'g',
        entries: 2,
        targets: 1,
        waiting: 1,
        waitingEntries: ['a -> t'],
        lastPassingSnapshot: { name: 's', startTime: 3 },
        lastNudgeTime: AT,
      },
    ],
  };

  it('is true for the same content in another key order, as the API server may serve it', () => {
    const reordered = JSON.parse(
      JSON.stringify(status, (_key, value: unknown) =>
        value !== null && typeof value === 'object' && !Array.isArray(value)
          ? Object.fromEntries(Object.entries(value).reverse())
          : value,
      ),
    ) as ValidatedNudgesStatus;
    assert.notEqual(JSON.stringify(reordered), JSON.stringify(status));
    assert.ok(sameValidatedNudgesStatus(status, reordered));
    assert.ok(sameValidatedNudgesStatus(undefined, undefined));
  });

  it('is false when any field differs', () => {
    const group = status.groups[0];
    assert.ok(group !== undefined);
    const variants: ValidatedNudgesStatus[] = [
      { ...status, waiting: 2 },
      { ...status, entries: 3 },
      { ...status, gatingGroups: 2 },
      { ...status, groups: [] },
      { ...status, groups: [{ ...group, gatingGroup: 'h' }] },
      { ...status, groups: [{ ...group, targets: 2 }] },
      { ...status, groups: [{ ...group, waiting: 0 }] },
      { ...status, groups: [{ ...group, waitingEntries: ['b -> t'] }] },
      { ...status, groups: [{ ...group, lastPassingSnapshot: { name: 's', startTime: 4 } }] },
      { ...status, groups: [{ ...group, lastPassingSnapshot: { name: 'r', startTime: 3 } }] },
      { ...status, groups: [{ ...group, lastNudgeTime: '2026-11-26T14:00:00Z' }] },
    ];
    for (const variant of variants) {
      assert.equal(sameValidatedNudgesStatus(status, variant), false, JSON.stringify(variant));
    }
    assert.equal(sameValidatedNudgesStatus(status, undefined), false);
  });
});

/** 5,000 validated entries spread as `groups` × `perGroup`, every one waiting, every pair passed once. */
function fiveThousand(
  groups: number,
  names: { component: (i: number) => string; group: (i: number) => string; snapshot: (i: number) => string },
): ValidatedStatusInputs {
  const perGroup = 5000 / groups;
  const entries: EntrySpec[] = [];
  const records: ValidatedRecord[] = [];
  const builds: Record<string, number> = {};
  for (let g = 0; g < groups; g += 1) {
    const group = names.group(g);
    const target = names.component(10_000 + g);
    for (let j = 0; j < perGroup; j += 1) {
      const from = names.component(g * perGroup + j);
      entries.push(validated(from, target, group));
      builds[from] = 2;
    }
    // One entry per pair nudged before, from an older build than its newest.
    const nudgedBefore = new Map([[names.component(g * perGroup), nudged(1)]]);
    records.push(
      record(group, target, {
        nudged: nudgedBefore,
        lastPass: { snapshot: names.snapshot(g), startTime: 1_764_162_000 + g, at: AT },
      }),
    );
  }
  return inputs(graphOf(entries), records, builds);
}

/** Names of exactly `length` characters ending in `i`. */
function padded(prefix: string, length: number): (i: number) => string {
  return (i) => {
    const suffix = `-${String(i)}`;
    return prefix.repeat(length).slice(0, length - suffix.length) + suffix;
  };
}

const TYPICAL = {
  component: (i: number) => `operand-${String(i).padStart(5, '0')}`,
  group: (i: number) => `group-${String(i).padStart(4, '0')}`,
  snapshot: (i: number) => `my-application-${String(i).padStart(5, '0')}`,
};
// The longest names the API server admits: DNS-1123 labels for Components and gating groups
// (63), object names for Snapshots (253).
const LONGEST = { component: padded('c', 63), group: padded('g', 63), snapshot: padded('s', 253) };

describe('status.validatedNudges size at 5,000 entries', () => {
  const cases = [
    ['50 groups x 100 entries, typical names', 50, TYPICAL],
    ['1 group x 5,000 entries, typical names', 1, TYPICAL],
    ['5,000 groups x 1 entry, typical names', 5000, TYPICAL],
    // The worst case: 50 groups listed, each with the longest names, its last pass and 4 waiting
    // entries (200 / 50), i.e. 50 x ~500 bytes + 200 x ~133 bytes.
    ['50 groups x 100 entries, longest names (the worst case)', 50, LONGEST],
    ['1 group x 5,000 entries, longest names', 1, LONGEST],
    ['5,000 groups x 1 entry, longest names', 5000, LONGEST],
  ] as const;
  for (const [title, groups, names] of cases) {
    it(`${title}: under ${String(STATUS_BYTE_BOUND / 1024)} KiB`, (t) => {
      const status = validatedNudgesStatus(fiveThousand(groups, names));
      assert.ok(status !== undefined);
      assert.equal(status.entries, 5000);
      assert.equal(status.waiting, 5000);
      assert.ok(decodeStatus(status).ok, 'within the schema bounds the API server enforces');
      const bytes = Buffer.byteLength(JSON.stringify({ status: { validatedNudges: status } }));
      t.diagnostic(`${title}: ${String(bytes)} bytes`);
      assert.ok(bytes < STATUS_BYTE_BOUND, `${String(bytes)} bytes`);
    });
  }
});
