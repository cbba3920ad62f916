// The dispatcher's reconciler (docs/decisions.md D9, N18) against an in-memory API server with real
// compare-and-swap: what it writes to the build, what it creates, what it tells, and that a stale
// cache or a second replica never fires twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import {
  DEFAULT_FIRE_TIMEOUT_MS,
  DISPATCH_NOTICE_REASONS,
  DispatchReconciler,
} from '../../src/controllers/dispatch/reconciler.ts';
import { EXECUTOR_ANNOTATION } from '../../src/controllers/dispatch/inputs.ts';
import type { FireOutcome } from '../../src/controllers/dispatch/executor.ts';
import { DISPATCH_FINALIZER, DISPATCH_MARKER_ANNOTATION } from '../../src/domain/nudge/dispatch-marker.ts';
import { HELD_TARGETS_ANNOTATION, RELEASED_TARGETS_ANNOTATION } from '../../src/domain/changegroup/hold-decision.ts';
import { DISPATCHED_FROM_ANNOTATION } from '../../src/domain/nudge/dispatch-held-record.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { status } from '../runtime/fakes.ts';
import { captureLog } from '../support/secret-leaks.ts';
import { BUILD, NS, T0, bundleX, changeGroup, nudgeConfig, operandA, setup } from './dispatch-env.ts';

const markerOf = (object: KubeObject | undefined) => object?.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
const annotationsOf = (object: KubeObject) => object.metadata?.annotations ?? {};
const nameOf = (object: KubeObject) => object.metadata?.name;
const finalizersOf = (object: KubeObject | undefined) => object?.metadata?.finalizers ?? [];

async function metric(registry: ReturnType<typeof setup>['registry'], name: string): Promise<string> {
  const text = await registry.metrics();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .join('\n');
}

