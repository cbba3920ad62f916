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
  /**
   * The names among `names` that have no Component in `namespace`; ComponentCheckUnavailableError
   * when some could be confirmed neither way (their live check was rate-limited).
   */
  missing(namespace: string, names: readonly string[], signal: AbortSignal): Promise<ReadonlySet<string>>;
}

/** Some names were in no cache and could not be confirmed live: the live-check budget was spent. */
export class ComponentCheckUnavailableError extends Error {
  override readonly name = 'ComponentCheckUnavailableError';
  readonly namespace: string;
  readonly names: readonly string[];
  constructor(namespace: string, names: readonly string[]) {
    // A forged request may name thousands: the message names a few.
    const shown = names.slice(0, 5).map((n) => JSON.stringify(n.length <= 63 ? n : `${n.slice(0, 63)}…`));
    const more = names.length > shown.length ? ` and ${String(names.length - shown.length)} more` : '';
    super(
      `Component${names.length === 1 ? '' : 's'} ${shown.join(', ')}${more} in namespace ${JSON.stringify(namespace)} not found in the webhook's cache, and the live check is rate-limited`,
    );
    this.namespace = namespace;
    this.names = names;
  }
}

/**
 * The answer when Component existence could not be checked: a denial asking to retry, since the
 * cache may trail a Component created a moment ago. undefined for any other error.
 */
export function componentCheckDenial(error: unknown): AdmissionDecision | undefined {
  if (!(error instanceof ComponentCheckUnavailableError)) return undefined;
  return { allowed: false, code: 429, reason: 'TooManyRequests', message: `${error.message}; retry shortly` };
}

export function nudgeConfigValidator(components: ComponentLookup): AdmissionHandler {
  return async (request: AdmissionRequest, signal: AbortSignal): Promise<AdmissionDecision> => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { allowed: true };
    const admitted = admittedApiVersion(request, SERVED);
    if ('denial' in admitted) return admitted.denial;
    const { apiVersion } = admitted;
    const namespace = ownNamespace(request);
    if (typeof namespace !== 'string') return namespace.denial;
    const origin = `admission request ${request.uid}`;
    const read = (object: unknown) => manifestSetFromObjects([{ value: asSent(object, request, apiVersion), origin }]);
    const incoming = read(request.object);
    const config = incoming.nudgeConfigs[0];
    const previous = request.operation === 'UPDATE' ? read(request.oldObject).nudgeConfigs[0] : undefined;
    const names = config === undefined ? [] : namesToCheck(request.operation, config.entries, previous?.entries);
    let missing: ReadonlySet<string> = new Set<string>();
    try {
      if (names.length > 0) missing = await components.missing(namespace, names, signal);
    } catch (error) {
      const denial = componentCheckDenial(error);
      if (denial === undefined) throw error;
      return denial;
    }
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
 * The one namespace a request may ask about: the request's own, which the object (and the old
 * object) must agree with. A forged review must not make the webhook answer questions about
 * Components of a namespace other than its object's (issue 8, part 2 item 7).
 */
function ownNamespace(request: AdmissionRequest): string | { denial: AdmissionDecision } {
  const deny = (message: string) => ({ denial: { allowed: false as const, code: 400, reason: 'BadRequest', message } });
  const { namespace } = request;
  if (namespace === undefined || namespace === '')
    return deny('a NudgeConfig admission request must name its namespace');
  for (const [field, object] of [
    ['object', request.object],
    ['oldObject', request.oldObject],
  ] as const) {
    const stated = metadataNamespace(object);
    if (stated !== undefined && stated !== namespace) {
      return deny(
        `request.${field}.metadata.namespace ${JSON.stringify(stated)} is not the request's namespace ${JSON.stringify(namespace)}`,
      );
    }
  }
  return namespace;
}

function metadataNamespace(object: unknown): unknown {
  if (typeof object !== 'object' || object === null) return undefined;
  const metadata = (object as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  return (metadata as { namespace?: unknown }).namespace;
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
