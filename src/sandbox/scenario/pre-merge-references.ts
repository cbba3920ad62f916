// What the schema cannot say about a scenario's pre-merge parts (docs/sandbox.md "Pre-merge
// nudges", docs/decisions.md D11, N33): the forge it asks for is one the sandbox plays, a monorepo
// component names a repository that is there, its globs compile as Pipelines-as-Code compiles
// them, and the steps on a human's pull request act on a PR that the steps before opened. Runs only
// on documents the schema accepted; each problem names its field.
import { PacGlobError, pacGlobRegExp } from '../../domain/monorepo/pac-glob.ts';
import { prGroupOf } from '../../domain/nudge/pre-merge-text.ts';
import type { FieldPath } from '../../domain/schema-validation.ts';
import type { ScenarioProblem } from './references.ts';
import {
  DEFAULT_GIT_REVISION,
  DEFAULT_SCENARIO_FORGE,
  nudgeTarget,
  pullRequestStepOf,
  type ScenarioComponent,
  type ScenarioDocument,
  type ScenarioStep,
} from './schema.ts';

/**
 * The forges the sandbox plays a scenario against (docs/decisions.md N37); the others are refused
 * by name.
 */
export const PLAYED_FORGES: ReadonlySet<string> = new Set(['local', 'github', 'gitlab']);

/** Problems of `forge`, `preMerge` and the components' `repository` and `pathChanged`. */
export function preMergeDocumentProblems(doc: ScenarioDocument): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  const forge = doc.forge ?? DEFAULT_SCENARIO_FORGE;
  if (!PLAYED_FORGES.has(forge))
    problems.push({
      path: ['forge'],
      message: `"${forge}" is not a forge the sandbox plays (local, github, gitlab)`,
    });
  // Renovate's stand-in (the Tekton stand-in's, for the renovate executor and build-service's
  // nudge PipelineRuns) plays the local forge only, for now.
  if (forge !== 'local' && doc.nudgedBy === 'build-service')
    problems.push({
      path: ['nudgedBy'],
      message: `build-service's Renovate runs are played on forge: local only, not on forge: ${forge}`,
    });
  if (forge !== 'local' && doc.executor === 'renovate')
    problems.push({
      path: ['executor'],
      message: `the renovate executor's runs are played on forge: local only, not on forge: ${forge}; use executor: direct`,
    });
  if (doc.preMerge === true && doc.nudgedBy === 'build-service')
    problems.push({
      path: ['preMerge'],
      message: 'applies to nudgedBy: nudger only; build-service makes no pre-merge nudges',
    });
  const byName = new Map(doc.components.map((component) => [component.name, component]));
  doc.components.forEach((component, index) => {
    problems.push(...repositoryProblems(component, ['components', index], byName));
    (component.pathChanged ?? []).forEach((glob, k) => {
      try {
        pacGlobRegExp(glob);
      } catch (error) {
        if (!(error instanceof PacGlobError)) throw error;
        problems.push({
          path: ['components', index, 'pathChanged', k],
          message: `${error.message}; Pipelines-as-Code would not compile it`,
        });
      }
    });
  });
  return problems;
}

function repositoryProblems(
  component: ScenarioComponent,
  path: FieldPath,
  byName: ReadonlyMap<string, ScenarioComponent>,
): ScenarioProblem[] {
  const ownerName = component.repository;
  if (ownerName === undefined) return [];
  const at = [...path, 'repository'];
  const owner = byName.get(ownerName);
  if (ownerName === component.name) return [{ path: at, message: 'names the component itself; leave it out' }];
  if (owner === undefined) return [{ path: at, message: `component "${ownerName}" is not declared` }];
  if (owner.repository !== undefined)
    return [
      {
        path: at,
        message: `"${ownerName}" lives in the repository of "${owner.repository}" itself; name "${owner.repository}"`,
      },
    ];
  const revision = component.gitRevision ?? DEFAULT_GIT_REVISION;
  const ownerRevision = owner.gitRevision ?? DEFAULT_GIT_REVISION;
  if (revision !== ownerRevision)
    return [
      {
        path: [...path, 'gitRevision'],
        message: `"${revision}" differs from "${ownerName}"'s "${ownerRevision}": components of one repository track one branch here`,
      },
    ];
  const clash = Object.keys(component.files ?? {}).find((file) => Object.hasOwn(owner.files ?? {}, file));
  if (clash !== undefined)
    return [
      {
        path: [...path, 'files', clash],
        message: `"${ownerName}" writes this file into the same repository too`,
      },
    ];
  return [];
}

/** Where a human's PR stands after the steps so far. */
type PullRequestState = 'open' | 'merged' | 'closed';

/**
 * The pull-request steps, in order: pre-merge nudges on, the component nudges something
 * immediately, the branch makes a PR group, and each step acts on a PR in the state it needs.
 */
export function pullRequestStepProblems(doc: ScenarioDocument): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  const byName = new Map(doc.components.map((component) => [component.name, component]));
  const states = new Map<string, PullRequestState>();
  (doc.steps ?? []).forEach((step: ScenarioStep, index) => {
    const found = pullRequestStepOf(step);
    if (found === undefined) return;
    const path = ['steps', index, found.verb];
    const component = byName.get(found.component);
    if (component === undefined) {
      problems.push({ path: [...path, 'component'], message: `component "${found.component}" is not declared` });
      return;
    }
    if (doc.preMerge !== true) {
      problems.push({
        path,
        message: 'pre-merge nudges are off: set `preMerge: true` at the top of the scenario',
      });
      return;
    }
    if (immediateTargetsOf(component).length === 0) {
      problems.push({
        path: [...path, 'component'],
        message: `"${component.name}" nudges nothing immediately: its pull request would make no pre-merge nudge`,
      });
      return;
    }
    const branch = found.branch;
    if (branch === (component.gitRevision ?? DEFAULT_GIT_REVISION) || prGroupOf(branch) === undefined) {
      problems.push({
        path: [...path, 'branch'],
        message: `"${branch}" makes no PR group: use a feature branch such as feature-1234 (the group is the branch up to its first @; never main or master)`,
      });
      return;
    }
    const owner = component.repository ?? component.name;
    const key = `${owner}\u0000${branch}`;
    const state = states.get(key);
    const name = `a pull request from ${branch} on ${owner}'s repository`;
    if (found.verb === 'openPullRequest') {
      if (state === 'open') problems.push({ path: [...path, 'branch'], message: `${name} is open already` });
      else states.set(key, 'open');
    } else if (state !== 'open') {
      problems.push({
        path: [...path, 'branch'],
        message:
          state === undefined
            ? `no step before opens ${name}; open it with openPullRequest first`
            : `${name} is ${state} by an earlier step`,
      });
    } else if (found.verb === 'mergeNudgingPullRequest') states.set(key, 'merged');
    else if (found.verb === 'closeNudgingPullRequest') states.set(key, 'closed');
  });
  return problems;
}

/** The immediate targets of `component` as the document writes them. */
export function immediateTargetsOf(component: ScenarioComponent): string[] {
  return (component.nudges ?? [])
    .filter((item) => typeof item === 'string' || item.mode !== 'validated')
    .map(nudgeTarget);
}
