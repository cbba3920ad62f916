// Scenario → what the sandbox creates before the first step: Kubernetes objects (Components, the
// namespace's NudgeConfig, ChangeGroups) and git repositories with their first commit. Pure: where
// the repositories live is the caller's business, passed in as repoUrl().
import {
  NAMESPACE_WIDE_RENOVATE_CONFIG_MAP,
  NUDGE_RENOVATE_CONFIG_MAP_ANNOTATION,
} from '../../domain/digest-rewrite/index.ts';
import { EXECUTOR_ANNOTATION } from '../../controllers/dispatch/inputs.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import { SIMPLE_BRANCH_ANNOTATION } from '../../domain/nudge/pull-request-text.ts';
import { sha256Hex } from '../../domain/pr-description/sha256.ts';
import {
  CHANGE_GROUP_API_VERSION,
  CHANGE_GROUP_KIND,
  type ChangeGroup,
  type ChangeGroupSpec,
} from '../../schema/changegroup.ts';
import { COMPONENT_API_VERSION, COMPONENT_KIND } from '../../schema/component.ts';
import { NUDGE_CONFIG_API_VERSION, NUDGE_CONFIG_KIND, type NudgeConfig } from '../../schema/nudgeconfig.ts';
import { PRE_MERGE_ANNOTATION } from '../../controllers/dispatch/pre-merge-inputs.ts';
import {
  repositoryOwner,
  type ResolvedComponent,
  type Scenario,
  type ScenarioChangeGroup,
  type ScenarioComponentGroup,
} from './schema.ts';
import { pullRequestPipelineRunFile, pullRequestPipelineRunPath } from './tekton-files.ts';

/** integration-service's ComponentGroup, as sandbox/crds/appstudio.redhat.com_componentgroups.yaml serves it. */
export const COMPONENT_GROUP_API_VERSION = 'appstudio.redhat.com/v1beta2';
export const COMPONENT_GROUP_KIND = 'ComponentGroup';

/**
 * A ComponentGroup in upstream's v1beta2 shape: each member by name with its ComponentVersion (the
 * branch its builds come from, as upstream names a version after its branch); `kind` is left to
 * the API server's default (`component`).
 */
export interface ComponentGroupObject {
  readonly apiVersion: typeof COMPONENT_GROUP_API_VERSION;
  readonly kind: typeof COMPONENT_GROUP_KIND;
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly spec: {
    readonly components: readonly { readonly name: string; readonly componentVersion: { readonly name: string } }[];
  };
}

/** A Component as build-service would read it: the fields nudging depends on, nothing more. */
export interface ComponentObject {
  readonly apiVersion: typeof COMPONENT_API_VERSION;
  readonly kind: typeof COMPONENT_KIND;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    /** Only the nudge annotations the scenario asks for (simple branch, Renovate ConfigMap). */
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: {
    readonly componentName: string;
    readonly application: string;
    readonly containerImage: string;
    readonly source: { readonly git: { readonly url: string; readonly revision: string } };
  };
}

/** One git repository to create, with the files of its first commit on `branch`. */
export interface RepositorySeed {
  /** The component the repository is named after (its owner in a monorepo). */
  readonly component: string;
  /** Every component whose source it is: the owner, then those naming it as `repository`. */
  readonly components: readonly string[];
  readonly url: string;
  readonly branch: string;
  readonly files: Readonly<Record<string, string>>;
}

/** A ConfigMap of Renovate settings (the namespace-wide one, or a component's own). */
export interface ConfigMapObject {
  readonly apiVersion: 'v1';
  readonly kind: 'ConfigMap';
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly data: Readonly<Record<string, string>>;
}

export interface ScenarioObjects {
  readonly components: readonly ComponentObject[];
  /** Created before the Components, so no nudge ever reads a named but missing one. */
  readonly configMaps: readonly ConfigMapObject[];
  /** Always present, possibly with no edges: the singleton is what the controllers watch. */
  readonly nudgeConfig: NudgeConfig;
  readonly changeGroups: readonly ChangeGroup[];
  /** Created with the Components, before the NudgeConfig whose validated entries name them. */
  readonly componentGroups: readonly ComponentGroupObject[];
  readonly repositories: readonly RepositorySeed[];
}

