// YAML texts of the objects nudger reads, as a GitOps repository holds them, for tests that feed
// files to the parser, the migration or the CLI. Line numbers are stable: `apiVersion` is line 1
// (after any `comment` lines), the first build-nudges-ref item or spec.nudges entry follows spec.

export interface ComponentText {
  /** Omitted when '' (a kustomization may give it one). */
  readonly namespace: string;
  readonly name: string;
  readonly nudges?: readonly string[];
  readonly apiVersion?: string;
  readonly containerImage?: string;
}

export function componentText({ namespace, name, nudges = [], apiVersion, containerImage }: ComponentText): string {
  return [
    `apiVersion: ${apiVersion ?? 'appstudio.redhat.com/v1alpha1'}`,
    'kind: Component',
    'metadata:',
    `  name: ${name}`,
    ...(namespace === '' ? [] : [`  namespace: ${namespace}`]),
    'spec:',
    `  componentName: ${name}`,
    ...(containerImage === undefined ? [] : [`  containerImage: ${containerImage}`]),
    ...(nudges.length === 0 ? [] : ['  build-nudges-ref:', ...nudges.map((to) => `    - ${to}`)]),
    '',
  ].join('\n');
}

export interface NudgeConfigText {
  readonly namespace: string;
  readonly entries: readonly (readonly [string, string])[];
  readonly apiVersion?: string;
  readonly name?: string;
  /** Comment lines written before the object. */
  readonly comment?: string;
}

export function nudgeConfigText({ namespace, entries, apiVersion, name, comment }: NudgeConfigText): string {
  return [
    ...(comment === undefined ? [] : [`# ${comment}`]),
    `apiVersion: ${apiVersion ?? 'konflux-ci.dev/v1alpha1'}`,
    'kind: NudgeConfig',
    'metadata:',
    `  name: ${name ?? 'nudge-config'}`,
    `  namespace: ${namespace}`,
    'spec:',
    '  nudges:',
    ...entries.map(([from, to]) => `    - from: ${from}\n      to: ${to}`),
    '',
  ].join('\n');
}
