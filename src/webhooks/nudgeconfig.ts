// The validating webhook for NudgeConfig create/update: decode the request, read the object like a
// manifest, ask the one pure decision (src/domain/nudgeconfig-admission.ts), answer.
import { decideNudgeConfigAdmission, namesToCheck } from '../domain/nudgeconfig-admission.ts';
import { manifestSetFromObjects } from '../manifest/parse.ts';
import type { AdmissionDecision, AdmissionHandler, AdmissionRequest } from './admission.ts';

/** Which Components exist: a cache for speed, a live read to confirm a miss before denying. */
export interface ComponentLookup {
  /** The names among `names` that have no Component in `namespace`. */
  missing(namespace: string, names: readonly string[], signal: AbortSignal): Promise<ReadonlySet<string>>;
}

export function nudgeConfigValidator(components: ComponentLookup): AdmissionHandler {
  return async (request: AdmissionRequest, signal: AbortSignal): Promise<AdmissionDecision> => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { allowed: true };
    const origin = `admission request ${request.uid}`;
    const incoming = manifestSetFromObjects([{ value: withNamespace(request.object, request.namespace), origin }]);
    const config = incoming.nudgeConfigs[0];
    const previous =
      request.operation === 'UPDATE'
        ? manifestSetFromObjects([{ value: withNamespace(request.oldObject, request.namespace), origin }])
            .nudgeConfigs[0]
        : undefined;
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
 * The API server sends the object as stored, where `metadata.namespace` may be absent on CREATE;
 * the request's namespace is authoritative.
 */
function withNamespace(object: unknown, namespace: string | undefined): unknown {
  if (namespace === undefined || typeof object !== 'object' || object === null || Array.isArray(object)) return object;
  const value = object as Record<string, unknown>;
  const metadata = value.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return object;
  return { ...value, metadata: { ...(metadata as Record<string, unknown>), namespace } };
}
