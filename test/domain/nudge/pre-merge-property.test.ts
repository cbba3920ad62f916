// Properties of pre-merge nudges under crashes (docs/decisions.md D11, N18), in the manner of
// test/domain/nudge/validated-property.test.ts. A model controller carries out each decision against
// a model cluster (the pair's record, serialised and parsed at every write) and a model forge whose
// nudge PR is made from the content it is given, idempotent by key as the executors are. It may die
// after the record write or after the effect, before the write that follows. Meanwhile the group's
// PRs are opened, pushed to, built, merged, closed and reopened, merge commits get their push builds,
// the forge cannot always be asked, the build cache lags, and time passes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_DISPATCH_POLICY } from '../../../src/domain/nudge/dispatch-policy.ts';
import type { FireResult } from '../../../src/domain/nudge/dispatch.ts';
import {
  afterPreMergeFire,
  decidePreMerge,
  preMergeContent,
  type ForgeReading,
  type ObservedPullRequestBuild,
  type PreMergeContent,
  type PreMergeInput,
  type PreMergeStep,
} from '../../../src/domain/nudge/pre-merge-decision.ts';
import {
  emptyPreMergeRecord,
  parsePreMergeRecord,
  serializePreMergeRecord,
  triggerKey,
  type PinnedBuild,
  type PreMergeRecord,
} from '../../../src/domain/nudge/pre-merge-record.ts';
import { GROUP, LEASE, NAMESPACE, POLL, T0, TARGET, pinned, prBuild, reading } from './pre-merge-fixtures.ts';

const POLICY = DEFAULT_DISPATCH_POLICY;
/** The group's possible PRs: two per component. */
const PRS = ['operand-a', 'operand-b', 'operand-c'].flatMap((component) =>
  [1, 2].map((number) => ({ component, number, key: triggerKey(component, number) })),
);
const PR = fc.integer({ min: 0, max: PRS.length - 1 });

type Crash = 'none' | 'afterWrite' | 'afterEffect';
type Outcome = 'ok' | 'fail' | 'partial' | 'permanent';

type Event =
  | { readonly kind: 'push' | 'build' | 'merge' | 'close' | 'reopen' | 'pushBuild'; readonly pr: number }
  | {
      readonly kind: 'reconcile';
      readonly crash: Crash;
      readonly outcome: Outcome;
      /** PRs the forge could not be asked about. */
      readonly unreachable: readonly number[];
      /** PRs whose builds the cache does not show (pruned, or not seen yet). */
      readonly hidden: readonly number[];
      /** The cache shows each PR's oldest build rather than its newest. */
      readonly stale: boolean;
    }
  | { readonly kind: 'tick'; readonly ms: number };

const prEvent = (kind: Exclude<Event['kind'], 'reconcile' | 'tick'>, weight: number) => ({
  weight,
  arbitrary: fc.record({ kind: fc.constant(kind), pr: PR }),
});

const EVENT: fc.Arbitrary<Event> = fc.oneof(
  prEvent('push', 3),
  prEvent('build', 3),
  prEvent('merge', 1),
  prEvent('close', 2),
  prEvent('reopen', 2),
  prEvent('pushBuild', 2),
  {
    weight: 7,
    arbitrary: fc.record({
      kind: fc.constant('reconcile' as const),
      crash: fc.constantFrom<Crash>('none', 'none', 'afterWrite', 'afterEffect'),
      outcome: fc.constantFrom<Outcome>('ok', 'ok', 'fail', 'partial', 'permanent'),
      unreachable: fc.oneof(fc.constant([]), fc.uniqueArray(PR, { maxLength: 2 })),
      hidden: fc.oneof(fc.constant([]), fc.constant([]), fc.uniqueArray(PR, { maxLength: 2 })),
      stale: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 2 * LEASE }) }),
  },
);

/**
 * The group's end: each PR merged (and its merge commit built) or closed, in any order, among
 * reconciles that crash and fail, so that leaving draft and closing are reached.
 */
