// What `nudger sandbox` reports (docs/sandbox.md, "Output"): the JSON contract as a TypeBox
// schema, so the type, the runtime check in tests and the documentation cannot drift apart, and the
// text rendering of the same data. Pure.
import { Ajv } from 'ajv';
import Type, { type Static } from 'typebox';
import { CHANGE_GROUP_PHASES, COMPONENT_STATES } from '../../domain/changegroup/model.ts';
import { ComponentName, StringEnum } from '../../schema/common.ts';
import { IMAGE_DIGEST_PATTERN } from '../../schema/changegroup.ts';
import { compareStrings } from '../../domain/compare.ts';

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

const BuildCount = Type.Object({ builds: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });

/** The default run only: the same steps played with and without ChangeGroups. */
export const ComparisonResult = Type.Object(
  {
    /** The component whose builds are compared (the bundle). */
    nudgedComponent: ComponentName,
    withChangeGroups: BuildCount,
    withoutChangeGroups: BuildCount,
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
    comparison: Type.Optional(ComparisonResult),
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

  const { comparison } = result;
  if (comparison !== undefined) {
    const { withChangeGroups: withGroups, withoutChangeGroups: without } = comparison;
    lines.push(
      '',
      `Builds of ${comparison.nudgedComponent}: ${String(withGroups.builds)} with ChangeGroups vs ${String(without.builds)} without`,
    );
  }
  return `${lines.join('\n')}\n`;
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
