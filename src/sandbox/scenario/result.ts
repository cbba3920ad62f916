// What `nudger sandbox` reports (docs/sandbox.md, "Output"): the JSON contract as a TypeBox
// schema, so the type, the runtime check in tests and the documentation cannot drift apart, and the
// text rendering of the same data. Pure.
import { Ajv } from 'ajv';
import Type, { type Static } from 'typebox';
import { CHANGE_GROUP_PHASES, COMPONENT_STATES } from '../../domain/changegroup/model.ts';
import { ComponentName, StringEnum } from '../../schema/common.ts';
import { IMAGE_DIGEST_PATTERN } from '../../schema/changegroup.ts';
import { compareStrings } from '../../domain/compare.ts';
import { DISPATCH_EXECUTORS } from '../../domain/nudge/dispatch-intents.ts';
import { KorifiResult, korifiResultLines } from './korifi-result.ts';

export const PULL_REQUEST_STATES = ['open', 'closed', 'merged'] as const;
export type PullRequestState = (typeof PULL_REQUEST_STATES)[number];

// Absent values are `null`, never missing keys: a consumer of the JSON can rely on every key.
export const ComponentResult = Type.Object(
  {
    name: ComponentName,
    state: StringEnum(COMPONENT_STATES),
    newBuild: Type.Union([Type.String({ pattern: IMAGE_DIGEST_PATTERN }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type ComponentResult = Static<typeof ComponentResult>;

export const PullRequestResult = Type.Object(
  {
    url: Type.String(),
    state: StringEnum(PULL_REQUEST_STATES),
    draft: Type.Boolean(),
    /** The whole message of the PR's head commit, `[skip ci]` and all. */
    headCommitMessage: Type.String(),
  },
  { additionalProperties: false },
);
export type PullRequestResult = Static<typeof PullRequestResult>;

export const ChangeGroupResult = Type.Object(
  {
    name: ComponentName,
    /** `status.phase`; null until the controller first wrote it. */
    phase: Type.Union([StringEnum(CHANGE_GROUP_PHASES), Type.Null()]),
    pullRequest: Type.Union([PullRequestResult, Type.Null()]),
    components: Type.Array(ComponentResult),
  },
  { additionalProperties: false },
);
export type ChangeGroupResult = Static<typeof ChangeGroupResult>;

/** A pull request on a sandbox repository, whoever opened it (nudge, ChangeGroup, build-service). */
export const RepositoryPullRequestResult = Type.Object(
  {
    /** The component whose repository it is on. */
    repository: ComponentName,
    url: Type.String(),
    branch: Type.String(),
    /**
     * The PR group it is in (docs/decisions.md D11): the part before the first `@` of a
     * `<group>@<target>` branch, the branch of a human's pull request played by the steps; null
     * for any other.
     */
    group: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    title: Type.String(),
    state: StringEnum(PULL_REQUEST_STATES),
    draft: Type.Boolean(),
    /** As the forge holds them; [] on a forge that keeps none. */
    labels: Type.Array(Type.String()),
    headCommitMessage: Type.String(),
    /** Commits on the branch that its base does not have now (0 once merged). */
    commits: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type RepositoryPullRequestResult = Static<typeof RepositoryPullRequestResult>;

export const NUDGE_OUTCOMES = ['pullRequest', 'held', 'failed', 'skipped'] as const;
/** The NudgeConfig entry's mode: fired on the build (immediate) or on a passing Snapshot (validated, D10). */
export const NUDGE_RESULT_MODES = ['immediate', 'validated'] as const;
/**
 * The event of the build whose digest a nudge pins: `push`, or `pull_request` for a pre-merge
 * nudge of an open PR (D11; a merged PR's nudge pins its merge commit's push build).
 */
export const NUDGE_RESULT_EVENTS = ['push', 'pull_request'] as const;

/**
 * One (build, target) as nudger's dispatcher recorded it: for `immediate`, in the build's
 * done-marker; for `validated`, in the record of its (gating group, target) after the Snapshot.
 */
export const NudgeResult = Type.Object(
  {
    /** The build PipelineRun's name. */
    build: Type.String({ minLength: 1 }),
    from: ComponentName,
    to: ComponentName,
    /** The built digest; null when the build failed and pushed none. */
    digest: Type.Union([Type.String({ pattern: IMAGE_DIGEST_PATTERN }), Type.Null()]),
    executor: StringEnum(DISPATCH_EXECUTORS),
    mode: StringEnum(NUDGE_RESULT_MODES),
    event: StringEnum(NUDGE_RESULT_EVENTS),
    /** For `validated`: the Snapshot whose pass moved it; null for `immediate`. */
    snapshot: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    outcome: StringEnum(NUDGE_OUTCOMES),
    /** The marker's reason token, for `failed` and `skipped` only. */
    reason: Type.Optional(Type.String({ minLength: 1 })),
    /** The pull request of the edge's branch, for `pullRequest`; null otherwise or when none is found. */
    pullRequest: Type.Union([Type.String(), Type.Null()]),
    /** The ChangeGroup holding the nudge, for `held`. */
    heldBy: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type NudgeResult = Static<typeof NudgeResult>;

const BuildCount = Type.Object({ builds: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });
const BuildAndPullRequestCount = Type.Object(
  { builds: Type.Integer({ minimum: 0 }), pullRequests: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);

/**
 * The default run only: the same steps played with and without ChangeGroups, nudged by the
 * build-service stand-in, and played once more with ChangeGroups and nudger dispatching directly.
 */
export const ComparisonResult = Type.Object(
  {
    /** The component whose builds are compared (the bundle). */
    nudgedComponent: ComponentName,
    withChangeGroups: BuildCount,
    withoutChangeGroups: BuildCount,
    /** Builds of nudgedComponent and pull requests on its repository, nudger dispatching (`direct`). */
    nudgerDirect: BuildAndPullRequestCount,
  },
  { additionalProperties: false },
);
export type ComparisonResult = Static<typeof ComparisonResult>;

export const SandboxResult = Type.Object(
  {
    changeGroups: Type.Array(ChangeGroupResult),
    /** Component → builds the Pipelines-as-Code stand-in started for it. */
    builds: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
    /** Nudged component → its files (path → text) at the PR head, else its default branch. */
    files: Type.Record(Type.String(), Type.Record(Type.String(), Type.String())),
    /** Every pull request on every repository of the scenario, by component in scenario order, oldest first. */
    pullRequests: Type.Array(RepositoryPullRequestResult),
    /** nudger's dispatch of each build, from its done-marker; [] with nudgedBy: build-service. */
    nudges: Type.Array(NudgeResult),
    comparison: Type.Optional(ComparisonResult),
    /** A Korifi scenario's apps, builders and Events (korifi-result.ts); absent otherwise. */
    korifi: Type.Optional(KorifiResult),
  },
  { additionalProperties: false },
);
export type SandboxResult = Static<typeof SandboxResult>;

let validate: (((value: unknown) => boolean) & { errors?: unknown }) | undefined;

/** Why `value` breaks the JSON contract (ajv messages with their JSON Pointers); empty when it holds. */
export function sandboxResultProblems(value: unknown): string[] {
  validate ??= new Ajv({ allErrors: true, strict: true, logger: false }).compile(SandboxResult);
  if (validate(value)) return [];
  const errors = (validate.errors ?? []) as { instancePath: string; message?: string }[];
  return errors.map(
    (error) => `${error.instancePath === '' ? '/' : error.instancePath}: ${error.message ?? 'invalid'}`,
  );
}

/** The human summary: per ChangeGroup its state and pull request, then builds, then the comparison. */
export function renderResultText(result: SandboxResult): string {
  if (result.korifi !== undefined) return `${korifiResultLines(result.korifi).join('\n')}\n`;
  const lines: string[] = [];
  for (const group of result.changeGroups) lines.push(...changeGroupLines(group), '');
  if (result.changeGroups.length === 0) lines.push('No ChangeGroups.', '');

  // Thirty operands built zero times each would bury the one line that matters.
  const all = Object.entries(result.builds).sort(([a], [b]) => compareStrings(a, b));
  const builds = all.filter(([, count]) => count > 0);
  const idle = all.length - builds.length;
  lines.push('Builds started by Pipelines-as-Code:');
  if (builds.length === 0) lines.push('  none');
  const width = Math.max(0, ...builds.map(([name]) => name.length));
  for (const [name, count] of builds) lines.push(`  ${name.padEnd(width)}  ${String(count)}`);
  if (idle > 0 && builds.length > 0) lines.push(`  (${String(idle)} other component${idle === 1 ? '' : 's'}: 0)`);

  // The ChangeGroups' own pull requests are shown above; the rest are nudges' (or a human's).
  const shown = new Set(result.changeGroups.map((group) => group.pullRequest?.url));
  const others = result.pullRequests.filter((pr) => !shown.has(pr.url));
  if (others.length > 0) lines.push('', 'Other pull requests:', ...others.map(pullRequestLine));

  if (result.nudges.length > 0) lines.push('', ...nudgeLines(result.nudges));

  const { comparison } = result;
  if (comparison !== undefined) {
    const { withChangeGroups: withGroups, withoutChangeGroups: without, nudgerDirect } = comparison;
    lines.push(
      '',
      `Builds of ${comparison.nudgedComponent}: ${String(withGroups.builds)} with ChangeGroups vs ${String(without.builds)} without`,
      `With nudger dispatching directly (ChangeGroups on): ${plural(nudgerDirect.builds, 'build')} of ${comparison.nudgedComponent}, ${plural(nudgerDirect.pullRequests, 'pull request')}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function pullRequestLine(pr: RepositoryPullRequestResult): string {
  const state = `${pr.state}${pr.draft ? ', draft' : ''}, ${plural(pr.commits, 'commit')}`;
  return `  ${pr.repository} ${pr.branch} (${state}): ${pr.title}`;
}

function plural(n: number, noun: string): string {
  return `${String(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** How many (build, target) pairs ended each way: one line, since a default run has dozens. */
function nudgeLines(nudges: readonly NudgeResult[]): string[] {
  const counts = new Map<string, number>();
  for (const nudge of nudges) counts.set(nudge.outcome, (counts.get(nudge.outcome) ?? 0) + 1);
  const parts = NUDGE_OUTCOMES.filter((o) => counts.has(o)).map((o) => `${String(counts.get(o))} ${o}`);
  const failed = nudges
    .filter((n) => n.outcome === 'failed')
    .map((n) => `  ${n.from} -> ${n.to} (build ${n.build}): failed, ${n.reason ?? 'no reason'}`);
  const snapshots = new Map<string, number>();
  for (const nudge of nudges) {
    if (nudge.snapshot !== null) snapshots.set(nudge.snapshot, (snapshots.get(nudge.snapshot) ?? 0) + 1);
  }
  const validated = [...snapshots].map(([name, count]) => `  Snapshot ${name}: ${plural(count, 'validated nudge')}`);
  return [`Nudges dispatched by nudger: ${parts.join(', ')}`, ...validated, ...failed];
}

function changeGroupLines(group: ChangeGroupResult): string[] {
  const ready = group.components.filter((c) => c.state === 'Ready').length;
  const lines = [
    `ChangeGroup ${group.name}: ${group.phase ?? '(no phase yet)'}, ${String(ready)}/${String(group.components.length)} ready`,
  ];
  const pr = group.pullRequest;
  if (pr === null) lines.push('  pull request: none');
  else {
    lines.push(`  pull request: ${pr.url} (${pr.state}${pr.draft ? ', draft' : ''})`);
    lines.push(`  head commit: ${pr.headCommitMessage.split('\n', 1)[0] ?? ''}`);
  }
  const waiting = group.components.filter((c) => c.state === 'Waiting').map((c) => c.name);
  if (waiting.length > 0) lines.push(`  waiting for: ${waiting.join(', ')}`);
  return lines;
}
