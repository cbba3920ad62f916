// What the schema cannot say about a scenario: that names point at declared things, the nudge graph
// is a DAG, and every ChangeGroup can actually collect something. Each problem names the field it
// is about, so parse.ts can point at its line. Runs only on documents the schema accepted.
import { findCycles } from '../../domain/cycles.ts';
import { parseTimeout } from '../../domain/changegroup/duration.ts';
import { compileFileMatch, splitFileMatch } from '../../domain/digest-rewrite/index.ts';
import type { FieldPath } from '../../domain/schema-validation.ts';
import { preMergeDocumentProblems, pullRequestStepProblems } from './pre-merge-references.ts';
import {
  nudgeTarget,
  pullRequestStepOf,
  STEP_VERBS,
  type ScenarioChangeGroup,
  type ScenarioComponentGroup,
  type ScenarioDocument,
  type ScenarioStep,
} from './schema.ts';

export interface ScenarioProblem {
  readonly path: FieldPath;
  readonly message: string;
}

/** Every cross-reference problem of `doc`, in document order. */
export function referenceProblems(doc: ScenarioDocument): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  const components = new Map<string, number>();
  doc.components.forEach((component, index) => {
    const first = components.get(component.name);
    if (first === undefined) components.set(component.name, index);
    else
      problems.push({
        path: ['components', index, 'name'],
        message: `component "${component.name}" is declared twice (first as components[${String(first)}])`,
      });
  });

  const componentGroups = componentGroupsOf(doc, components, problems);

  const nudgers = new Map<string, Set<string>>(); // target -> components nudging it
  doc.components.forEach((component, index) => {
    const seen = new Set<string>();
    (component.nudges ?? []).forEach((item, k) => {
      const path = ['components', index, 'nudges', k];
      const target = nudgeTarget(item);
      if (typeof item !== 'string')
        problems.push(...nudgeModeProblems(doc, component.name, item, path, componentGroups));
      if (target === component.name) problems.push({ path, message: 'a component cannot nudge itself' });
      else if (!components.has(target)) problems.push({ path, message: `component "${target}" is not declared` });
      else if (seen.has(target)) problems.push({ path, message: `"${target}" is listed twice` });
      else {
        let set = nudgers.get(target);
        if (set === undefined) nudgers.set(target, (set = new Set()));
        set.add(component.name);
      }
      seen.add(target);
    });
    problems.push(...fileProblems(component.files, ['components', index, 'files']));
  });

  problems.push(...dispatchProblems(doc, nudgers));

  const successors = (name: string): string[] => {
    const index = components.get(name);
    const nudges = index === undefined ? [] : (doc.components[index]?.nudges ?? []);
    return nudges.map(nudgeTarget).filter((target) => target !== name && components.has(target));
  };
  for (const cycle of findCycles([...components.keys()], successors)) {
    const index = components.get(cycle[0] ?? '') ?? 0;
    problems.push({
      path: ['components', index, 'nudges'],
      message: `nudge cycle ${cycle.join(' -> ')}: builds would nudge each other for ever`,
    });
  }

  const changeGroups = new Map<string, ScenarioChangeGroup>();
  (doc.changeGroups ?? []).forEach((group, index) => {
    const path = ['changeGroups', index];
    if (changeGroups.has(group.name))
      problems.push({ path: [...path, 'name'], message: `ChangeGroup "${group.name}" is declared twice` });
    else changeGroups.set(group.name, group);
    problems.push(...changeGroupProblems(group, path, components, nudgers));
  });

  // Members with a succeeded build so far, step by step: a Snapshot is made from one.
  const built = new Set<string>();
  (doc.steps ?? []).forEach((step, index) => {
    const path = ['steps', index];
    if ('snapshot' in step) problems.push(...snapshotProblems(step.snapshot, path, componentGroups, built));
    else problems.push(...stepProblems(step, path, components, changeGroups, nudgers));
    if ('build' in step && step.succeeded !== false) built.add(step.build);
  });
  problems.push(...preMergeDocumentProblems(doc), ...pullRequestStepProblems(doc));
  return problems;
}

