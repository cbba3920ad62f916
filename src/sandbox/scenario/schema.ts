// The scenario file of `nudger sandbox` (docs/sandbox.md): one TypeBox definition gives the
// TypeScript types and, through ajv in parse.ts, the runtime check. Cross-references (a step naming
// a declared component, no nudge cycles) are not expressible here and live in references.ts.
import Type, { type Static } from 'typebox';
import { DEFAULT_SKIP_CI_MODE, SKIP_CI_MODES } from '../../domain/changegroup/model.ts';
import { DISPATCH_EXECUTORS, type DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import { TIMEOUT_MAX_LENGTH, TIMEOUT_PATTERN } from '../../domain/changegroup/duration.ts';
import { ComponentName, StringEnum } from '../../schema/common.ts';
import { IMAGE_DIGEST_PATTERN } from '../../schema/changegroup.ts';
import { NUDGE_MODES } from '../../schema/nudgeconfig.ts';
import type { KorifiScenario } from './korifi.ts';

/**
 * An image repository without tag or digest, as `spec.containerImage` holds it: an optional
 * registry host (with port), then lower-case path components separated by `/`. A `:tag` after the
 * last `/` or an `@digest` does not match, which is the point: builds supply the digest. The same
 * grammar as src/domain/digest-rewrite/reference.ts, so every image here is one nudges can rewrite.
 */
export const IMAGE_REPOSITORY_PATTERN =
  '^([A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:[0-9]+)?/)?' +
  '[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*$';
/** Docker's limit on a whole reference name. */
export const IMAGE_REPOSITORY_MAX_LENGTH = 255;
export const DEFAULT_GIT_REVISION = 'main';
/** A git branch name, loosely: git itself rejects the rest when the repository is created. */
export const GIT_REVISION_PATTERN = '^[A-Za-z0-9._/-]+$';

const ImageRepository = Type.String({
  minLength: 1,
  maxLength: IMAGE_REPOSITORY_MAX_LENGTH,
  pattern: IMAGE_REPOSITORY_PATTERN,
});
const Digest = Type.String({ pattern: IMAGE_DIGEST_PATTERN, maxLength: 71 });
/** Same syntax as ChangeGroup `spec.timeout`, so one parser (parseTimeout) reads both. */
const Duration = Type.String({ minLength: 1, maxLength: TIMEOUT_MAX_LENGTH, pattern: TIMEOUT_PATTERN });
const ChangeGroupName = ComponentName;
/** A Pipelines-as-Code pathChanged glob; quoted into CEL, so no `"` or `\\`. */
export const PATH_GLOB_PATTERN = '^[^"\\\\\\n]+$';
const PathGlob = Type.String({ minLength: 1, maxLength: 1024, pattern: PATH_GLOB_PATTERN });
/** A pull request's head branch (git checks the rest when the branch is pushed). */
const PullRequestBranch = Type.String({ minLength: 1, maxLength: 255, pattern: GIT_REVISION_PATTERN });
/**
 * The forge a scenario's repositories are on: the local one (the default), or an emulator
 * (docs/sandbox.md "What runs", docs/decisions.md N37).
 */
export const SCENARIO_FORGES = ['local', 'github', 'gitlab'] as const;
export type ScenarioForge = (typeof SCENARIO_FORGES)[number];
export const DEFAULT_SCENARIO_FORGE: ScenarioForge = 'local';
/**
 * Who turns a succeeded build into nudges (docs/sandbox.md "Who nudges"): nudger's dispatcher
 * (ADR 67, the default), or the build-service/integration-service stand-in as before it, kept for
 * comparison.
 */
export const NUDGED_BY = ['nudger', 'build-service'] as const;
export type NudgedBy = (typeof NUDGED_BY)[number];
export const DEFAULT_NUDGED_BY: NudgedBy = 'nudger';
/** ConfigMap data: Renovate settings as build-service reads them (every value a string; keys in references.ts). */
export const RenovateConfigData = Type.Record(Type.String(), Type.String());
export type RenovateConfigData = Static<typeof RenovateConfigData>;
/** A `build-nudge-files` value: comma-separated regexes; each is compiled in references.ts. */
const NudgeFiles = Type.String({ minLength: 1, maxLength: 4096 });
/** Repository-relative path → whole file text. Paths are checked in references.ts. */
export const RepositoryFiles = Type.Record(Type.String({ minLength: 1 }), Type.String());
export type RepositoryFiles = Static<typeof RepositoryFiles>;

/**
 * A `nudges` item written as a mapping: a NudgeConfig entry with its mode (docs/decisions.md D10).
 * `{to, mode: validated, gatingGroup}` fires when a push Snapshot of the ComponentGroup passes;
 * `{to}` (or `mode: immediate`) is the plain string form. gatingGroup is checked in references.ts.
 */
export const ScenarioNudgeEntry = Type.Object(
  {
    to: ComponentName,
    mode: Type.Optional(StringEnum(NUDGE_MODES, { default: 'immediate' })),
    gatingGroup: Type.Optional(ComponentName),
  },
  { additionalProperties: false },
);
export type ScenarioNudgeEntry = Static<typeof ScenarioNudgeEntry>;
/** A `nudges` item: a target's name (mode immediate), or a mapping with its mode. */
export const ScenarioNudge = Type.Union([ComponentName, ScenarioNudgeEntry]);
export type ScenarioNudge = Static<typeof ScenarioNudge>;

/** The target a `nudges` item names, whichever form it is written in. */
export function nudgeTarget(item: ScenarioNudge): string {
  return typeof item === 'string' ? item : item.to;
}

export const ScenarioComponent = Type.Object(
  {
    name: ComponentName,
    image: ImageRepository,
    nudges: Type.Optional(Type.Array(ScenarioNudge)),
    files: Type.Optional(RepositoryFiles),
    gitRevision: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: GIT_REVISION_PATTERN })),
    /** A ConfigMap of this (nudged) component's own, named by its nudge_renovate_config_map annotation. */
    renovateConfig: Type.Optional(RenovateConfigData),
    /** `build-nudge-simple-branch: "true"` on this (nudging) Component. */
    simpleBranch: Type.Optional(Type.Boolean()),
    /**
     * Another component whose repository this one lives in (a monorepo, docs/decisions.md N33):
     * both Components name the same git URL.
     */
    repository: Type.Optional(ComponentName),
    /**
     * Pipelines-as-Code globs of this component's `.tekton/<name>-pull-request.yaml`
     * on-cel-expression (`"<glob>".pathChanged()`, OR-ed), as N33 reads them.
     */
    pathChanged: Type.Optional(Type.Array(PathGlob, { minItems: 1 })),
  },
  { additionalProperties: false },
);
export type ScenarioComponent = Static<typeof ScenarioComponent>;

