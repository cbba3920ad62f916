// The validating webhook for NudgeConfig create/update: decode the request, read the object like a
// manifest, ask the one pure decision (src/domain/nudgeconfig-admission.ts), answer.
import { decideNudgeConfigAdmission, namesToCheck } from '../domain/nudgeconfig-admission.ts';
import { manifestSetFromObjects } from '../manifest/parse.ts';
import { SERVED_NUDGE_CONFIG_API_VERSIONS } from '../schema/api-versions.ts';
import { NUDGE_CONFIG_GROUP, NUDGE_CONFIG_KIND } from '../schema/nudgeconfig.ts';
import type { AdmissionDecision, AdmissionHandler, AdmissionRequest } from './admission.ts';
import { admittedApiVersion, type ServedKind } from './served-versions.ts';

/** Both versions the CRD serves, each judged by its own rules (D1). */
const SERVED: ServedKind = {
  group: NUDGE_CONFIG_GROUP,
  kind: NUDGE_CONFIG_KIND,
  apiVersions: SERVED_NUDGE_CONFIG_API_VERSIONS,
};

/** Which Components exist: a cache for speed, a live read to confirm a miss before denying. */
export interface ComponentLookup {
  /** The names among `names` that have no Component in `namespace`. */
  missing(namespace: string, names: readonly string[], signal: AbortSignal): Promise<ReadonlySet<string>>;
}

export function nudgeConfigValidator(components: ComponentLookup): AdmissionHandler {
  return async (request: AdmissionRequest, signal: AbortSignal): Promise<AdmissionDecision> => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { allowed: true };
    const admitted = admittedApiVersion(request, SERVED);
    if ('denial' in admitted) return admitted.denial;
    const { apiVersion } = admitted;
    const origin = `admission request ${request.uid}`;
    const read = (object: unknown) => manifestSetFromObjects([{ value: asSent(object, request, apiVersion), origin }]);
    const incoming = read(request.object);
    const config = incoming.nudgeConfigs[0];
    const previous = request.operation === 'UPDATE' ? read(request.oldObject).nudgeConfigs[0] : undefined;
    const namespace = request.namespace ?? config?.ref.namespace ?? '';
    const names = config === undefined ? [] : namesToCheck(request.operation, config.entries, previous?.entries);
    const missing = names.length === 0 ? new Set<string>() : await components.missing(namespace, names, signal);
    const decision = decideNudgeConfigAdmission({
      operation: request.operation,
      incoming,
      missingComponents: missing,
      ...(previous === undefined ? {} : { previousEntries: previous.entries }),
    });
    const warnings = decision.warnings.length > 0 ? { warnings: [...decision.warnings] } : {};
    return decision.allowed
      ? { allowed: true, ...warnings }
      : { allowed: false, code: 422, reason: 'Invalid', message: decision.message, ...warnings };
  };
}

/**
 * The object as the client wrote it. Conversion is `None`, so the object in the requested version
 * is the one sent with that apiVersion. The API server may leave `metadata.namespace` out on
 * CREATE; the request's namespace is authoritative.
 */
function asSent(object: unknown, request: AdmissionRequest, apiVersion: string): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return object;
  const value = object as Record<string, unknown>;
  const metadata = value.metadata;
  const { namespace } = request;
  const withNamespace =
    namespace === undefined || typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)
      ? {}
      : { metadata: { ...(metadata as Record<string, unknown>), namespace } };
  return { ...value, apiVersion, ...withNamespace };
}