/** The declared ComponentGroups by name; duplicate names and bad members go to `problems`. */
function componentGroupsOf(
  doc: ScenarioDocument,
  components: ReadonlyMap<string, number>,
  problems: ScenarioProblem[],
): Map<string, ScenarioComponentGroup> {
  const groups = new Map<string, ScenarioComponentGroup>();
  const first = new Map<string, number>();
  (doc.componentGroups ?? []).forEach((group, index) => {
    const path = ['componentGroups', index];
    const earlier = first.get(group.name);
    if (earlier === undefined) {
      first.set(group.name, index);
      groups.set(group.name, group);
    } else
      problems.push({
        path: [...path, 'name'],
        message: `ComponentGroup "${group.name}" is declared twice (first as componentGroups[${String(earlier)}])`,
      });
    const seen = new Set<string>();
    group.components.forEach((name, k) => {
      const at = [...path, 'components', k];
      if (!components.has(name)) problems.push({ path: at, message: `component "${name}" is not declared` });
      else if (seen.has(name)) problems.push({ path: at, message: `"${name}" is listed twice` });
      seen.add(name);
    });
  });
  return groups;
}

/**
 * A `nudges` item written as a mapping: `validated` names a declared ComponentGroup that `from`
 * is a member of (a Snapshot of any other group never carries its image, so the entry would
 * never fire), and only nudger fires validated entries (docs/decisions.md D10).
 */
function nudgeModeProblems(
  doc: ScenarioDocument,
  from: string,
  item: { readonly mode?: string; readonly gatingGroup?: string },
  path: FieldPath,
  componentGroups: ReadonlyMap<string, ScenarioComponentGroup>,
): ScenarioProblem[] {
  const at = [...path, 'gatingGroup'];
  if (item.mode !== 'validated') {
    return item.gatingGroup === undefined
      ? []
      : [{ path: at, message: 'applies to mode: validated only; an immediate nudge fires on every build' }];
  }
  if (item.gatingGroup === undefined)
    return [{ path: at, message: 'required when mode is validated: the ComponentGroup whose Snapshot must pass' }];
  if (doc.nudgedBy === 'build-service')
    return [
      {
        path: [...path, 'mode'],
        message: 'validated applies to nudgedBy: nudger only; build-service never fires a validated entry',
      },
    ];
  const group = componentGroups.get(item.gatingGroup);
  if (group === undefined)
    return [{ path: at, message: `ComponentGroup "${item.gatingGroup}" is not declared (componentGroups)` }];
  return group.components.includes(from)
    ? []
    : [
        {
          path: at,
          message: `"${from}" is not a member of ComponentGroup "${item.gatingGroup}": no Snapshot of it carries ${from}'s image`,
        },
      ];
}

/** A `snapshot` step: a declared group, members of it, and a succeeded build to make it from. */
function snapshotProblems(
  snapshot: { readonly group: string; readonly components?: readonly string[] },
  path: FieldPath,
  componentGroups: ReadonlyMap<string, ScenarioComponentGroup>,
  built: ReadonlySet<string>,
): ScenarioProblem[] {
  const at = [...path, 'snapshot'];
  const group = componentGroups.get(snapshot.group);
  if (group === undefined)
    return [{ path: [...at, 'group'], message: `ComponentGroup "${snapshot.group}" is not declared` }];
  const problems: ScenarioProblem[] = [];
  const seen = new Set<string>();
  (snapshot.components ?? []).forEach((name, k) => {
    const where = [...at, 'components', k];
    if (!group.components.includes(name))
      problems.push({ path: where, message: `"${name}" is not a member of ComponentGroup "${group.name}"` });
    else if (seen.has(name)) problems.push({ path: where, message: `"${name}" is listed twice` });
    seen.add(name);
  });
  if (problems.length > 0) return problems;
  const members = snapshot.components ?? group.components;
  if (!members.some((name) => built.has(name)))
    problems.push({
      path: at,
      message: `no ${snapshot.components === undefined ? 'member' : 'listed member'} of ComponentGroup "${group.name}" has a succeeded build before this step: integration-service makes a Snapshot from one`,
    });
  return problems;
}

