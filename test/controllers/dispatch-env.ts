// The dispatcher's reconciler on one machine: in-memory caches fed from an in-memory API server with
// real resourceVersion compare-and-swap (test/runtime/fakes.ts), tenant my-tenant where operand-a
// nudges bundle-x through the NudgeConfig, and a recording executor. A fake executor is fine here:
// this is a unit test of the reconciler, whose contract with executors is executor.ts.
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { CONFIG_MAPS, CORE_EVENTS, PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import { StoreChangeGroupSource } from '../../src/cluster/changegroups.ts';
import {
  CHANGE_GROUPS_KIND,
  COMPONENTS_KIND,
  NUDGE_CONFIGS_KIND,
  PIPELINE_RUNS_KIND,
} from '../../src/cluster/watched-kinds.ts';
import type {
  BatchNudgeRequest,
  FireOutcome,
  NudgeExecutor,
  NudgeRequest,
} from '../../src/controllers/dispatch/executor.ts';
import { dispatchMetrics } from '../../src/controllers/dispatch/metrics.ts';
import { DispatchReconciler, type DispatchReconcilerOptions } from '../../src/controllers/dispatch/reconciler.ts';
import type { DispatchExecutor } from '../../src/domain/nudge/dispatch-intents.ts';
import type { EventRecorder } from '../../src/runtime/events.ts';
import { createRegistry, type Registry } from '../../src/runtime/metrics.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ClusterChangeGroup } from '../../src/schema/changegroup.ts';
import type { ClusterComponent } from '../../src/schema/component.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import type { PipelineRun } from '../../src/schema/pipelinerun.ts';
import { decoded } from '../support/decoded.ts';
import { buildRun, DIGEST } from '../domain/changegroup/fixtures.ts';
import { FakeObjectClient } from '../runtime/fakes.ts';

export const NS = 'my-tenant';
export const BUILD = 'operand-a-on-push-x7k2p';
export const T0 = Date.parse('2025-01-15T10:30:00Z');

export interface RecordedEvent {
  readonly kind: string | undefined;
  readonly name: string | undefined;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
}

/** Records every request; answers with `answer` (default: a pull request). */
export class RecordingExecutor implements NudgeExecutor {
  readonly kind: DispatchExecutor;
  readonly requests: NudgeRequest[] = [];
  answer: (request: NudgeRequest, signal?: AbortSignal) => Promise<FireOutcome> = () =>
    Promise.resolve({ result: { ok: true, detail: 'https://forge.example/acme/bundle-x/pull/1' } });

  constructor(kind: DispatchExecutor = 'direct') {
    this.kind = kind;
  }

  fire(request: NudgeRequest, signal?: AbortSignal): Promise<FireOutcome> {
    this.requests.push(request);
    return this.answer(request, signal);
  }

  readonly batches: BatchNudgeRequest[] = [];
  answerBatch: (request: BatchNudgeRequest, signal?: AbortSignal) => Promise<FireOutcome> = () =>
    Promise.resolve({ result: { ok: true, detail: 'https://forge.example/acme/bundle-x/pull/2' } });

  fireBatch(request: BatchNudgeRequest, signal?: AbortSignal): Promise<FireOutcome> {
    this.batches.push(request);
    return this.answerBatch(request, signal);
  }
}

/** Executors that record their requests, one per kind. */
export function recordingExecutors(
  kinds: readonly DispatchExecutor[] = ['direct'],
): Partial<Record<DispatchExecutor, RecordingExecutor>> {
  return Object.fromEntries(kinds.map((kind) => [kind, new RecordingExecutor(kind)]));
}

/** An event recorder writing into `events`. */
export function recordingEvents(): { events: RecordedEvent[]; recorder: { event: EventRecorder['event'] } } {
  const events: RecordedEvent[] = [];
  return {
    events,
    recorder: {
      event: (object, type, reason, message) =>
        events.push({ kind: object.kind, name: object.metadata?.name, type, reason, message }),
    },
  };
}

function component(name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) {
  return decoded(COMPONENTS_KIND, {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace: NS, uid: `uid-${name}`, ...(annotations === undefined ? {} : { annotations }) },
    spec: { componentName: name, ...spec },
  } as KubeObject);
}

export function operandA(spec: Record<string, unknown> = {}, annotations?: Record<string, string>): ClusterComponent {
  return component(
    'operand-a',
    {
      containerImage: 'quay.io/org/operand-a',
      source: { git: { url: 'https://forge.example/acme/a', revision: 'main' } },
      ...spec,
    },
    annotations,
  );
}

export function bundleX(annotations?: Record<string, string>): ClusterComponent {
  return component(
    'bundle-x',
    { source: { git: { url: 'https://forge.example/acme/bundle-x', revision: 'main' } } },
    annotations,
  );
}

