// A component's `.tekton/` pull-request PipelineRun, as Konflux build-service writes it into the
// repository when it onboards a component of a monorepo (docs/decisions.md N33): the file
// `<component>-pull-request.yaml`, labelled with the component, whose Pipelines-as-Code
// on-cel-expression builds it only for the paths it owns. Pure: the scenario's `pathChanged` in,
// file text out; src/domain/monorepo/ reads it back.
import { stringify } from 'yaml';
import { COMPONENT_LABEL } from '../../domain/monorepo/tekton-pipelineruns.ts';
import { ON_CEL_EXPRESSION_ANNOTATION } from '../../domain/monorepo/path-changed.ts';

/** The path of `component`'s pull-request PipelineRun in its repository. */
export function pullRequestPipelineRunPath(component: string): string {
  return `.tekton/${component}-pull-request.yaml`;
}

/**
 * `event == "pull_request" && target_branch == "<branch>" && ("a".pathChanged() || …)`; the globs
 * are quoted as CEL strings (the schema keeps `"`, `\` and line breaks out of them).
 */
export function pullRequestCelExpression(branch: string, globs: readonly string[]): string {
  const paths = globs.map((glob) => `"${glob}".pathChanged()`).join(' || ');
  return `event == "pull_request" && target_branch == "${branch}" && (${paths})`;
}

export interface PullRequestPipelineRunInput {
  readonly component: string;
  readonly application: string;
  readonly branch: string;
  readonly image: string;
  readonly pathChanged: readonly string[];
}

/** The file's text: one PipelineRun in build-service's shape, trimmed to what nudging reads. */
export function pullRequestPipelineRunFile(input: PullRequestPipelineRunInput): string {
  const { component } = input;
  return stringify(
    {
      apiVersion: 'tekton.dev/v1',
      kind: 'PipelineRun',
      metadata: {
        name: `${component}-on-pull-request`,
        labels: {
          'appstudio.openshift.io/application': input.application,
          [COMPONENT_LABEL]: component,
          'pipelines.appstudio.openshift.io/type': 'build',
        },
        annotations: {
          'pipelinesascode.tekton.dev/max-keep-runs': '3',
          [ON_CEL_EXPRESSION_ANNOTATION]: pullRequestCelExpression(input.branch, input.pathChanged),
        },
      },
      spec: {
        params: [
          { name: 'git-url', value: '{{source_url}}' },
          { name: 'revision', value: '{{revision}}' },
          { name: 'output-image', value: `${input.image}:on-pr-{{revision}}` },
        ],
        pipelineRef: { name: 'docker-build' },
        taskRunTemplate: { serviceAccountName: `build-pipeline-${component}` },
      },
    },
    { lineWidth: 0 },
  );
}