function changeGroupProblems(
  group: ScenarioChangeGroup,
  path: FieldPath,
  components: ReadonlyMap<string, number>,
  nudgers: ReadonlyMap<string, ReadonlySet<string>>,
): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  const target = group.nudgedComponent;
  if (!components.has(target)) {
    return [{ path: [...path, 'nudgedComponent'], message: `component "${target}" is not declared` }];
  }
  const nudging = nudgers.get(target) ?? new Set<string>();
  if (nudging.size === 0)
    problems.push({
      path: [...path, 'nudgedComponent'],
      message: `no component nudges "${target}": a ChangeGroup needs at least one nudging component`,
    });
  const seen = new Set<string>();
  (group.nudgingComponents ?? []).forEach((name, k) => {
    const at = [...path, 'nudgingComponents', k];
    if (name === target) problems.push({ path: at, message: 'nudgedComponent cannot also be a nudging component' });
    else if (!components.has(name)) problems.push({ path: at, message: `component "${name}" is not declared` });
    else if (seen.has(name)) problems.push({ path: at, message: `"${name}" is listed twice` });
    // A listed component that does not nudge the target never delivers a build: the ChangeGroup
    // would wait for it until its timeout.
    else if (!nudging.has(name)) problems.push({ path: at, message: `component "${name}" does not nudge "${target}"` });
    seen.add(name);
  });
  if (group.timeout !== undefined) {
    const timeout = parseTimeout(group.timeout);
    if (!timeout.ok) problems.push({ path: [...path, 'timeout'], message: timeout.problem });
  }
  return problems;
}

/** The components whose builds `group` collects: its list, or everything nudging its target. */
export function effectiveNudgingComponents(
  group: ScenarioChangeGroup,
  nudgers: ReadonlyMap<string, ReadonlySet<string>>,
): ReadonlySet<string> {
  return group.nudgingComponents === undefined
    ? (nudgers.get(group.nudgedComponent) ?? new Set())
    : new Set(group.nudgingComponents);
}

function stepProblems(
  step: ScenarioStep,
  path: FieldPath,
  components: ReadonlyMap<string, number>,
  changeGroups: ReadonlyMap<string, ScenarioChangeGroup>,
  nudgers: ReadonlyMap<string, ReadonlySet<string>>,
): ScenarioProblem[] {
  const undeclaredGroup = (name: string, at: FieldPath): ScenarioProblem[] =>
    changeGroups.has(name) ? [] : [{ path: at, message: `ChangeGroup "${name}" is not declared` }];
  if ('build' in step) {
    if (!components.has(step.build))
      return [{ path: [...path, 'build'], message: `component "${step.build}" is not declared` }];
    return step.nudgeFiles === undefined ? [] : nudgeFilesProblems(step.nudgeFiles, [...path, 'nudgeFiles']);
  }
  if ('mergeNudgePullRequest' in step) {
    return edgeProblems(step.mergeNudgePullRequest, [...path, 'mergeNudgePullRequest'], components, nudgers);
  }
  if ('humanCommitOnNudge' in step) {
    return [
      ...edgeProblems(step.humanCommitOnNudge, [...path, 'humanCommitOnNudge'], components, nudgers),
      ...fileProblems(step.files, [...path, 'files']),
    ];
  }
  const pullRequestStep = pullRequestStepOf(step);
  // Checked in order by pullRequestStepProblems (pre-merge-references.ts); here only their files.
  if (pullRequestStep !== undefined)
    return fileProblems(pullRequestStep.files, [...path, pullRequestStep.verb, 'files']);
  if ('wait' in step) {
    const duration = parseTimeout(step.wait);
    return duration.ok ? [] : [{ path: [...path, 'wait'], message: duration.problem }];
  }
  if ('removeNudgingComponent' in step) {
    const { changeGroup, component } = step.removeNudgingComponent;
    const at = [...path, 'removeNudgingComponent'];
    const group = changeGroups.get(changeGroup);
    if (group === undefined) return undeclaredGroup(changeGroup, [...at, 'changeGroup']);
    return effectiveNudgingComponents(group, nudgers).has(component)
      ? []
      : [
          {
            path: [...at, 'component'],
            message: `"${component}" is not a nudging component of ChangeGroup "${changeGroup}"`,
          },
        ];
  }
  if ('humanCommit' in step) {
    return [
      ...undeclaredGroup(step.humanCommit, [...path, 'humanCommit']),
      ...fileProblems(step.files, [...path, 'files']),
    ];
  }
  // The remaining verbs each name one ChangeGroup and nothing else.
  for (const verb of STEP_VERBS) {
    const name: unknown = (step as Record<string, unknown>)[verb];
    if (typeof name === 'string') return undeclaredGroup(name, [...path, verb]);
  }
  /* node:coverage ignore next */
  return [];
}

