// The HTTP paths of nudger's admission webhooks. The webhook server routes on these and
// deploy/webhook/ registers them with the API server; test/deploy/ checks the two agree, so a
// rename here that the manifests miss fails the tests instead of every admission request.

/** Which kind of admission webhook a path serves: controller-runtime's path prefixes. */
export type WebhookOperation = 'validate' | 'mutate';

/** The group/version/kind a webhook admits. */
export interface WebhookTarget {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * controller-runtime's path convention (`/<validate|mutate>-<group with '.' as '-'>-<version>-<kind
 * in lower case>`), kept so that operators used to kubebuilder projects find what they expect.
 */
export function conventionalWebhookPath(operation: WebhookOperation, target: WebhookTarget): string {
  const group = target.group.replaceAll('.', '-');
  return `/${operation}-${group}-${target.version}-${target.kind.toLowerCase()}`;
}

/** NudgeConfig create/update validation (ADR 67). */
export const NUDGECONFIG_VALIDATING_PATH = '/validate-konflux-ci-dev-v1alpha1-nudgeconfig';

/** Holding nudge PipelineRuns covered by an active ChangeGroup (docs/decisions.md D2); next issue. */
export const PIPELINERUN_MUTATING_PATH = '/mutate-tekton-dev-v1-pipelinerun';

/** ChangeGroup validation (ADR 59); next issue. */
export const CHANGEGROUP_VALIDATING_PATH = '/validate-appstudio-redhat-com-v1alpha1-changegroup';
