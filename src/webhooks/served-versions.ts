// Which version's rules an admission request is judged by, and the denial for a version a webhook
// does not know. Fail closed: an object in a version nudger cannot judge is never let in unjudged
// (issue 8: a kind nudger reads, in a version it does not know, is never passed over in silence).
import type { AdmissionDecision, AdmissionRequest, GroupVersionKind } from './admission.ts';

/** The kind a webhook judges and the apiVersions (`group/version`) it knows the rules of. */
export interface ServedKind {
  readonly group: string;
  readonly kind: string;
  readonly apiVersions: readonly string[];
}

/**
 * The apiVersion the client wrote (`requestKind`; `kind` is what the object was converted to when
 * `matchPolicy: Equivalent` matched another version), if `served` knows it; else a denial naming it.
 */
export function admittedApiVersion(
  request: AdmissionRequest,
  served: ServedKind,
): { readonly apiVersion: string } | { readonly denial: AdmissionDecision } {
  const kind = request.requestKind ?? request.kind;
  const apiVersion = `${kind.group}/${kind.version}`;
  if (kind.kind === served.kind && kind.group === served.group && served.apiVersions.includes(apiVersion)) {
    return { apiVersion };
  }
  return {
    denial: {
      allowed: false,
      code: 400,
      reason: 'BadRequest',
      message: `nudger's ${served.kind} webhook judges ${served.apiVersions.join(' and ')} ${served.kind}s only; this request is for ${formatKind(kind)}, whose rules nudger does not know (is the webhook registered for a version nudger does not serve?)`,
    },
  };
}

function formatKind(kind: GroupVersionKind): string {
  return `${kind.group === '' ? '' : `${kind.group}/`}${kind.version} ${kind.kind}`;
}