/** A step naming a nudge edge: both ends declared, and `from` nudges `to` (else there is no nudge PR). */
function edgeProblems(
  edge: { readonly from: string; readonly to: string },
  path: FieldPath,
  components: ReadonlyMap<string, number>,
  nudgers: ReadonlyMap<string, ReadonlySet<string>>,
): ScenarioProblem[] {
  for (const end of ['from', 'to'] as const) {
    if (!components.has(edge[end]))
      return [{ path: [...path, end], message: `component "${edge[end]}" is not declared` }];
  }
  return nudgers.get(edge.to)?.has(edge.from) === true
    ? []
    : [
        {
          path: [...path, 'to'],
          message: `component "${edge.from}" does not nudge "${edge.to}": there is no nudge pull request to act on`,
        },
      ];
}

/** `build-nudge-files` as the nudge reads it: a comma-separated list of regexes, at least one. */
function nudgeFilesProblems(list: string, path: FieldPath): ScenarioProblem[] {
  const patterns = splitFileMatch(list);
  if (patterns.length === 0) return [{ path, message: 'must name at least one regex, e.g. ".*Dockerfile.*, .*.yaml"' }];
  try {
    compileFileMatch(patterns);
    return [];
  } catch (error) {
    return [{ path, message: error instanceof Error ? error.message : String(error) }];
  }
}

const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_MAP_KEY_MAX_LENGTH = 253;

function configMapKeyProblems(data: Readonly<Record<string, string>> | undefined, path: FieldPath): ScenarioProblem[] {
  return Object.keys(data ?? {}).flatMap((key) =>
    CONFIG_MAP_KEY.test(key) && key.length <= CONFIG_MAP_KEY_MAX_LENGTH
      ? []
      : [
          {
            path: [...path, key],
            message: `must be a ConfigMap key: at most ${String(CONFIG_MAP_KEY_MAX_LENGTH)} letters, digits, "-", "_" and "."`,
          },
        ],
  );
}

/**
 * The settings of who nudges: the executor is nudger's alone, and a component's Renovate ConfigMap
 * or simple branch must be somewhere a nudge reads it (the nudged and the nudging side).
 */
function dispatchProblems(doc: ScenarioDocument, nudgers: ReadonlyMap<string, ReadonlySet<string>>): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  if (doc.executor !== undefined && doc.nudgedBy === 'build-service')
    problems.push({
      path: ['executor'],
      message: 'applies to nudgedBy: nudger only; with build-service, its own Renovate PipelineRun nudges',
    });
  problems.push(...configMapKeyProblems(doc.renovateConfig, ['renovateConfig']));
  doc.components.forEach((component, index) => {
    const path = ['components', index];
    problems.push(...configMapKeyProblems(component.renovateConfig, [...path, 'renovateConfig']));
    if (component.renovateConfig !== undefined && (nudgers.get(component.name)?.size ?? 0) === 0)
      problems.push({
        path: [...path, 'renovateConfig'],
        message: `no component nudges "${component.name}": a nudge reads the ConfigMap of the nudged component`,
      });
    if (component.simpleBranch === true && (component.nudges ?? []).length === 0)
      problems.push({
        path: [...path, 'simpleBranch'],
        message: `"${component.name}" nudges nothing: a nudge reads simpleBranch on the nudging component`,
      });
  });
  return problems;
}

function fileProblems(files: Readonly<Record<string, string>> | undefined, path: FieldPath): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  for (const name of Object.keys(files ?? {})) {
    const problem = repositoryPathProblem(name);
    if (problem !== undefined) problems.push({ path: [...path, name], message: problem });
  }
  return problems;
}

/**
 * Why `path` cannot name a file inside a repository, or undefined. The sandbox writes these files
 * into real git work trees, so anything that could climb out of one (or into `.git`) is refused.
 */
export function repositoryPathProblem(path: string): string | undefined {
  if (path.startsWith('/')) return 'must be a path relative to the repository root';
  if (path.includes('\\') || path.includes('\0')) return 'must use / as separator and no NUL characters';
  const segments = path.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    return 'must not contain empty, "." or ".." path segments';
  if (segments[0] === '.git') return 'must not point into .git';
  return undefined;
}