export interface ScenarioObjectOptions {
  /** The clone URL of a component's repository (`spec.source.git.url`). */
  readonly repoUrl: (component: string) => string;
}

export function scenarioObjects(scenario: Scenario, options: ScenarioObjectOptions): ScenarioObjects {
  const { namespace } = scenario;
  const nudgersOf = nudgersByTarget(scenario);
  return {
    components: scenario.components.map((component) => componentObject(scenario, component, options.repoUrl)),
    configMaps: [
      ...(scenario.renovateConfig === undefined
        ? []
        : [configMapObject(namespace, NAMESPACE_WIDE_RENOVATE_CONFIG_MAP, scenario.renovateConfig)]),
      ...scenario.components.flatMap((component) =>
        component.renovateConfig === undefined
          ? []
          : [configMapObject(namespace, componentRenovateConfigMapName(component.name), component.renovateConfig)],
      ),
    ],
    nudgeConfig: {
      apiVersion: NUDGE_CONFIG_API_VERSION,
      kind: NUDGE_CONFIG_KIND,
      metadata: {
        name: NUDGE_CONFIG_NAME,
        namespace,
        ...((scenario.executor !== undefined || scenario.preMerge) && {
          annotations: {
            ...(scenario.executor !== undefined && { [EXECUTOR_ANNOTATION]: scenario.executor }),
            ...(scenario.preMerge && { [PRE_MERGE_ANNOTATION]: 'true' }),
          },
        }),
      },
      spec: {
        nudges: scenario.components.flatMap((component) =>
          component.nudges.map((to) => {
            const gatingGroup = component.validated?.[to];
            return gatingGroup === undefined
              ? { from: component.name, to, mode: 'immediate' as const }
              : { from: component.name, to, mode: 'validated' as const, gatingGroup };
          }),
        ),
      },
    },
    changeGroups: scenario.changeGroups.map((group) => changeGroupObject(namespace, group)),
    componentGroups: scenario.componentGroups.map((group) => componentGroupObject(scenario, group)),
    repositories: scenario.components
      .filter((component) => component.repository === undefined)
      .map((owner) => repositorySeed(scenario, owner, nudgersOf, options.repoUrl)),
  };
}

/**
 * The repository of `owner` and of every component that names it as `repository` (a monorepo):
 * the owner's files at the root, another component's generated files under `<name>/` (its own
 * files as written), and a `.tekton/` pull-request PipelineRun for each one with `pathChanged`.
 */
function repositorySeed(
  scenario: Scenario,
  owner: ResolvedComponent,
  nudgersOf: ReadonlyMap<string, ResolvedComponent[]>,
  repoUrl: (component: string) => string,
): RepositorySeed {
  const members = scenario.components.filter((component) => repositoryOwner(component) === owner.name);
  const files: Record<string, string> = {};
  for (const member of members) {
    const own = member.files ?? generatedFiles(member, nudgersOf.get(member.name) ?? []);
    const prefix = member === owner || member.files !== undefined ? '' : `${member.name}/`;
    for (const [path, text] of Object.entries(own)) files[`${prefix}${path}`] = text;
    if (member.pathChanged !== undefined)
      files[pullRequestPipelineRunPath(member.name)] = pullRequestPipelineRunFile({
        component: member.name,
        application: scenario.application,
        branch: member.gitRevision,
        image: member.image,
        pathChanged: member.pathChanged,
      });
  }
  return {
    component: owner.name,
    components: members.map((member) => member.name),
    url: repoUrl(owner.name),
    branch: owner.gitRevision,
    files,
  };
}

/** The ConfigMap a component's `renovateConfig` becomes, named by its nudge_renovate_config_map annotation. */
export function componentRenovateConfigMapName(component: string): string {
  return `${component}-nudge-renovate-config`;
}

function configMapObject(namespace: string, name: string, data: Readonly<Record<string, string>>): ConfigMapObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { ...data } };
}