const FINISH: fc.Arbitrary<Event[]> = fc
  .tuple(
    fc.array(fc.constantFrom('merge' as const, 'close' as const), { minLength: PRS.length, maxLength: PRS.length }),
    fc.array(
      EVENT.filter((e) => e.kind === 'reconcile' || e.kind === 'tick'),
      { maxLength: 12 },
    ),
    fc.integer(),
  )
  .map(([ends, noise, seed]) => {
    const events: Event[] = ends.flatMap((kind, pr): Event[] =>
      kind === 'merge'
        ? [
            { kind: 'merge', pr },
            { kind: 'pushBuild', pr },
          ]
        : [{ kind: 'close', pr }],
    );
    // Interleave the noise at places the seed picks.
    noise.forEach((event, i) => events.splice(Math.abs(seed + i * 7919) % (events.length + 1), 0, event));
    return events;
  });

/** A PR on its forge. */
interface Pr {
  state: 'open' | 'merged' | 'closed';
  /** Pushes so far; `built` is the last one built. */
  head: number;
  built: number;
  /** Its succeeded pull-request builds, oldest first. */
  readonly builds: ObservedPullRequestBuild[];
  mergeSha?: string;
}

/** The nudge PR as the last effect left it. */
interface NudgePr {
  readonly key: string;
  /** By trigger key: the digest pinned. */
  readonly pins: ReadonlyMap<string, string>;
  readonly draft: boolean;
  readonly closed: boolean;
}

interface World {
  recordText: string;
  now: number;
  /** Makes build times and merge commits unique. */
  counter: number;
  readonly prs: Map<string, Pr>;
  readonly pushBuilds: Map<string, PinnedBuild>;
  /** What each key was fired with: one content per key. */
  readonly contentByKey: Map<string, string>;
  readonly keyByContent: Map<string, string>;
  nudgePr?: NudgePr;
  /** Triggers the nudge PR once pinned with their push build. */
  readonly pushPinned: Set<string>;
}

function newWorld(): World {
  return {
    recordText: serializePreMergeRecord(emptyPreMergeRecord(GROUP, TARGET)),
    now: T0,
    counter: 0,
    prs: new Map(),
    pushBuilds: new Map(),
    contentByKey: new Map(),
    keyByContent: new Map(),
    pushPinned: new Set(),
  };
}

/** The record the text holds: the model never writes one it cannot read. */
function recordOf(text: string): PreMergeRecord {
  const reading = parsePreMergeRecord(text, GROUP, TARGET);
  assert.ok(reading.ok, reading.ok ? '' : reading.problem);
  return reading.record;
}

const readRecord = (world: World): PreMergeRecord => recordOf(world.recordText);

/** A record write: serialised and read back; no trigger is forgotten, none goes back. */
function write(world: World, next: PreMergeRecord): void {
  const text = serializePreMergeRecord(next);
  assert.deepEqual(recordOf(text), next, 'what is written reads back the same');
  const previous = readRecord(world);
  for (const [key, before] of Object.entries(previous.triggers)) {
    const after = next.triggers[key];
    assert.ok(after !== undefined, `${key} forgotten`);
    assert.ok(after.pullRequestBuild.createdAt >= before.pullRequestBuild.createdAt, `${key}: back to an older build`);
    if (before.state === 'merged') assert.equal(after.state, 'merged', `${key} was merged`);
    if (before.pushBuild !== undefined) assert.deepEqual(after.pushBuild, before.pushBuild, `${key}: push build lost`);
  }
  world.recordText = text;
}

const pushBuildKey = (component: string, sha: string) => `${component}@${sha}`;

function pairInput(world: World, unreachable: ReadonlySet<string>, hidden: ReadonlySet<string>, stale: boolean) {
  const builds: ObservedPullRequestBuild[] = [];
  const forge = new Map<string, ForgeReading>();
  for (const { component, number, key } of PRS) {
    const pr = world.prs.get(key);
    if (pr === undefined) continue;
    const build = stale ? pr.builds[0] : pr.builds.at(-1);
    if (build !== undefined && !hidden.has(key)) builds.push(build);
    if (!unreachable.has(key)) forge.set(key, reading(component, number, pr.state, pr.mergeSha));
  }
  return {
    namespace: NAMESPACE,
    group: GROUP,
    target: TARGET,
    record: readRecord(world),
    builds,
    forge,
    pushBuild: (component, sha) => world.pushBuilds.get(pushBuildKey(component, sha)),
    now: world.now,
    fireLeaseMs: LEASE,
    pollMs: POLL,
    policy: POLICY,
  } satisfies PreMergeInput;
}

