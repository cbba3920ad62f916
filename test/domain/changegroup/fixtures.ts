// PipelineRuns in the shapes build-service and Pipelines-as-Code create (konflux-upstream.md §2).

export const DIGEST = (c: string): string => `sha256:${c.repeat(64)}`;

export function nudgeRun(
  overrides: {
    name?: string;
    namespace?: string;
    source?: string;
    targets?: string;
    pipeline?: string | null;
    image?: string;
    apiVersion?: string;
    extraAnnotations?: Record<string, string>;
    omitAnnotations?: boolean;
    spec?: Record<string, unknown> | null;
  } = {},
): Record<string, unknown> {
  const annotations: Record<string, string> = {
    'build.appstudio.redhat.com/nudged-components': overrides.targets ?? 'bundle-x',
    'build.appstudio.redhat.com/nudging-component': overrides.source ?? 'operand-a',
    'build.appstudio.redhat.com/nudging-image': overrides.image ?? 'quay.io/org/operand-a:abc123',
    'build.appstudio.redhat.com/nudging-commit': 'repo?rev=' + 'e'.repeat(40),
    ...overrides.extraAnnotations,
  };
  if (overrides.pipeline !== null) {
    annotations['build.appstudio.redhat.com/nudging-pipeline'] = overrides.pipeline ?? 'operand-a-on-push-x7k2p';
  }
  return {
    apiVersion: overrides.apiVersion ?? 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name: overrides.name ?? 'renovate-pipeline-1736935680-ab12c',
      namespace: overrides.namespace ?? 'my-tenant',
      labels: { 'build.appstudio.redhat.com/type': 'nudge' },
      ...(overrides.omitAnnotations === true ? {} : { annotations }),
    },
    ...(overrides.spec === null ? {} : { spec: overrides.spec ?? { pipelineSpec: { tasks: [{ name: 'renovate' }] } } }),
  };
}

export function buildRun(
  overrides: {
    name?: string;
    namespace?: string;
    component?: string;
    eventType?: string;
    succeeded?: string;
    digest?: string | null;
    url?: string | null;
    v1beta1?: boolean;
    createdAt?: string;
    targetBranch?: string;
  } = {},
): Record<string, unknown> {
  const results = [
    ...(overrides.digest === null ? [] : [{ name: 'IMAGE_DIGEST', value: overrides.digest ?? DIGEST('1') }]),
    ...(overrides.url === null ? [] : [{ name: 'IMAGE_URL', value: overrides.url ?? 'quay.io/org/operand-a:abc123' }]),
    { name: 'CHAINS-GIT_COMMIT', value: 'abc123' },
  ];
  const eventType = overrides.eventType ?? 'push';
  return {
    apiVersion: overrides.v1beta1 === true ? 'tekton.dev/v1beta1' : 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name: overrides.name ?? 'operand-a-on-push-x7k2p',
      namespace: overrides.namespace ?? 'my-tenant',
      creationTimestamp: overrides.createdAt ?? '2025-01-15T10:20:00Z',
      labels: {
        'appstudio.openshift.io/application': 'my-app',
        'appstudio.openshift.io/component': overrides.component ?? 'operand-a',
        'pipelines.appstudio.openshift.io/type': 'build',
        'pipelinesascode.tekton.dev/event-type': eventType,
      },
      annotations: {
        'pipelinesascode.tekton.dev/event-type': eventType,
        'build.appstudio.redhat.com/target_branch': overrides.targetBranch ?? 'main',
      },
    },
    spec: { pipelineRef: { name: 'docker-build' } },
    status: {
      conditions: [{ type: 'Succeeded', status: overrides.succeeded ?? 'True', reason: 'Succeeded' }],
      [overrides.v1beta1 === true ? 'pipelineResults' : 'results']: results,
    },
  };
}
