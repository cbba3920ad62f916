// Handing held nudges back to ordinary nudging (ADR 29). A nudge PipelineRun cancelled at admission
// for targets no ChangeGroup covers, or held by a ChangeGroup that can no longer use it, must still
// update those targets: nudger creates a copy of the run for exactly those targets, which
// build-service's Tekton then executes as usual. The copy's name is derived from the original and
// the targets, so doing this twice (a crash between the create and the marker) creates one copy.
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { isAlreadyExists } from '../adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../adapters/kubernetes/resources.ts';
import { fingerprint } from '../domain/changegroup/fingerprint.ts';
import { REDISPATCHED_FROM_ANNOTATION } from '../domain/changegroup/hold-decision.ts';
import { NUDGED_COMPONENTS_ANNOTATION } from '../domain/nudge-pipelinerun.ts';
import { isDispatcherHeldRecord } from '../domain/nudge/dispatch-release.ts';
import type { PipelineRun } from '../schema/pipelinerun.ts';

export { REDISPATCHED_FROM_ANNOTATION, REDISPATCHED_TARGETS_ANNOTATION } from '../domain/changegroup/hold-decision.ts';

const FIELD_MANAGER = 'nudger-redispatch';
const NAME_LIMIT = 63;

/** Deterministic, DNS-1123, at most 63 characters: `<original, shortened>-rd-<hash of targets>`. */
export function redispatchName(original: string, targets: readonly string[]): string {
  const suffix = `-rd-${fingerprint([...targets].sort())}`;
  return `${original.slice(0, NAME_LIMIT - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/** Every key nudger writes on nudge runs shares this prefix; the copy starts with none of them. */
const NUDGER_ANNOTATION_PREFIX = 'nudger.konflux-ci.dev/';

function withoutNudgerAnnotations(annotations: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(annotations).filter(
      ([key]) =>
        !key.startsWith(NUDGER_ANNOTATION_PREFIX) && key !== 'kubectl.kubernetes.io/last-applied-configuration',
    ),
  );
}

/** A copy was asked of a held-nudge record the dispatcher made: a programming error. */
export class NotCopyableError extends Error {
  readonly pipelineRun: string;
  constructor(pipelineRun: string) {
    super(
      `PipelineRun ${pipelineRun} is a held-nudge record of nudger's dispatcher, not a Renovate run: ` +
        'it is released for the dispatcher to fire (docs/decisions.md N19), never copied',
    );
    this.name = 'NotCopyableError';
    this.pipelineRun = pipelineRun;
  }
}

/** The copy to create: same labels, annotations and spec, nudging only `targets`, not cancelled. */
export function redispatchCopy(original: PipelineRun, targets: readonly string[]): PipelineRun {
  const metadata = original.metadata ?? {};
  const name = metadata.name ?? '';
  // A record's spec is a stand-in: run as a copy, it would nudge nothing, and its target never.
  if (isDispatcherHeldRecord(original)) throw new NotCopyableError(`${metadata.namespace ?? ''}/${name}`);
  // Everything else of the spec is Tekton's and passes through as it came.
  const { status: _status, ...spec } = original.spec ?? {};
  return {
    apiVersion: original.apiVersion ?? `${PIPELINE_RUNS.group}/${PIPELINE_RUNS.version}`,
    kind: PIPELINE_RUNS.kind,
    metadata: {
      name: redispatchName(name, targets),
      ...(metadata.namespace === undefined ? {} : { namespace: metadata.namespace }),
      labels: { ...(metadata.labels ?? {}) },
      annotations: {
        ...withoutNudgerAnnotations(metadata.annotations ?? {}),
        [NUDGED_COMPONENTS_ANNOTATION]: [...targets].sort().join(' '),
        [REDISPATCHED_FROM_ANNOTATION]: name,
      },
    },
    spec,
  };
}

/**
 * Creates the copy (or finds it already there) and then records `marker` on the original, so the
 * caller stops offering it. `marker` is the annotation key and value to merge onto the original.
 */
export async function redispatchNudge(
  client: ObjectClient,
  original: PipelineRun,
  targets: readonly string[],
  marker: { readonly key: string; readonly value: string },
  signal?: AbortSignal,
): Promise<string> {
  const copy = redispatchCopy(original, targets);
  const namespace = original.metadata?.namespace ?? '';
  const copyName = copy.metadata?.name ?? '';
  try {
    await client.create(PIPELINE_RUNS, copy, {
      fieldManager: FIELD_MANAGER,
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  await markOriginal(client, namespace, original, marker, signal);
  return copyName;
}

/**
 * Releases a held-nudge record of nudger's dispatcher: only `marker` is merged onto it. The
 * dispatcher reads the released pair and fires the target from its build (docs/decisions.md N19).
 */
export async function releaseHeldRecord(
  client: ObjectClient,
  record: PipelineRun,
  marker: { readonly key: string; readonly value: string },
  signal?: AbortSignal,
): Promise<void> {
  await markOriginal(client, record.metadata?.namespace ?? '', record, marker, signal);
}

async function markOriginal(
  client: ObjectClient,
  namespace: string,
  original: PipelineRun,
  marker: { readonly key: string; readonly value: string },
  signal: AbortSignal | undefined,
): Promise<void> {
  await client.patch(
    PIPELINE_RUNS,
    namespace,
    original.metadata?.name ?? '',
    'merge',
    { metadata: { annotations: { [marker.key]: marker.value } } },
    { fieldManager: FIELD_MANAGER, ...(signal === undefined ? {} : { signal }) },
  );
}