export function nudgeConfig(annotations?: Record<string, string>): ClusterNudgeConfig {
  return decoded(NUDGE_CONFIGS_KIND, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: {
      name: 'nudge-config',
      namespace: NS,
      uid: 'uid-nc',
      ...(annotations === undefined ? {} : { annotations }),
    },
    spec: { nudges: [{ from: 'operand-a', to: 'bundle-x' }] },
  } as KubeObject);
}

export function changeGroup(phase = 'Waiting'): ClusterChangeGroup {
  return decoded(CHANGE_GROUPS_KIND, {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ChangeGroup',
    metadata: { name: 'bundle-x-update', namespace: NS },
    spec: { nudgedComponent: 'bundle-x', nudgingComponents: [{ name: 'operand-a' }] },
    status: { phase },
  } as KubeObject);
}

export function setup(
  options: { executors?: readonly DispatchExecutor[]; overrides?: Partial<DispatchReconcilerOptions> } = {},
) {
  const client = new FakeObjectClient();
  const builds = new Store<PipelineRun>();
  const components = new Store<ClusterComponent>();
  const nudgeConfigs = new Store<ClusterNudgeConfig>();
  const changeGroups = new Store<ClusterChangeGroup>();
  const nudgeRuns = new Store<PipelineRun>();
  components.upsert(operandA());
  components.upsert(bundleX());
  nudgeConfigs.upsert(nudgeConfig());
  const executors = recordingExecutors(options.executors);
  const { events, recorder } = recordingEvents();
  const registry: Registry = createRegistry();
  let now = T0;
  const reconciler = new DispatchReconciler({
    client,
    builds,
    components,
    nudgeConfigs,
    changeGroups: new StoreChangeGroupSource(changeGroups),
    nudgeRuns,
    executors,
    defaultExecutor: 'direct',
    events: recorder,
    metrics: dispatchMetrics(registry),
    now: () => now,
    ...options.overrides,
  });

  /** The informer: the build as the API server holds it now. */
  const sync = (name = BUILD): PipelineRun | undefined => {
    const stored = client.objects.get(`${PIPELINE_RUNS.plural}/${NS}/${name}`);
    if (stored === undefined) {
      builds.remove(`${NS}/${name}`);
      return undefined;
    }
    const run = decoded(PIPELINE_RUNS_KIND, stored);
    builds.upsert(run);
    return run;
  };

  /** A build of operand-a stored in the API server and the cache. */
  const addBuild = async (
    overrides: Parameters<typeof buildRun>[0] & { annotations?: Record<string, string> } = {},
  ) => {
    const { annotations, ...rest } = overrides;
    const raw = buildRun({ name: BUILD, namespace: NS, digest: DIGEST('3'), ...rest }) as KubeObject;
    raw.metadata = {
      ...raw.metadata,
      uid: `uid-${rest.name ?? BUILD}`,
      annotations: { ...raw.metadata?.annotations, ...annotations },
    };
    await client.create(PIPELINE_RUNS, raw);
    return sync(rest.name ?? BUILD);
  };

  /** The nudge PipelineRuns informer (the held-nudge records among them), as the API server holds them. */
  const syncRecords = () => {
    for (const [key, object] of client.objects) {
      if (!key.startsWith(`${PIPELINE_RUNS.plural}/`)) continue;
      if (object.metadata?.labels?.['build.appstudio.redhat.com/type'] === 'nudge') {
        nudgeRuns.upsert(decoded(PIPELINE_RUNS_KIND, object));
      }
    }
  };

  const reconcile = (name = BUILD) => reconciler.reconcile({ namespace: NS, name }, new AbortController().signal);

  /** Reconciles and syncs until nothing is written any more (at most `limit` rounds). */
  const settle = async (name = BUILD, limit = 8) => {
    for (let round = 0; round < limit; round += 1) {
      const writes = client.calls.length;
      const result = await reconcile(name);
      sync(name);
      if (client.calls.length === writes) return result;
    }
    throw new Error('the dispatcher did not settle');
  };

  const stored = (name = BUILD) => client.objects.get(`${PIPELINE_RUNS.plural}/${NS}/${name}`);
  const storedEvents = () =>
    [...client.objects.entries()]
      .filter(([key]) => key.startsWith(`${CORE_EVENTS.plural}/`))
      .map(
        ([, e]) =>
          e as KubeObject & { reason: string; message: string; involvedObject: { kind?: string; name?: string } },
      );
  const putConfigMap = (name: string, data: Record<string, string>) =>
    client.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: NS, name },
      data,
    } as KubeObject);

  return {
    client,
    builds,
    components,
    nudgeConfigs,
    changeGroups,
    nudgeRuns,
    syncRecords,
    executors,
    events,
    registry,
    reconciler,
    sync,
    addBuild,
    reconcile,
    settle,
    stored,
    storedEvents,
    putConfigMap,
    setNow: (ms: number) => {
      now = ms;
    },
  };
}
