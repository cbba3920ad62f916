// The mutating webhook on nudge PipelineRun creation (docs/decisions.md D2): a nudge whose targets an
// active ChangeGroup holds is admitted already cancelled, annotated with the ChangeGroup and the
// reason. It never denies: holding a nudge back is an optimisation, blocking a build is not an
// option, and the registration's `failurePolicy: Ignore` admits the run unchanged should this
// handler fail.
import {
  cancelPatch,
  decideNudgeHold,
  PIPELINERUN_CANCELLED,
  isNeverHeld,
} from '../domain/changegroup/hold-decision.ts';
import { decodePipelineRun } from '../domain/cluster-objects.ts';
import { nudgePipelineRunOf } from '../domain/nudge-pipelinerun.ts';
import type { AdmissionDecision, AdmissionHandler, AdmissionRequest } from './admission.ts';
import type { ChangeGroupSource } from '../cluster/changegroups.ts';

export function pipelineRunHoldMutator(changeGroups: ChangeGroupSource): AdmissionHandler {
  return (request: AdmissionRequest): AdmissionDecision => {
    if (request.operation !== 'CREATE') return { allowed: true };
    // A namespace without a ChangeGroup holds nothing, whatever the run says: answered before the
    // object is read (docs/decisions.md N49), as most nudges of a cluster are.
    const inRequestNamespace =
      request.namespace === undefined ? undefined : changeGroups.inNamespace(request.namespace);
    if (inRequestNamespace?.length === 0) return { allowed: true };
    // Decoded once, as the informer decodes the PipelineRuns it caches.
    const run = decodePipelineRun(request.object);
    // Already cancelled (nudger's own held-nudge records are created so): nothing to hold.
    if (!run.ok || run.object.spec?.status === PIPELINERUN_CANCELLED) return { allowed: true };
    const reading = nudgePipelineRunOf(run.object);
    if (!reading.ok) return { allowed: true };
    const { nudge } = reading;
    // The request's namespace is authoritative: the object may not carry one on CREATE.
    const namespace = request.namespace ?? nudge.namespace;
    const decision = decideNudgeHold(
      {
        namespace,
        nudgingComponent: nudge.nudgingComponent,
        nudgedComponents: nudge.nudgedComponents,
        redispatched: isNeverHeld(nudge.pipelineRun.annotations),
      },
      inRequestNamespace ?? changeGroups.inNamespace(namespace),
    );
    if (decision.action === 'leave') return { allowed: true };
    return { allowed: true, patch: cancelPatch(run.object, decision) };
  };
}