describe('DispatchReconciler', () => {
  it('fires a verified push build once: finalizer with the write-ahead, pullRequest with the release', async () => {
    const env = setup();
    await env.addBuild();
    await env.reconcile();
    const direct = env.executors.direct;
    assert.ok(direct !== undefined);
    assert.equal(direct.requests.length, 1);
    const [request] = direct.requests;
    assert.ok(request !== undefined);
    assert.equal(nameOf(request.nudged), 'bundle-x');
    assert.equal(nameOf(request.nudging), 'operand-a');
    assert.equal(request.build.digest, `sha256:${'3'.repeat(64)}`);
    assert.equal(request.attempt, 1);
    assert.equal(request.simpleBranch, false);
    assert.equal(request.settings.configMap, undefined);
    assert.ok(request.fileMatch.length > 0, 'the default fileMatch applies');
    // One reconcile: decided again after the fire settled, which released the finalizer.
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=pullRequest');
    assert.deepEqual(finalizersOf(env.stored()), []);
    // docs/decisions.md N49: each finalizer change rides on a marker write, so the finalizer and
    // the marker change together or not at all.
    const patches = env.client.calls.filter((c) => c.verb === 'patch').map((c) => JSON.stringify(c.body));
    assert.equal(patches.length, 2, 'finalizer + firing, then pullRequest + finalizer released');
    assert.match(patches[0] ?? '', new RegExp(`"finalizers":\\["${DISPATCH_FINALIZER}"\\]`));
    assert.match(patches[0] ?? '', /bundle-x=firing:1:20250115T103000Z/);
    assert.match(patches[1] ?? '', /"finalizers":\[\]/);
    assert.match(patches[1] ?? '', /bundle-x=pullRequest/);
    assert.ok(
      patches.every((p) => p.includes('"resourceVersion"')),
      'every write is a compare-and-swap',
    );
    assert.deepEqual(
      env.events.map((e) => [e.name, e.reason]),
      [['operand-a', 'ComponentNudged']],
    );
    assert.match(await metric(env.registry, 'nudger_nudges_total'), /executor="direct",outcome="pullRequest"} 1/);

    // Level-triggered: deciding again from the settled build does nothing.
    env.sync();
    const before = env.client.calls.length;
    await env.settle();
    assert.equal(env.client.calls.length, before);
    assert.equal(direct.requests.length, 1);
  });

  it('never fires from a stale cache: the write-ahead loses its compare-and-swap and the key is requeued', async () => {
    const env = setup();
    await env.addBuild();
    const stale = env.builds.get(NS, BUILD);
    await env.reconcile();
    assert.ok(stale !== undefined);
    // The cache still holds the build as it was before the first reconcile (a second replica's view).
    env.builds.upsert(stale);
    const result = await env.reconcile();
    assert.equal(env.executors.direct?.requests.length, 1);
    assert.ok((result?.requeueAfterMs ?? 0) > 0);
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=pullRequest');
  });

  it('a cache that trails the marker write (finalizer already on) decides again instead of firing again', async () => {
    const env = setup();
    await env.addBuild();
    await env.client.patch(PIPELINE_RUNS, NS, BUILD, 'merge', { metadata: { finalizers: [DISPATCH_FINALIZER] } });
    const stale = env.sync();
    await env.reconcile();
    assert.ok(stale !== undefined);
    env.builds.upsert(stale);
    const result = await env.reconcile();
    assert.equal(env.executors.direct?.requests.length, 1, 'the marker write is a compare-and-swap');
    assert.ok((result?.requeueAfterMs ?? 0) > 0);
  });

  it("records a fire's result over someone else's annotation, never over another decision's entry", async () => {
    const env = setup();
    const direct = env.executors.direct;
    assert.ok(direct !== undefined);
    // Tekton Chains signs the finished run while the nudge is being made.
    direct.answer = async () => {
      await env.client.patch(PIPELINE_RUNS, NS, BUILD, 'merge', {
        metadata: { annotations: { 'chains.tekton.dev/signed': 'true' } },
      });
      return { result: { ok: true } };
    };
    await env.addBuild();
    await env.reconcile();
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=pullRequest');
    assert.equal(annotationsOf(env.stored() ?? {})['chains.tekton.dev/signed'], 'true');

    const rival = setup();
    const taken = rival.executors.direct;
    assert.ok(taken !== undefined);
    // Another replica judged this attempt interrupted and started its own meanwhile.
    taken.answer = async () => {
      await rival.client.patch(PIPELINE_RUNS, NS, BUILD, 'merge', {
        metadata: { annotations: { [DISPATCH_MARKER_ANNOTATION]: 'v1 bundle-x=firing:2:20250115T103500Z' } },
      });
      return { result: { ok: true } };
    };
    await rival.addBuild();
    const result = await rival.reconcile();
    assert.equal(
      markerOf(rival.stored()),
      'v1 bundle-x=firing:2:20250115T103500Z',
      'left to the decision that owns it',
    );
    assert.ok((result?.requeueAfterMs ?? 0) > 0);
  });

  for (const held of [false, true]) {
    it(`a manager dying before any write it makes ${held ? 'holds' : 'fires'} once, whatever the write`, async () => {
      for (let survives = 0; ; survives += 1) {
        const env = setup();
        if (held) env.changeGroups.upsert(changeGroup());
        await env.addBuild();
        // The process dies at its (survives + 1)-th write: that write and everything after fail.
        let writes = 0;
        env.client.fault = (verb) => {
          if (verb !== 'patch' && verb !== 'create') return undefined;
          writes += 1;
          return writes > survives ? status(500, 'InternalError', 'process died') : undefined;
        };
        const died = await env.reconcile().then(
          () => false,
          () => true,
        );
        // A new process, later (a leftover firing entry is judged once its fire could be over).
        env.client.fault = undefined;
        env.sync();
        env.setNow(T0 + DEFAULT_FIRE_TIMEOUT_MS + 10_000);
        for (let round = 0; round < 4; round += 1) {
          await env.settle();
          env.setNow(T0 + DEFAULT_FIRE_TIMEOUT_MS + 10_000 + (round + 1) * 10 * 60_000);
        }
        const requests = env.executors.direct?.requests ?? [];
        const where = `dying at write ${String(survives + 1)}`;
        assert.equal(
          markerOf(env.stored()),
          held ? 'v1 bundle-x=held:bundle-x-update' : 'v1 bundle-x=pullRequest',
          where,
        );
        assert.deepEqual(finalizersOf(env.stored()), [], where);
        assert.ok(new Set(requests.map((r) => r.key)).size <= 1, where);
        if (held) assert.equal(requests.length, 0, where);
        else assert.ok(requests.length >= 1 && requests.length <= 2, where);
        if (!died) {
          // Every write of the whole course was a place to die: finalizer with the write-ahead,
          // the record (a hold), the result with the release (docs/decisions.md N49).
          assert.equal(survives, held ? 3 : 2, `${String(survives)} writes`);
          break;
        }
      }
    });
  }

  it('two replicas deciding from the same cache fire once', async () => {
    const env = setup();
    await env.addBuild();
    const second = setup();
    // The second replica's reconciler over the first one's API server and cache.
    const rival = new DispatchReconciler({
      client: env.client,
      builds: env.builds,
      components: env.components,
      nudgeConfigs: env.nudgeConfigs,
      changeGroups: { inNamespace: () => [] },
      executors: second.executors,
      defaultExecutor: 'direct',
      now: () => T0,
    });
    const signal = new AbortController().signal;
    await Promise.all([env.reconcile(), rival.reconcile({ namespace: NS, name: BUILD }, signal)]);
    const calls = (env.executors.direct?.requests.length ?? 0) + (second.executors.direct?.requests.length ?? 0);
    assert.equal(calls, 1);
  });

  it('a missing executor fails the nudge for good, with an Event, and releases the build', async () => {
    const env = setup({ executors: [] });
    await env.addBuild();
    await env.settle();
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=failed:executor-unavailable');
    assert.deepEqual(finalizersOf(env.stored()), []);
    const failed = env.events.find((e) => e.reason === 'ComponentNudgeFailed');
    assert.match(failed?.message ?? '', /runs no direct executor/);
  });

  it('the NudgeConfig annotation picks the executor; an unknown one falls back to the default, told once', async () => {
    const env = setup({ executors: ['direct', 'renovate'] });
    env.nudgeConfigs.upsert(nudgeConfig({ [EXECUTOR_ANNOTATION]: 'renovate' }));
    await env.addBuild();
    await env.settle();
    assert.equal(env.executors.renovate?.requests.length, 1);
    assert.equal(env.executors.direct?.requests.length, 0);

    const other = setup();
    other.nudgeConfigs.upsert(nudgeConfig({ [EXECUTOR_ANNOTATION]: 'Renovate' }));
    await other.addBuild();
    await other.addBuild({
      name: 'operand-a-on-push-second',
      createdAt: '2025-01-15T10:25:00Z',
      digest: `sha256:${'4'.repeat(64)}`,
    });
    await other.settle();
    await other.settle('operand-a-on-push-second');
    assert.equal(other.executors.direct?.requests.length, 1, 'the newer build fires; the older is superseded');
    const told = other.storedEvents().filter((e) => e.reason === DISPATCH_NOTICE_REASONS.unknownExecutor);
    const [first] = told;
    assert.equal(told.length, 1);
    assert.ok(first !== undefined);
    assert.match(first.message, /"Renovate" names no executor/);
  });

  it('a rejecting executor is a failed attempt classified executor-error, its text kept out of the Event', async () => {
    const log = captureLog();
    const env = setup({ overrides: { logger: createLogger({ level: 'debug', destination: log.destination }) } });
    const direct = env.executors.direct;
    assert.ok(direct !== undefined);
    direct.answer = () => Promise.reject(new TypeError('cannot read https://user:ghp_secret@forge.example'));
    await env.addBuild();
    const result = await env.reconcile();
    assert.match(markerOf(env.stored()) ?? '', /^v1 bundle-x=retry:1:20250115T103100Z:executor-error$/);
    assert.deepEqual(finalizersOf(env.stored()), [DISPATCH_FINALIZER], 'held until the retries are done');
    assert.equal(result?.requeueAfterMs, 60_000);
    const failed = env.events.find((e) => e.reason === 'ComponentNudgeFailed');
    assert.match(failed?.message ?? '', /TypeError/);
    assert.doesNotMatch(JSON.stringify(env.events), /ghp_secret/);
    // The log has the text, without the credentials the URL carried (D9: no token in a log).
    assert.match(log.lines.join(''), /cannot read https:\/\/\*\*\*@forge\.example/);
    assert.doesNotMatch(log.lines.join(''), /ghp_secret/);
    assert.match(
      await metric(env.registry, 'nudger_nudge_failed_attempts_total'),
      /executor="direct",reason="executor-error"} 1/,
    );

    // The retry falls due: the same key, attempt 2, and then it succeeds.
    direct.answer = () => Promise.resolve({ result: { ok: true } });
    env.sync();
    env.setNow(T0 + 61_000);
    await env.settle();
    assert.deepEqual(
      direct.requests.map((r) => [r.attempt, r.key]),
      [
        [1, direct.requests[0]?.key],
        [2, direct.requests[0]?.key],
      ],
    );
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=pullRequest');
    assert.deepEqual(finalizersOf(env.stored()), []);
  });

  it('an attempt found started is left to its owner while it may still run, then counts as interrupted', async () => {
    const env = setup();
    await env.addBuild({
      annotations: { [DISPATCH_MARKER_ANNOTATION]: 'v1 bundle-x=firing:1:20250115T102900Z' },
    });
    // One minute old: another replica may still be firing it (DEFAULT_FIRE_TIMEOUT_MS plus 5 s).
    const waiting = await env.reconcile();
    assert.equal(waiting?.requeueAfterMs, DEFAULT_FIRE_TIMEOUT_MS + 5_000 - 60_000);
    assert.equal(env.client.calls.filter((c) => c.verb !== 'get' && c.verb !== 'create').length, 0);

    env.setNow(T0 + DEFAULT_FIRE_TIMEOUT_MS);
    const result = await env.reconcile();
    assert.equal(env.executors.direct?.requests.length, 0);
    assert.match(markerOf(env.stored()) ?? '', /bundle-x=retry:1:\d{8}T\d{6}Z:interrupted/);
    assert.ok((result?.requeueAfterMs ?? 0) > 0);
    assert.match(
      await metric(env.registry, 'nudger_nudge_failed_attempts_total'),
      /executor="direct",reason="interrupted"} 1/,
    );
  });

  it('a fire outliving its timeout is aborted, so no replica fires while another still does', async () => {
    const env = setup({ overrides: { fireTimeoutMs: 50 } });
    const direct = env.executors.direct;
    assert.ok(direct !== undefined);
    direct.answer = (_request, signal) =>
      new Promise<FireOutcome>((resolve) => {
        signal?.addEventListener('abort', () => {
          resolve({ result: { ok: false, reason: 'aborted', message: 'the fire took too long' } });
        });
      });
    await env.addBuild();
    await env.reconcile();
    assert.match(markerOf(env.stored()) ?? '', /^v1 bundle-x=retry:1:\d{8}T\d{6}Z:aborted$/);
  });

  it("a build's targets are fired side by side, and every result is recorded", async () => {
    const env = setup();
    // A second target, bundle-y, in its own repository.
    const bundleY = structuredClone(bundleX());
    bundleY.metadata = { ...bundleY.metadata, name: 'bundle-y', uid: 'uid-bundle-y' };
    bundleY.spec = {
      ...bundleY.spec,
      source: { git: { url: 'https://forge.example/acme/bundle-y', revision: 'main' } },
    };
    env.components.upsert(bundleY);
    const config = structuredClone(nudgeConfig());
    config.spec = { nudges: [...(config.spec?.nudges ?? []), { from: 'operand-a', to: 'bundle-y' }] };
    env.nudgeConfigs.upsert(config);
    const direct = env.executors.direct;
    assert.ok(direct !== undefined);
    // Each fire waits until both have started: fired one after the other, the first never returns.
    let started = 0;
    let bothStarted: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => {
      bothStarted = resolve;
    });
    direct.answer = async (request) => {
      started += 1;
      if (started === 2) bothStarted();
      const waited = await Promise.race([
        barrier.then(() => true),
        new Promise<boolean>((r) =>
          setTimeout(() => {
            r(false);
          }, 5_000),
        ),
      ]);
      assert.ok(waited, `the fire to ${String(request.nudged.metadata?.name)} ran alone`);
      return {
        result: { ok: true, detail: `https://forge.example/acme/${String(request.nudged.metadata?.name)}/pull/1` },
      };
    };
    await env.addBuild();
    await env.reconcile();
    assert.equal(direct.requests.length, 2);
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=pullRequest bundle-y=pullRequest');
    assert.deepEqual(finalizersOf(env.stored()), []);
  });

  it('a target an active ChangeGroup holds gets the held-nudge record, never a fire', async () => {
    const env = setup();
    env.changeGroups.upsert(changeGroup());
    await env.addBuild();
    await env.settle();
    assert.equal(env.executors.direct?.requests.length, 0);
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=held:bundle-x-update');
    const records = [...env.client.objects.values()].filter(
      (o) => o.metadata?.annotations?.[DISPATCHED_FROM_ANNOTATION] === BUILD,
    ) as (KubeObject & { spec?: { status?: string } })[];
    const [record] = records;
    assert.equal(records.length, 1);
    assert.ok(record !== undefined);
    assert.equal(record.spec?.status, 'Cancelled');
    assert.equal(annotationsOf(record)[HELD_TARGETS_ANNOTATION], 'bundle-x=bundle-x-update');
    assert.deepEqual(finalizersOf(env.stored()), []);
  });

  it('a hold its ChangeGroup releases through the record is fired, once (docs/decisions.md N19)', async () => {
    const env = setup();
    env.changeGroups.upsert(changeGroup());
    await env.addBuild();
    await env.settle();
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=held:bundle-x-update');
    const [key, record] =
      [...env.client.objects].find(([, o]) => annotationsOf(o)[DISPATCHED_FROM_ANNOTATION] === BUILD) ?? [];
    assert.ok(key !== undefined && record !== undefined);
    await env.client.patch(PIPELINE_RUNS, NS, nameOf(record) ?? '', 'merge', {
      metadata: { annotations: { [RELEASED_TARGETS_ANNOTATION]: 'bundle-x=bundle-x-update' } },
    });
    env.syncRecords();
    await env.settle();
    await env.settle();
    assert.equal(env.executors.direct?.requests.length, 1);
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=pullRequest');
    assert.deepEqual(finalizersOf(env.stored()), []);
  });

  it('a hold whose record already exists (a crash after the create) completes', async () => {
    const env = setup();
    env.changeGroups.upsert(changeGroup());
    await env.addBuild({ annotations: { [DISPATCH_MARKER_ANNOTATION]: 'v1 bundle-x=holding:bundle-x-update' } });
    await env.settle();
    await env.client.patch(PIPELINE_RUNS, NS, BUILD, 'merge', {
      metadata: { annotations: { [DISPATCH_MARKER_ANNOTATION]: 'v1 bundle-x=holding:bundle-x-update' } },
    });
    env.sync();
    await env.settle();
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=held:bundle-x-update');
  });

  it('an unreadable marker fires and writes nothing, and is told once per resourceVersion', async () => {
    const env = setup();
    await env.addBuild({ annotations: { [DISPATCH_MARKER_ANNOTATION]: 'v2 bundle-x=pullRequest' } });
    await env.reconcile();
    await env.reconcile();
    assert.equal(env.executors.direct?.requests.length, 0);
    assert.equal(markerOf(env.stored()), 'v2 bundle-x=pullRequest');
    const told = env.storedEvents().filter((e) => e.reason === DISPATCH_NOTICE_REASONS.unreadableMarker);
    const [first] = told;
    assert.equal(told.length, 1);
    assert.ok(first !== undefined);
    assert.equal(first.involvedObject.name, BUILD);
  });

  it('an edge build-nudges-ref declares too is reported once on the NudgeConfig, across builds', async () => {
    const env = setup();
    env.components.upsert(operandA({ 'build-nudges-ref': ['bundle-x'] }));
    await env.addBuild();
    await env.settle();
    await env.addBuild({ name: 'operand-a-on-push-newer', createdAt: '2025-01-15T10:40:00Z' });
    await env.settle('operand-a-on-push-newer');
    const told = env.storedEvents().filter((e) => e.reason === DISPATCH_NOTICE_REASONS.duplicateEdge);
    const [first] = told;
    assert.equal(told.length, 1);
    assert.ok(first !== undefined);
    assert.equal(first.involvedObject.kind, 'NudgeConfig');
    assert.match(first.message, /operand-a -> bundle-x .*build-nudges-ref/);
  });

  it('reads the Renovate ConfigMap in force per fire and tells each ignored value once', async () => {
    const env = setup();
    env.components.upsert(bundleX({ 'build.appstudio.openshift.io/nudge_renovate_config_map': 'bundle-renovate' }));
    env.components.upsert(operandA({}, { 'build.appstudio.openshift.io/build-nudge-simple-branch': 'true' }));
    await env.putConfigMap('namespace-wide-nudging-renovate-config', { labels: 'wide' });
    await env.putConfigMap('bundle-renovate', { labels: 'mine', automerge: 'yes', fileMatch: 'deploy/.*\\.yaml' });
    await env.addBuild();
    await env.settle();
    await env.addBuild({ name: 'operand-a-on-push-newer', createdAt: '2025-01-15T10:40:00Z' });
    await env.settle('operand-a-on-push-newer');
    const [request] = env.executors.direct?.requests ?? [];
    assert.ok(request !== undefined);
    assert.equal(request.settings.configMap, 'bundle-renovate');
    assert.deepEqual(request.settings.labels, ['mine']);
    assert.deepEqual(request.fileMatch, ['deploy/.*\\.yaml']);
    assert.equal(request.simpleBranch, true);
    assert.equal(request.settingProblems.length, 1);
    const told = env.storedEvents().filter((e) => e.reason === DISPATCH_NOTICE_REASONS.settingIgnored);
    const [first] = told;
    assert.equal(told.length, 1, 'once, not once per build');
    assert.ok(first !== undefined);
    assert.equal(first.involvedObject.name, 'bundle-x');
    assert.match(first.message, /ConfigMap bundle-renovate key automerge/);
  });

  it("an executor's notice of a lasting fact is told once across nudges; others on every nudge", async () => {
    const env = setup();
    const direct = env.executors.direct;
    assert.ok(direct !== undefined);
    direct.answer = () =>
      Promise.resolve({
        result: { ok: true, detail: 'https://forge.example/acme/bundle-x/pull/1' },
        notices: [
          {
            type: 'Warning',
            reason: 'NudgeSettingUnsupported',
            message: 'ConfigMap cm key automergeSchedule: no',
            once: true,
          },
          { type: 'Warning', reason: 'NudgeAutoMergeFailed', message: 'auto-merge is not allowed' },
        ],
      });
    await env.addBuild();
    await env.settle();
    await env.addBuild({ name: 'operand-a-on-push-newer', createdAt: '2025-01-15T10:40:00Z' });
    await env.settle('operand-a-on-push-newer');
    assert.equal(direct.requests.length, 2);
    const lasting = env.storedEvents().filter((e) => e.reason === 'NudgeSettingUnsupported');
    assert.equal(lasting.length, 1, 'once, not once per nudge');
    assert.equal(lasting[0]?.involvedObject.name, 'operand-a');
    assert.equal(env.events.filter((e) => e.reason === 'NudgeAutoMergeFailed').length, 2);
  });

  it('a failed build fires nothing; a namespace without a NudgeConfig is left alone', async () => {
    const failed = setup();
    await failed.addBuild({ succeeded: 'False' });
    await failed.settle();
    assert.equal(failed.executors.direct?.requests.length, 0);
    assert.equal(markerOf(failed.stored()), 'v1 *=skipped:not-succeeded');
    assert.deepEqual(finalizersOf(failed.stored()), []);

    const alone = setup();
    alone.nudgeConfigs.remove(`${NS}/nudge-config`);
    await alone.addBuild();
    await alone.settle();
    assert.equal(alone.executors.direct?.requests.length, 0);
    assert.equal(markerOf(alone.stored()), undefined);
    assert.deepEqual(finalizersOf(alone.stored()), []);
    assert.equal(alone.client.calls.filter((c) => c.verb !== 'get').length, 1, 'only the test created the build');
  });

  it('a target whose Component vanished between the decision and the fire is skipped, not fired', async () => {
    const env = setup();
    await env.addBuild();
    const direct = env.executors.direct;
    assert.ok(direct !== undefined);
    // Decide with bundle-x present, then lose it before the fire: remove it as the patch lands.
    const original = env.client.patch.bind(env.client);
    env.client.patch = (async (...args: Parameters<typeof original>) => {
      const written = await original(...args);
      if (JSON.stringify(args[4]).includes('firing')) env.components.remove(`${NS}/bundle-x`);
      return written;
    }) as typeof env.client.patch;
    await env.reconcile();
    assert.equal(direct.requests.length, 0);
    assert.equal(markerOf(env.stored()), 'v1 bundle-x=skipped:target-not-found');
    assert.deepEqual(finalizersOf(env.stored()), []);
  });
});