export const ScenarioChangeGroup = Type.Object(
  {
    name: ChangeGroupName,
    nudgedComponent: ComponentName,
    nudgingComponents: Type.Optional(Type.Array(ComponentName, { minItems: 1 })),
    timeout: Type.Optional(Duration),
    skipCi: Type.Optional(StringEnum(SKIP_CI_MODES, { default: DEFAULT_SKIP_CI_MODE })),
  },
  { additionalProperties: false },
);
export type ScenarioChangeGroup = Static<typeof ScenarioChangeGroup>;

/**
 * A ComponentGroup (integration-service's `appstudio.redhat.com/v1beta2`): the members whose push
 * Snapshots gate validated nudges (docs/decisions.md D10).
 */
export const ScenarioComponentGroup = Type.Object(
  {
    name: ComponentName,
    components: Type.Array(ComponentName, { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type ScenarioComponentGroup = Static<typeof ScenarioComponentGroup>;

// Each step is a mapping whose one "verb" key says what happens and names its target; a few verbs
// take extra keys. STEP_VERBS is what parse.ts uses to pick the variant to report errors against,
// since ajv's own anyOf errors list every variant's complaint at once.
export const BuildStep = Type.Object(
  {
    build: ComponentName,
    digest: Type.Optional(Digest),
    /** The build PipelineRun's `build-nudge-files` annotation. */
    nudgeFiles: Type.Optional(NudgeFiles),
    /** `false`: the build fails (Succeeded=False, no image), and nudges nothing. Default true. */
    succeeded: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const ClosePullRequestStep = Type.Object({ closePullRequest: ChangeGroupName }, { additionalProperties: false });
export const MergePullRequestStep = Type.Object({ mergePullRequest: ChangeGroupName }, { additionalProperties: false });
export const HumanCommitStep = Type.Object(
  {
    humanCommit: ChangeGroupName,
    files: Type.Optional(RepositoryFiles),
    message: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export const TickRebaseStep = Type.Object({ tickRebase: ChangeGroupName }, { additionalProperties: false });
export const TickBuildNowStep = Type.Object({ tickBuildNow: ChangeGroupName }, { additionalProperties: false });
export const RemoveNudgingComponentStep = Type.Object(
  {
    removeNudgingComponent: Type.Object(
      { changeGroup: ChangeGroupName, component: ComponentName },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export const WaitStep = Type.Object({ wait: Duration }, { additionalProperties: false });
/**
 * integration-service's stand-in makes a push Snapshot of the group from its members' latest
 * succeeded builds (only `components` when given) and marks its tests passed or failed.
 */
export const SnapshotStep = Type.Object(
  {
    snapshot: Type.Object(
      {
        group: ComponentName,
        passed: Type.Boolean(),
        components: Type.Optional(Type.Array(ComponentName, { minItems: 1 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
/** One nudge edge: the pull request `from`'s builds open on `to`'s repository. */
const NudgeEdge = Type.Object({ from: ComponentName, to: ComponentName }, { additionalProperties: false });
export const MergeNudgePullRequestStep = Type.Object(
  { mergeNudgePullRequest: NudgeEdge },
  { additionalProperties: false },
);
export const HumanCommitOnNudgeStep = Type.Object(
  {
    humanCommitOnNudge: NudgeEdge,
    files: Type.Optional(RepositoryFiles),
    message: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/** A pull request a human opens (or pushes to) on `component`'s repository, from `branch`. */
const HumanPullRequest = Type.Object(
  { component: ComponentName, branch: PullRequestBranch, files: Type.Optional(RepositoryFiles) },
  { additionalProperties: false },
);
/** The same pull request, named by its component's repository and branch. */
const HumanPullRequestRef = Type.Object(
  { component: ComponentName, branch: PullRequestBranch },
  { additionalProperties: false },
);
/** Opens a PR and records its pull-request build (pre-merge nudges, docs/decisions.md D11). */
export const OpenPullRequestStep = Type.Object({ openPullRequest: HumanPullRequest }, { additionalProperties: false });
/** A new commit on the PR's branch, and its pull-request build. */
export const PushToPullRequestStep = Type.Object(
  { pushToPullRequest: HumanPullRequest },
  { additionalProperties: false },
);
/** Merges the PR, and records the push build of the merge commit. */
export const MergeNudgingPullRequestStep = Type.Object(
  { mergeNudgingPullRequest: HumanPullRequestRef },
  { additionalProperties: false },
);
/** Closes the PR unmerged. */
export const CloseNudgingPullRequestStep = Type.Object(
  { closeNudgingPullRequest: HumanPullRequestRef },
  { additionalProperties: false },
);

/** Verb key → the schema of the steps it starts. */
export const STEP_SCHEMAS = {
  build: BuildStep,
  closePullRequest: ClosePullRequestStep,
  mergePullRequest: MergePullRequestStep,
  humanCommit: HumanCommitStep,
  tickRebase: TickRebaseStep,
  tickBuildNow: TickBuildNowStep,
  removeNudgingComponent: RemoveNudgingComponentStep,
  wait: WaitStep,
  mergeNudgePullRequest: MergeNudgePullRequestStep,
  humanCommitOnNudge: HumanCommitOnNudgeStep,
  snapshot: SnapshotStep,
  openPullRequest: OpenPullRequestStep,
  pushToPullRequest: PushToPullRequestStep,
  mergeNudgingPullRequest: MergeNudgingPullRequestStep,
  closeNudgingPullRequest: CloseNudgingPullRequestStep,
} as const;
export type StepVerb = keyof typeof STEP_SCHEMAS;
export const STEP_VERBS = Object.keys(STEP_SCHEMAS) as StepVerb[];

export const ScenarioStep = Type.Union([
  BuildStep,
  ClosePullRequestStep,
  MergePullRequestStep,
  HumanCommitStep,
  TickRebaseStep,
  TickBuildNowStep,
  RemoveNudgingComponentStep,
  WaitStep,
  MergeNudgePullRequestStep,
  HumanCommitOnNudgeStep,
  SnapshotStep,
  OpenPullRequestStep,
  PushToPullRequestStep,
  MergeNudgingPullRequestStep,
  CloseNudgingPullRequestStep,
]);
export type BuildStep = Static<typeof BuildStep>;
export type ClosePullRequestStep = Static<typeof ClosePullRequestStep>;
export type MergePullRequestStep = Static<typeof MergePullRequestStep>;
export type HumanCommitStep = Static<typeof HumanCommitStep>;
export type TickRebaseStep = Static<typeof TickRebaseStep>;
export type TickBuildNowStep = Static<typeof TickBuildNowStep>;
export type RemoveNudgingComponentStep = Static<typeof RemoveNudgingComponentStep>;
export type WaitStep = Static<typeof WaitStep>;
export type MergeNudgePullRequestStep = Static<typeof MergeNudgePullRequestStep>;
export type HumanCommitOnNudgeStep = Static<typeof HumanCommitOnNudgeStep>;
export type SnapshotStep = Static<typeof SnapshotStep>;
export type OpenPullRequestStep = Static<typeof OpenPullRequestStep>;
export type PushToPullRequestStep = Static<typeof PushToPullRequestStep>;
export type MergeNudgingPullRequestStep = Static<typeof MergeNudgingPullRequestStep>;
export type CloseNudgingPullRequestStep = Static<typeof CloseNudgingPullRequestStep>;
/** The steps on a human's pull request of a nudging component (pre-merge nudges). */
export type PullRequestStep =
  OpenPullRequestStep | PushToPullRequestStep | MergeNudgingPullRequestStep | CloseNudgingPullRequestStep;
export const PULL_REQUEST_VERBS = [
  'openPullRequest',
  'pushToPullRequest',
  'mergeNudgingPullRequest',
  'closeNudgingPullRequest',
] as const satisfies readonly StepVerb[];
/** Narrow with `'build' in step`, `'wait' in step`, …; or use stepVerb(). */
export type ScenarioStep = Static<typeof ScenarioStep>;

/** The file as written: optional lists may be absent. */
export const ScenarioDocument = Type.Object(
  {
    namespace: ComponentName,
    application: Type.Optional(ComponentName),
    nudgedBy: Type.Optional(StringEnum(NUDGED_BY, { default: DEFAULT_NUDGED_BY })),
    /** The NudgeConfig's `nudger.konflux-ci.dev/executor` annotation; nudgedBy: nudger only. */
    executor: Type.Optional(StringEnum(DISPATCH_EXECUTORS)),
    /** The data of the namespace-wide ConfigMap `namespace-wide-nudging-renovate-config`. */
    renovateConfig: Type.Optional(RenovateConfigData),
    components: Type.Array(ScenarioComponent, { minItems: 1 }),
    changeGroups: Type.Optional(Type.Array(ScenarioChangeGroup)),
    /** ComponentGroups (v1beta2), created before the first step; validated nudges name them. */
    componentGroups: Type.Optional(Type.Array(ScenarioComponentGroup)),
    steps: Type.Optional(Type.Array(ScenarioStep)),
    /** `nudger.konflux-ci.dev/pre-merge: "true"` on the NudgeConfig (docs/decisions.md D11). */
    preMerge: Type.Optional(Type.Boolean()),
    forge: Type.Optional(StringEnum(SCENARIO_FORGES, { default: DEFAULT_SCENARIO_FORGE })),
  },
  { additionalProperties: false },
);
export type ScenarioDocument = Static<typeof ScenarioDocument>;

/** A checked scenario with its defaults filled in; what every other sandbox module takes. */
export interface Scenario {
  readonly namespace: string;
  /** `spec.application` of every Component; defaults to the namespace. */
  readonly application: string;
  readonly nudgedBy: NudgedBy;
  /** The NudgeConfig's executor annotation; absent = none (the manager's default, `direct`). */
  readonly executor?: DispatchExecutor;
  /** The namespace-wide Renovate ConfigMap's data; absent = no such ConfigMap. */
  readonly renovateConfig?: Readonly<Record<string, string>>;
  readonly components: readonly ResolvedComponent[];
  readonly changeGroups: readonly ScenarioChangeGroup[];
  readonly componentGroups: readonly ScenarioComponentGroup[];
  readonly steps: readonly ScenarioStep[];
  /** The NudgeConfig opts into pre-merge nudges (D11). */
  readonly preMerge: boolean;
  readonly forge: ScenarioForge;
  /** A Korifi scenario (scenario/korifi.ts): CF apps in the space `namespace`, no components. */
  readonly korifi?: KorifiScenario;
}

export interface ResolvedComponent {
  readonly name: string;
  readonly image: string;
  /** Components this one's builds nudge, in either mode; empty when none. */
  readonly nudges: readonly string[];
  /**
   * Target → gating ComponentGroup, for the targets nudged in mode `validated` (D10); absent when
   * none is. A target of `nudges` not here is nudged immediately.
   */
  readonly validated?: Readonly<Record<string, string>>;
  /** Initial repository content; absent means "generate one" (see objects.ts). */
  readonly files?: Readonly<Record<string, string>>;
  readonly gitRevision: string;
  /** Its own Renovate ConfigMap's data (it is the nudged side); absent = none. */
  readonly renovateConfig?: Readonly<Record<string, string>>;
  /** `build-nudge-simple-branch: "true"` on the Component (it is the nudging side). */
  readonly simpleBranch: boolean;
  /** The component whose repository this one shares (a monorepo); absent = its own. */
  readonly repository?: string;
  /** Globs of its `.tekton/` pull-request PipelineRun's on-cel-expression; absent = none written. */
  readonly pathChanged?: readonly string[];
}

/** The component whose repository `component` lives in: itself, or the one its `repository` names. */
export function repositoryOwner(component: Pick<ResolvedComponent, 'name' | 'repository'>): string {
  return component.repository ?? component.name;
}

/** The pull-request step's verb and what it names, or undefined for any other step. */
export function pullRequestStepOf(
  step: ScenarioStep,
):
  | { verb: (typeof PULL_REQUEST_VERBS)[number]; component: string; branch: string; files?: RepositoryFiles }
  | undefined {
  if ('openPullRequest' in step) return { verb: 'openPullRequest', ...step.openPullRequest };
  if ('pushToPullRequest' in step) return { verb: 'pushToPullRequest', ...step.pushToPullRequest };
  if ('mergeNudgingPullRequest' in step) return { verb: 'mergeNudgingPullRequest', ...step.mergeNudgingPullRequest };
  if ('closeNudgingPullRequest' in step) return { verb: 'closeNudgingPullRequest', ...step.closeNudgingPullRequest };
  return undefined;
}

/** The targets `component` nudges immediately (each build), in `nudges` order. */
export function immediateNudges(component: ResolvedComponent): string[] {
  return component.nudges.filter((to) => component.validated?.[to] === undefined);
}

/** The verb of a step: which of STEP_VERBS it carries. */
export function stepVerb(step: ScenarioStep): StepVerb {
  for (const verb of STEP_VERBS) if (Object.hasOwn(step, verb)) return verb;
  /* node:coverage ignore next */
  throw new TypeError('a scenario step without a verb; parseScenario never returns one');
}
