// A ChangeGroup that lets go of a held nudge it will not use (it was deleted, or the build came
// too late) hands it back to ordinary nudging (ADR 29). For a nudge PipelineRun build-service or
// integration-service created, that is a copy of the run (src/controllers/redispatch.ts). A
// held-nudge record the dispatcher created has no Renovate task to copy: its target is fired by
// the dispatcher instead (docs/decisions.md N19). The ChangeGroup writes what it always writes on
// a release, the `target=changegroup` pair in the record's released-targets annotation; the
// dispatcher reads it here and turns the build's `held:<changegroup>` entry into a fire, once.
import { HELD_TARGETS_ANNOTATION, RELEASED_TARGETS_ANNOTATION, targetPairsOf } from '../changegroup/hold-decision.ts';
import { NUDGED_COMPONENTS_ANNOTATION } from '../nudge-pipelinerun.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import { DISPATCHED_FROM_ANNOTATION, heldRecordName, type BuildIdentity } from './dispatch-held-record.ts';
import type { DispatchMarker, TargetState } from './dispatch-marker.ts';

/** A held-nudge record the dispatcher created, not a build-service or integration-service run. */
export function isDispatcherHeldRecord(run: PipelineRun): boolean {
  return run.metadata?.annotations?.[DISPATCHED_FROM_ANNOTATION] !== undefined;
}

/**
 * The build a held-nudge record stands for, as the dispatcher's controller keys builds: a change
 * of the record (its release) must wake that build. Undefined for any other PipelineRun.
 */
export function recordBuildKey(run: PipelineRun): { readonly namespace: string; readonly name: string } | undefined {
  const name = run.metadata?.annotations?.[DISPATCHED_FROM_ANNOTATION];
  const namespace = run.metadata?.namespace;
  if (name === undefined || name === '' || namespace === undefined) return undefined;
  return { namespace, name };
}

/**
 * Which of `build`'s held targets their ChangeGroup has released: target -> that ChangeGroup.
 * Only records of this very build count: the record's name is derived from the build's uid and
 * the target (heldRecordName), so a record left by an older build of the same name, or one edited
 * to name another target, is ignored. A pair counts only if the record holds it and releases it.
 */
export function releasedHolds(build: BuildIdentity, records: readonly PipelineRun[]): Map<string, string> {
  const released = new Map<string, string>();
  for (const record of records) {
    const metadata = record.metadata ?? {};
    const annotations = metadata.annotations ?? {};
    if (metadata.namespace !== build.namespace || annotations[DISPATCHED_FROM_ANNOTATION] !== build.name) continue;
    const target = (annotations[NUDGED_COMPONENTS_ANNOTATION] ?? '').trim();
    if (target === '' || metadata.name !== heldRecordName(build, target)) continue;
    const held = targetPairsOf(annotations[HELD_TARGETS_ANNOTATION]);
    for (const pair of targetPairsOf(annotations[RELEASED_TARGETS_ANNOTATION])) {
      const changeGroup = pair.startsWith(`${target}=`) ? pair.slice(target.length + 1) : '';
      if (changeGroup !== '' && held.has(pair)) released.set(target, changeGroup);
    }
  }
  return released;
}

/** A `held:<changegroup>` entry whose ChangeGroup has released its record: due to be fired. */
export function isReleasedHold(
  name: string,
  state: TargetState,
  released: ReadonlyMap<string, string> | undefined,
): boolean {
  return state.kind === 'held' && released?.get(name) === state.changeGroup;
}

/** Whether the marker names a released hold, which keeps the build from being settled. */
export function hasReleasedHold(marker: DispatchMarker, released: ReadonlyMap<string, string> | undefined): boolean {
  return released !== undefined && marker.entries.some(({ name, state }) => isReleasedHold(name, state, released));
}