function componentObject(
  scenario: Scenario,
  component: ResolvedComponent,
  repoUrl: (component: string) => string,
): ComponentObject {
  const annotations: Record<string, string> = {
    ...(component.simpleBranch && { [SIMPLE_BRANCH_ANNOTATION]: 'true' }),
    ...(component.renovateConfig !== undefined && {
      [NUDGE_RENOVATE_CONFIG_MAP_ANNOTATION]: componentRenovateConfigMapName(component.name),
    }),
  };
  return {
    apiVersion: COMPONENT_API_VERSION,
    kind: COMPONENT_KIND,
    metadata: {
      name: component.name,
      namespace: scenario.namespace,
      ...(Object.keys(annotations).length > 0 && { annotations }),
    },
    spec: {
      componentName: component.name,
      application: scenario.application,
      containerImage: component.image,
      source: { git: { url: repoUrl(repositoryOwner(component)), revision: component.gitRevision } },
    },
  };
}

function changeGroupObject(namespace: string, group: ScenarioChangeGroup): ChangeGroup {
  const spec: ChangeGroupSpec = {
    nudgedComponent: group.nudgedComponent,
    ...(group.nudgingComponents !== undefined && {
      nudgingComponents: group.nudgingComponents.map((name) => ({ name })),
    }),
    ...(group.timeout !== undefined && { timeout: group.timeout }),
    ...(group.skipCi !== undefined && { skipCi: group.skipCi }),
  };
  return {
    apiVersion: CHANGE_GROUP_API_VERSION,
    kind: CHANGE_GROUP_KIND,
    metadata: { name: group.name, namespace },
    spec,
  };
}

function componentGroupObject(scenario: Scenario, group: ScenarioComponentGroup): ComponentGroupObject {
  const revision = (name: string): string =>
    scenario.components.find((component) => component.name === name)?.gitRevision ?? 'main';
  return {
    apiVersion: COMPONENT_GROUP_API_VERSION,
    kind: COMPONENT_GROUP_KIND,
    metadata: { name: group.name, namespace: scenario.namespace },
    spec: { components: group.components.map((name) => ({ name, componentVersion: { name: revision(name) } })) },
  };
}

function nudgersByTarget(scenario: Scenario): Map<string, ResolvedComponent[]> {
  const byTarget = new Map<string, ResolvedComponent[]>();
  for (const component of scenario.components) {
    for (const target of component.nudges) {
      const list = byTarget.get(target) ?? [];
      list.push(component);
      byTarget.set(target, list);
    }
  }
  return byTarget;
}

const BASE_IMAGE = 'registry.access.redhat.com/ubi9/ubi-minimal:latest';

/**
 * A repository for a component the scenario gave no files. A nudged one gets a Dockerfile pinning
 * every component that nudges it by digest, so that each nudge has a reference to rewrite (a
 * Renovate PR with nothing to change would prove nothing); any other gets a plain Dockerfile.
 */
export function generatedFiles(
  component: ResolvedComponent,
  nudgers: readonly Pick<ResolvedComponent, 'name' | 'image'>[],
): Record<string, string> {
  const stages = nudgers.map((nudger) => `FROM ${nudger.image}@${initialDigest(nudger.image)} AS ${nudger.name}\n`);
  const copies = nudgers.map((nudger) => `COPY --from=${nudger.name} / /opt/${nudger.name}/\n`);
  return {
    Dockerfile: `${stages.join('')}FROM ${BASE_IMAGE}\n${copies.join('')}`,
    'README.md': `# ${component.name}\n\nA repository generated by \`nudger sandbox\` for the image ${component.image}.\n`,
  };
}

/** The digest generated repositories pin `image` at before any build: stable across runs. */
export function initialDigest(image: string): string {
  return syntheticDigest(`initial ${image}`);
}

/** A well-formed, reproducible digest for `seed` (sha256 of it): never the digest of real content. */
export function syntheticDigest(seed: string): string {
  return `sha256:${sha256Hex(`nudger-sandbox ${seed}`)}`;
}

/**
 * The same scenario as nudging works without ChangeGroups (ADR 29 alone): no ChangeGroups, and
 * only the steps that do not act on one (builds, waits, Snapshots and the steps on nudge pull
 * requests). The comparison run plays this.
 */
export function withoutChangeGroups(scenario: Scenario): Scenario {
  return {
    ...scenario,
    changeGroups: [],
    steps: scenario.steps.filter(
      (step) =>
        'build' in step ||
        'wait' in step ||
        'snapshot' in step ||
        'mergeNudgePullRequest' in step ||
        'humanCommitOnNudge' in step,
    ),
  };
}
