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
    entries.length === 0 ? '  nudges: []' : '  nudges:',
    ...entries.map(([from, to]) => `    - from: ${from}\n      to: ${to}`),
    '',
  ].join('\n');
}

/**
 * Two tenants whose files each hold one tenant's Component (which loses build-nudges-ref in a
 * migration) and the other tenant's NudgeConfig (which gains entries): `one.yaml` holds alpha's
 * Component and beta's v1beta2 NudgeConfig, `two.yaml` beta's Component and alpha's NudgeConfig.
 * No order of whole-file renames is crash-safe for them (docs/cli.md, `migrate`). By path under `dir`.
 */
export function mixedTenantFiles(dir: string): Record<string, string> {
  const components = (namespace: string, names: readonly string[]): string[] =>
    names.map((name) => componentText({ namespace, name }));
  return {
    [`${dir}one.yaml`]: [
      componentText({ namespace: 'alpha', name: 'alpha-api', nudges: ['alpha-bundle'] }),
      nudgeConfigText({
        namespace: 'beta',
        apiVersion: 'appstudio.redhat.com/v1beta2',
        entries: [['beta-cli', 'beta-bundle']],
      }),
    ].join('---\n'),
    [`${dir}two.yaml`]: [
      componentText({ namespace: 'beta', name: 'beta-api', nudges: ['beta-bundle'] }),
      nudgeConfigText({ namespace: 'alpha', entries: [['alpha-cli', 'alpha-bundle']] }),
    ].join('---\n'),
    [`${dir}rest.yaml`]: [
      ...components('alpha', ['alpha-bundle', 'alpha-cli']),
      ...components('beta', ['beta-bundle', 'beta-cli']),
    ].join('---\n'),
  };
}
