// The validating webhook for ChangeGroup create/update (ADR 59): it decodes the request's object
// with the decoder the informer uses, gathers the facts through lookups (cache first, rate-limited
// live checks) and answers with the pure decision of src/domain/changegroup/admission.ts.
import { changeGroupView, decideChangeGroupAdmission, nudgersToCheck } from '../domain/changegroup/admission.ts';
import { decodeChangeGroup } from '../domain/cluster-objects.ts';
import { CHANGE_GROUP_API_VERSION, CHANGE_GROUP_GROUP, CHANGE_GROUP_KIND } from '../schema/changegroup.ts';
import type { AdmissionDecision, AdmissionHandler, AdmissionRequest } from './admission.ts';
import { componentCheckDenial, type ComponentLookup } from './nudgeconfig.ts';
import { admittedApiVersion } from './served-versions.ts';
import type { ChangeGroupSource } from '../cluster/changegroups.ts';

/** Which listed nudging Components have no edge to the target; a cache for speed, live to confirm. */
export interface NudgeEdgeLookup {
  withoutEdge(
    namespace: string,
    nudged: string,
    nudging: readonly string[],
    signal: AbortSignal,
  ): Promise<ReadonlySet<string>>;
}

export interface ChangeGroupValidatorLookups {
  readonly components: ComponentLookup;
  readonly edges: NudgeEdgeLookup;
  readonly changeGroups: ChangeGroupSource;
}

export function changeGroupValidator(lookups: ChangeGroupValidatorLookups): AdmissionHandler {
  return async (request: AdmissionRequest, signal: AbortSignal): Promise<AdmissionDecision> => {
    const { operation } = request;
    if (operation !== 'CREATE' && operation !== 'UPDATE') return { allowed: true };
    const admitted = admittedApiVersion(request, {
      group: CHANGE_GROUP_GROUP,
      kind: CHANGE_GROUP_KIND,
      apiVersions: [CHANGE_GROUP_API_VERSION],
    });
    if ('denial' in admitted) return admitted.denial;
    const decoded = decodeChangeGroup(request.object);
    // The API server checks the CRD schema before this webhook, so only a request it never sends
    // gets here.
    if (!decoded.ok) {
      const message = decoded.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');
      return { allowed: false, code: 422, reason: 'Invalid', message };
    }
    const changeGroup = changeGroupView(decoded.object, request.namespace);
    const old = operation === 'UPDATE' ? decodeChangeGroup(request.oldObject) : undefined;
    const previous = old?.ok === true ? changeGroupView(old.object, request.namespace) : undefined;
    const { namespace, nudgedComponent } = changeGroup;
    const toCheck = nudgersToCheck(operation, changeGroup, previous);
    let missing: ReadonlySet<string>;
    let nudgersWithoutEdge: ReadonlySet<string>;
    try {
      [missing, nudgersWithoutEdge] = await Promise.all([
        operation === 'CREATE'
          ? lookups.components.missing(namespace, [nudgedComponent], signal)
          : Promise.resolve(new Set<string>()),
        toCheck.length === 0
          ? Promise.resolve(new Set<string>())
          : lookups.edges.withoutEdge(namespace, nudgedComponent, toCheck, signal),
      ]);
    } catch (error) {
      // Live existence checks are rate-limited (component-lookup.ts): past the limit, retry.
      const denial = componentCheckDenial(error);
      if (denial === undefined) throw error;
      return denial;
    }
    const decision = decideChangeGroupAdmission({
      operation,
      changeGroup,
      nudgedExists: !missing.has(nudgedComponent),
      nudgersWithoutEdge,
      changeGroups: lookups.changeGroups.inNamespace(namespace),
    });
    return decision.allowed
      ? { allowed: true }
      : { allowed: false, code: 422, reason: 'Invalid', message: decision.message };
  };
}