/** What the key stands for: each trigger's state and pinned digest, draft and close. */
const contentText = (content: PreMergeContent): string =>
  JSON.stringify([
    content.parts.map(({ trigger, pin }) => [trigger.component, trigger.number, trigger.state, pin?.build.digest]),
    content.draft,
    content.close,
  ]);

/** The executor: makes the nudge PR from the content, idempotent by key. */
function fireAtForge(world: World, content: PreMergeContent, outcome: Outcome): FireResult {
  const text = contentText(content);
  const known = world.contentByKey.get(content.key);
  assert.ok(known === undefined || known === text, `key ${content.key} fired with other content`);
  world.contentByKey.set(content.key, text);
  const keyed = world.keyByContent.get(text);
  assert.ok(keyed === undefined || keyed === content.key, `content ${text} fired under two keys`);
  world.keyByContent.set(text, content.key);

  for (const { trigger, pin } of content.parts) {
    const key = triggerKey(trigger.component, trigger.number);
    if (trigger.pushBuild !== undefined && trigger.state === 'merged') {
      assert.deepEqual(
        pin,
        { event: 'push', build: trigger.pushBuild },
        `${key}: merged and built, pins its push build`,
      );
    }
    if (world.pushPinned.has(key)) assert.equal(pin?.event, 'push', `${key} pinned its PR build after its push build`);
    if (trigger.state === 'closed') assert.equal(pin, undefined, `${key} is closed but pinned`);
  }
  const unfinished = content.parts.some(
    ({ trigger }) => trigger.state === 'open' || (trigger.state === 'merged' && trigger.pushBuild === undefined),
  );
  assert.equal(content.draft, unfinished, 'a draft iff some trigger is open or unbuilt');
  assert.equal(
    content.close,
    content.parts.every(({ trigger }) => trigger.state === 'closed'),
    'closed iff all closed',
  );

  if (outcome === 'ok' || outcome === 'partial') {
    const pins = new Map<string, string>();
    for (const { trigger, pin } of content.parts) {
      const key = triggerKey(trigger.component, trigger.number);
      if (pin !== undefined) pins.set(key, pin.build.digest);
      if (pin?.event === 'push') world.pushPinned.add(key);
    }
    world.nudgePr = { key: content.key, pins, draft: content.draft, closed: content.close };
  }
  if (outcome === 'ok') return { ok: true, detail: 'https://github.com/org/bundle/pull/5' };
  if (outcome === 'permanent') return { ok: false, reason: 'no-credentials', message: 'no token', permanent: true };
  return { ok: false, reason: 'forge-unavailable', message: '503' };
}

interface ReconcileOptions {
  readonly crash: Crash;
  readonly outcome: Outcome;
  readonly unreachable?: readonly number[];
  readonly hidden?: readonly number[];
  readonly stale?: boolean;
}

const keysOf = (indices: readonly number[] = []) => new Set(indices.map((i) => PRS[i]?.key ?? ''));

/** One reconcile: decide, write the record if it changed, then carry out the step until `crash`. */
function reconcile(world: World, options: ReconcileOptions): PreMergeStep {
  const input = pairInput(world, keysOf(options.unreachable), keysOf(options.hidden), options.stale === true);
  const decision = decidePreMerge(input);
  assert.deepEqual(decidePreMerge(input), decision, 'the decision is a function of its input');
  for (const build of input.builds) {
    const key = triggerKey(build.component, build.number);
    assert.ok(decision.record.triggers[key] !== undefined, `${key}: a build seen, no trigger recorded`);
  }
  const { step } = decision;
  if (serializePreMergeRecord(decision.record) !== world.recordText) write(world, decision.record);
  if (step.kind === 'idle') return step;
  if (options.crash === 'afterWrite') return step;
  const result = fireAtForge(world, step.content, options.outcome);
  if (options.crash === 'afterEffect') return step;
  write(world, afterPreMergeFire(decision.record, step.content, step.attempt, result, world.now, POLICY));
  return step;
}

