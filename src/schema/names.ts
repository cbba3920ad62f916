// Kubernetes object-name rules that nudge entries must follow (Component names are DNS-1123 labels).

export const DNS1123_LABEL_MAX_LENGTH = 63;
/** The same expression the API server and upstream CRDs use for DNS-1123 labels. */
export const DNS1123_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS1123_LABEL = new RegExp(DNS1123_LABEL_PATTERN);

/** Returns why `name` is not a DNS-1123 label, or undefined when it is one. */
export function dns1123LabelProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > DNS1123_LABEL_MAX_LENGTH) {
    return `must be no more than ${String(DNS1123_LABEL_MAX_LENGTH)} characters (has ${String(name.length)})`;
  }
  if (!DNS1123_LABEL.test(name)) {
    return "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  }
  return undefined;
}

export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** Object names of most kinds (PipelineRuns among them): dot-separated DNS-1123 labels. */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Returns why `name` is not a DNS-1123 subdomain (the API server's object-name rule), or undefined. */
export function dns1123SubdomainProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    return `must be no more than ${String(DNS1123_SUBDOMAIN_MAX_LENGTH)} characters (has ${String(name.length)})`;
  }
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}
