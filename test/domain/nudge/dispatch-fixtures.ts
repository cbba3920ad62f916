// Inputs for the dispatcher's decision: tenant my-tenant, where operand-a nudges bundle-x and
// operator through the NudgeConfig, and a controller stand-in that applies intents to the build
// PipelineRun the way the real one patches it (marker writes, finalizers).
import assert from 'node:assert/strict';
import type { ChangeGroupView } from '../../../src/domain/changegroup/hold-decision.ts';
import { decodePipelineRun } from '../../../src/domain/cluster-objects.ts';
import { buildNamespaceGraph, type NamespaceGraph } from '../../../src/domain/graph.ts';
import type { DispatchIntent, FireIntent } from '../../../src/domain/nudge/dispatch-intents.ts';
import {
  DISPATCH_MARKER_ANNOTATION,
  parseMarker,
  serializeMarker,
  withEntries,
  type DispatchMarker,
} from '../../../src/domain/nudge/dispatch-marker.ts';
import { verifyDispatchBuild } from '../../../src/domain/nudge/dispatch-verify.ts';
import { settleFire, type DispatchInput } from '../../../src/domain/nudge/dispatch.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';
import { buildRun, DIGEST } from '../changegroup/fixtures.ts';
import { component, manifestSet, nudgeConfig, type EntrySpec } from '../fixtures.ts';

export { DIGEST };

export const NAMESPACE = 'my-tenant';
export const SOURCE = 'operand-a';
export const BUILD = 'operand-a-on-push-x7k2p';
export const T0 = Date.parse('2025-01-15T10:30:00Z');
export const MINUTE = 60_000;
export const OPERAND_A = { containerImage: 'quay.io/org/operand-a', branch: 'main' } as const;

/** The build PipelineRun as the informer holds it (decoded), with nudger's metadata on top. */
export function build(
  overrides: Parameters<typeof buildRun>[0] & {
    finalizers?: readonly string[];
    deleting?: boolean;
    marker?: string;
    annotations?: Record<string, string>;
    running?: boolean;
  } = {},
): PipelineRun {
  const { finalizers, deleting, marker, annotations, running, ...run } = overrides;
  const raw = buildRun({ digest: DIGEST('3'), ...run }) as {
    metadata: Record<string, unknown> & { annotations: Record<string, string> };
    status: Record<string, unknown>;
  };
  raw.metadata.uid = 'b6f0d6a8-0000-4000-8000-000000000001';
  if (finalizers !== undefined) raw.metadata.finalizers = [...finalizers];
  if (deleting === true) raw.metadata.deletionTimestamp = '2025-01-15T10:40:00Z';
  raw.metadata.annotations = {
    ...raw.metadata.annotations,
    ...annotations,
    ...(marker === undefined ? {} : { [DISPATCH_MARKER_ANNOTATION]: marker }),
  };
  if (running === true) raw.status = { conditions: [{ type: 'Succeeded', status: 'Unknown', reason: 'Running' }] };
  const decoded = decodePipelineRun(raw);
  assert.ok(decoded.ok);
  return decoded.object;
}

/** The namespace graph: NudgeConfig entries, plus `build-nudges-ref` of operand-a when given. */
export function graph(
  entries: readonly (readonly [string, string] | EntrySpec)[] = [
    [SOURCE, 'bundle-x'],
    [SOURCE, 'operator'],
  ],
  legacy: readonly string[] = [],
): NamespaceGraph {
  return buildNamespaceGraph(
    NAMESPACE,
    manifestSet({
      components: [component(NAMESPACE, SOURCE, legacy), component(NAMESPACE, 'bundle-x')],
      nudgeConfigs: [nudgeConfig(NAMESPACE, entries)],
    }),
  );
}

export function changeGroup(overrides: Partial<ChangeGroupView> = {}): ChangeGroupView {
  return {
    name: 'bundle-x-update',
    namespace: NAMESPACE,
    nudgedComponent: 'bundle-x',
    nudgingComponents: [SOURCE],
    phase: 'Waiting',
    ...overrides,
  };
}

/** A full input for `run`, verified as the controller would verify it. */
export function input(run: PipelineRun, overrides: Partial<DispatchInput> = {}): DispatchInput {
  return {
    build: run,
    verification: verifyDispatchBuild(run, OPERAND_A),
    hasNudgeConfig: true,
    graph: graph(),
    executor: 'direct',
    components: new Set([SOURCE, 'bundle-x', 'operator']),
    changeGroups: [],
    now: T0,
    ...overrides,
  };
}

export function markerOf(run: PipelineRun): DispatchMarker | undefined {
  const text = run.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
  if (text === undefined) return undefined;
  const reading = parseMarker(text);
  assert.ok(reading.ok, reading.ok ? '' : reading.problem.message);
  return reading.marker;
}

/**
 * One intent applied to the build as the controller patches it. Returns the new object (a new
 * resourceVersion, as it were); fire, hold, event, report and scheduleRetry leave it unchanged.
 */
export function applyToBuild(run: PipelineRun, intent: DispatchIntent): PipelineRun {
  const metadata = run.metadata ?? {};
  switch (intent.kind) {
    case 'addFinalizer':
      return { ...run, metadata: { ...metadata, finalizers: [...(metadata.finalizers ?? []), intent.finalizer] } };
    case 'removeFinalizer':
      return {
        ...run,
        metadata: { ...metadata, finalizers: (metadata.finalizers ?? []).filter((f) => f !== intent.finalizer) },
      };
    case 'recordOutcomes': {
      const next = serializeMarker(withEntries(markerOf(run), intent.entries));
      return {
        ...run,
        metadata: { ...metadata, annotations: { ...(metadata.annotations ?? {}), [DISPATCH_MARKER_ANNOTATION]: next } },
      };
    }
    default:
      return run;
  }
}

export function applyAll(run: PipelineRun, intents: readonly DispatchIntent[]): PipelineRun {
  return intents.reduce(applyToBuild, run);
}

export function kinds(intents: readonly DispatchIntent[]): string[] {
  return intents.map((i) => i.kind);
}

export function firesOf(intents: readonly DispatchIntent[]): FireIntent[] {
  return intents.filter((i): i is FireIntent => i.kind === 'fire');
}

/** Applies intents, settling every fire with `ok`, as the controller does, and returns the build. */
export function runPass(run: PipelineRun, intents: readonly DispatchIntent[], now = T0): PipelineRun {
  let current = run;
  for (const intent of intents) {
    current = applyAll(current, [intent]);
    if (intent.kind === 'fire') current = applyAll(current, settleFire(intent, { ok: true }, now));
  }
  return current;
}
