// What nudger writes into a ChangeGroup pull request, derived from the ChangeGroup alone (D5): the
// title, the description's managed block and the commit. Pure, so a controller restarted at any
// point renders exactly what it rendered before, and the commit (with its date taken from status
// rather than the clock) comes out byte for byte the same, which is how the controller recognises
// a push it made just before a crash.
import type { ChangeGroupSpec, ChangeGroupStatus } from '../../schema/changegroup.ts';
import { commitMessage, type CommitMessage } from '../pr-description/commit-message.ts';
import {
  shortDigest,
  skipCiPlacement,
  type ChangeGroupLink,
  type Checkboxes,
  type ComponentRow,
  type DescriptionInput,
} from '../pr-description/types.ts';
import { CONDITION_ALL_COMPONENTS_READY, DEFAULT_SKIP_CI_MODE, type ChangeGroupPhase } from './model.ts';
import type { PullRequestBuild } from './state.ts';

export interface ChangeGroupDocument {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly spec: ChangeGroupSpec;
  readonly status?: ChangeGroupStatus;
}

/** `2026-11-21T10:30:00Z` → `2026-11-21 10:30:00 UTC`; anything unparsable is shown as given. */
export function formatUpdateTime(time: string | undefined): string {
  if (time === undefined) return '';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(time);
  return match ? `${match[1] ?? ''} ${match[2] ?? ''} UTC` : time;
}

function componentRows(status: ChangeGroupStatus | undefined): ComponentRow[] {
  return (status?.components ?? []).map((c) => ({
    name: c.name,
    state: c.state,
    originalBuild: c.originalBuild === undefined ? '' : shortDigest(c.originalBuild),
    newBuild: c.newBuild === undefined ? '' : shortDigest(c.newBuild),
    newBuildPullSpec: c.newBuildPullSpec ?? '',
    buildPipelineRun: c.buildPipelineRun ?? '',
    lastUpdate: formatUpdateTime(c.lastUpdateTime),
  }));
}

/** The notice shown at the top of the block once the ChangeGroup gave up or was released early. */
function noteFor(phase: ChangeGroupPhase, status: ChangeGroupStatus | undefined): string | undefined {
  const readiness = status?.conditions?.find((c) => c.type === CONDITION_ALL_COMPONENTS_READY);
  if (phase === 'Failed') {
    return `This ChangeGroup failed and nudger no longer updates this pull request. ${readiness?.message ?? ''}`.trim();
  }
  if (phase === 'Ready' && readiness?.status === 'False') return readiness.message;
  return undefined;
}

export interface DescriptionOptions {
  readonly link: ChangeGroupLink;
  /** The boxes as the description shows them now; see `checkboxesToRender`. */
  readonly checkboxes: Checkboxes;
  /** Whether the pull request now carries, or is about to carry, the final push. */
  readonly final: boolean;
}

export function descriptionInput(changeGroup: ChangeGroupDocument, options: DescriptionOptions): DescriptionInput {
  const { metadata, spec, status } = changeGroup;
  const phase = status?.phase ?? 'Initialized';
  const mode = spec.skipCi ?? DEFAULT_SKIP_CI_MODE;
  const note = noteFor(phase, status);
  return {
    changeGroup: { name: metadata.name, namespace: metadata.namespace },
    link: options.link,
    nudgedComponent: spec.nudgedComponent,
    components: componentRows(status),
    phase,
    mode,
    skipCi: skipCiPlacement(mode, options.final).inDescription,
    checkboxes: options.checkboxes,
    ...(note === undefined ? {} : { note }),
  };
}

/**
 * The boxes to render: a ticked "rebase" is consumed by the push that honours it, and "build now"
 * by leaving the collecting phases. A tick nudger has not acted on yet is kept, so refreshing the
 * table never swallows a human's request.
 */
export function checkboxesToRender(current: Checkboxes, phase: ChangeGroupPhase, rebaseHonoured: boolean): Checkboxes {
  const collecting = phase === 'Initialized' || phase === 'Waiting';
  return { buildNow: current.buildNow && collecting, rebase: current.rebase && !rebaseHonoured };
}

export function pullRequestTitle(changeGroup: ChangeGroupDocument): string {
  return `Update component images in ${changeGroup.spec.nudgedComponent} (ChangeGroup ${changeGroup.metadata.name})`;
}

export function pullRequestCommitMessage(
  changeGroup: ChangeGroupDocument,
  builds: readonly PullRequestBuild[],
  final: boolean,
): CommitMessage {
  const mode = changeGroup.spec.skipCi ?? DEFAULT_SKIP_CI_MODE;
  const originals = new Map((changeGroup.status?.components ?? []).map((c) => [c.name, c.originalBuild]));
  return commitMessage({
    changeGroup: { name: changeGroup.metadata.name, namespace: changeGroup.metadata.namespace },
    nudgedComponent: changeGroup.spec.nudgedComponent,
    updates: builds.map((b) => {
      const original = originals.get(b.name);
      return { component: b.name, newBuild: b.digest, ...(original === undefined ? {} : { originalBuild: original }) };
    }),
    skipCi: skipCiPlacement(mode, final).inCommitMessage,
  });
}

/**
 * The commit date: the creation time of the newest build it carries (the build PipelineRun's, as
 * status recorded it). Never the clock, and never when nudger happened to see the build: a status
 * write lost to a crash must not change the commit, or the retry would push a second one.
 */
export function pullRequestCommitDate(
  status: ChangeGroupStatus | undefined,
  builds: readonly PullRequestBuild[],
): string {
  const names = new Set(builds.map((b) => b.name));
  const times = (status?.components ?? [])
    .filter((c) => names.has(c.name))
    .map((c) => c.newBuildTime ?? c.lastUpdateTime ?? '')
    .filter((t) => t !== '')
    .sort();
  return times.at(-1) ?? status?.startTime ?? '1970-01-01T00:00:00Z';
}