function apply(world: World, event: Event): void {
  if (event.kind === 'tick') {
    world.now += event.ms;
    return;
  }
  if (event.kind === 'reconcile') {
    reconcile(world, event);
    return;
  }
  const { component, number, key } = PRS[event.pr] ?? assert.fail('no such PR');
  const pr = world.prs.get(key);
  world.counter += 1;
  switch (event.kind) {
    case 'push':
      if (pr === undefined) world.prs.set(key, { state: 'open', head: 1, built: 0, builds: [] });
      else if (pr.state === 'open') pr.head += 1;
      return;
    case 'build':
      // Pipelines-as-Code builds an open PR's head; a later build is a newer one.
      if (pr?.state !== 'open' || pr.built === pr.head) return;
      pr.built = pr.head;
      pr.builds.push(prBuild(component, number, `${key}/${String(pr.head)}`, T0 + world.counter * 1000));
      return;
    case 'merge':
      if (pr?.state !== 'open') return;
      pr.state = 'merged';
      pr.mergeSha = world.counter.toString(16).padStart(40, '0');
      return;
    case 'close':
      if (pr?.state === 'open') pr.state = 'closed';
      return;
    case 'reopen':
      if (pr?.state === 'closed') pr.state = 'open';
      return;
    case 'pushBuild': {
      if (pr?.state !== 'merged' || pr.mergeSha === undefined) return;
      const at = pushBuildKey(component, pr.mergeSha);
      if (!world.pushBuilds.has(at)) {
        world.pushBuilds.set(
          at,
          pinned(`${component}-on-push-${String(world.counter)}`, `${at}/push`, T0 + world.counter * 1000),
        );
      }
      return;
    }
  }
}

/** With a working executor, a forge that answers, a current cache and time moving to each wake-up. */
function settle(world: World): void {
  for (let n = 0; n < 60; n += 1) {
    const before = world.recordText;
    const step = reconcile(world, { crash: 'none', outcome: 'ok' });
    if (step.kind !== 'idle') continue;
    if (step.wakeAt !== undefined) world.now = Math.max(world.now, step.wakeAt);
    const attempt = readRecord(world).attempt;
    if (world.recordText === before && (attempt === undefined || attempt.state === 'failed')) return;
  }
  assert.fail(`not settled after 60 quiet steps: ${world.recordText}`);
}

/** What the nudge PR must show, from the forge's and the cache's truth. */
function expectedNudgePr(world: World): Omit<NudgePr, 'key'> | undefined {
  const pins = new Map<string, string>();
  let draft = false;
  let closed = true;
  let any = false;
  for (const { component, key } of PRS) {
    const pr = world.prs.get(key);
    const newest = pr?.builds.at(-1);
    if (pr === undefined || newest === undefined) continue;
    any = true;
    if (pr.state !== 'closed') closed = false;
    const push = pr.mergeSha === undefined ? undefined : world.pushBuilds.get(pushBuildKey(component, pr.mergeSha));
    if (pr.state === 'open' || (pr.state === 'merged' && push === undefined)) draft = true;
    if (pr.state === 'open') pins.set(key, newest.build.digest);
    if (pr.state === 'merged') pins.set(key, (push ?? newest.build).digest);
  }
  return any ? { pins, draft, closed } : undefined;
}

function checkSettled(world: World): void {
  const record = readRecord(world);
  const built = PRS.filter(({ key }) => (world.prs.get(key)?.builds.length ?? 0) > 0).map(({ key }) => key);
  assert.deepEqual(Object.keys(record.triggers).sort(), built.sort(), 'every PR built is a trigger, no other');
  for (const [key, trigger] of Object.entries(record.triggers)) {
    assert.equal(trigger.state, world.prs.get(key)?.state, `${key}: the forge's state`);
  }
  // A fire that failed for good waits for new content (N18): the nudge PR is whatever it was.
  if (record.attempt?.state === 'failed') {
    const content = preMergeContent(NAMESPACE, GROUP, TARGET, record.triggers);
    assert.equal(record.attempt.key, content?.key, 'a failed attempt is of the current content');
    return;
  }
  const expected = expectedNudgePr(world);
  if (expected === undefined) {
    assert.equal(world.nudgePr, undefined);
    return;
  }
  assert.ok(world.nudgePr !== undefined, 'no nudge PR made');
  const { key: _key, ...actual } = world.nudgePr;
  assert.deepEqual(actual, expected, 'the nudge PR shows the current triggers');
  // And a reconcile of the settled pair changes nothing.
  const before = world.recordText;
  const step = reconcile(world, { crash: 'none', outcome: 'ok' });
  assert.equal(step.kind, 'idle');
  assert.equal(world.recordText, before, 'a settled pair writes nothing');
}

describe('pre-merge nudges under crashes (D11, N18)', () => {
  it('the nudge PR ends with the current triggers, merged and built ones pinned by their push builds', () => {
    fc.assert(
      fc.property(
        fc.array(EVENT, { minLength: 10, maxLength: 100, size: 'large' }),
        fc.option(FINISH, { nil: undefined }),
        (events, finish) => {
          const world = newWorld();
          for (const event of [...events, ...(finish ?? [])]) apply(world, event);
          settle(world);
          checkSettled(world);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('with a working executor, crashes and a lagging cache cost nothing', () => {
    const events = fc.array(
      fc.oneof(
        EVENT.filter((e) => e.kind !== 'reconcile'),
        fc.record({
          kind: fc.constant('reconcile' as const),
          crash: fc.constantFrom<Crash>('none', 'afterWrite', 'afterEffect'),
          outcome: fc.constant<Outcome>('ok'),
          unreachable: fc.uniqueArray(PR, { maxLength: 3 }),
          hidden: fc.uniqueArray(PR, { maxLength: 3 }),
          stale: fc.boolean(),
        }),
      ),
      { minLength: 10, maxLength: 100, size: 'large' },
    );
    fc.assert(
      fc.property(events, (list) => {
        const world = newWorld();
        for (const event of list) apply(world, event);
        settle(world);
        assert.equal(readRecord(world).attempt, undefined, 'nothing failed');
        checkSettled(world);
      }),
      { numRuns: 400 },
    );
  });

  it('makes the nudge PR again when a PR closed by a fire whose result was lost is reopened', () => {
    for (const lost of [
      { crash: 'afterEffect', outcome: 'ok' },
      { crash: 'none', outcome: 'partial' },
    ] as const) {
      const world = newWorld();
      const reconcileNow = (options: ReconcileOptions) => {
        apply(world, { kind: 'reconcile', ...options, unreachable: [], hidden: [], stale: false });
      };
      apply(world, { kind: 'push', pr: 0 });
      apply(world, { kind: 'build', pr: 0 });
      apply(world, { kind: 'push', pr: 2 });
      apply(world, { kind: 'build', pr: 2 });
      reconcileNow({ crash: 'none', outcome: 'ok' });
      apply(world, { kind: 'close', pr: 0 });
      reconcileNow(lost);
      assert.equal(world.nudgePr?.pins.has(PRS[0]?.key ?? ''), false, 'the close reached the forge');
      apply(world, { kind: 'reopen', pr: 0 });
      settle(world);
      checkSettled(world);
    }
  });

  it('a settled pair with an open PR wakes to ask the forge again; a closed one does not', () => {
    const world = newWorld();
    apply(world, { kind: 'push', pr: 0 });
    apply(world, { kind: 'build', pr: 0 });
    settle(world);
    assert.deepEqual(reconcile(world, { crash: 'none', outcome: 'ok' }), { kind: 'idle', wakeAt: world.now + POLL });
    apply(world, { kind: 'close', pr: 0 });
    settle(world);
    assert.equal(world.nudgePr?.closed, true);
    assert.deepEqual(reconcile(world, { crash: 'none', outcome: 'ok' }), { kind: 'idle' });
  });
});
