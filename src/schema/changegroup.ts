// ChangeGroup (ADR 59, docs/decisions.md D1-D5): the one definition from which the CRD (deploy/crds/), the
// runtime validator and the TypeScript types are derived. Edit here, then `npm run gen:crds`.
import Type, { type Static } from 'typebox';
import { ClusterEnvelope, ComponentName, Condition, ObjectMeta, StringEnum } from './common.ts';

export const CHANGE_GROUP_GROUP = 'appstudio.redhat.com';
export const CHANGE_GROUP_VERSION = 'v1alpha1';

// The values the API accepts; src/domain/changegroup/model.ts says what they mean.
export const CHANGE_GROUP_PHASES = ['Initialized', 'Waiting', 'Ready', 'Completed', 'Cancelled', 'Failed'] as const;
/** See src/domain/changegroup/model.ts for `NotReferenced`. */
export const COMPONENT_STATES = ['Waiting', 'Ready', 'NotReferenced'] as const;
/** docs/decisions.md D4: where `[skip ci]` lives while components are still missing. */
export const SKIP_CI_MODES = ['commitMessage', 'description'] as const;
export const DEFAULT_SKIP_CI_MODE: (typeof SKIP_CI_MODES)[number] = 'commitMessage';
/** Most items of `spec.nudgingComponents` and `status.components`; see below for why. */
export const MAX_NUDGING_COMPONENTS = 250;
/** `spec.timeout`: one or more `<digits><unit>` with unit h, m or s. Every match is a Go duration. */
export const TIMEOUT_PATTERN = '^([0-9]+(h|m|s))+$';
export const TIMEOUT_MAX_LENGTH = 32;
export const CHANGE_GROUP_API_VERSION = `${CHANGE_GROUP_GROUP}/${CHANGE_GROUP_VERSION}`;
export const CHANGE_GROUP_KIND = 'ChangeGroup';

/** An OCI digest as Konflux builds produce it (`IMAGE_DIGEST`). */
export const IMAGE_DIGEST_PATTERN = '^sha256:[0-9a-f]{64}$';
/** A git object id: SHA-1 (40 hex) or SHA-256 (64 hex) repositories. */
export const GIT_COMMIT_PATTERN = '^[0-9a-f]{40}([0-9a-f]{24})?$';
/** `<ready>/<total>`, written by the controller because JSONPath cannot count list items. */
export const SUMMARY_PATTERN = '^[0-9]+/[0-9]+$';

/** The CEL rules, by what they guard. Tests run each against valid and invalid objects. */
export const CHANGE_GROUP_CEL = {
  'nudged-not-nudging': {
    rule: '!has(self.nudgingComponents) || self.nudgingComponents.all(c, c.name != self.nudgedComponent)',
    message: 'nudgedComponent cannot also be one of nudgingComponents: a component cannot nudge itself',
  },
  // The pull request, its branch and every collected digest belong to one target; retargeting a
  // live ChangeGroup would leave all three pointing at the wrong repository.
  'nudged-immutable': {
    rule: 'self == oldSelf',
    message: 'nudgedComponent is immutable: create a new ChangeGroup for another component',
  },
  'timeout-positive': {
    rule: "duration(self) > duration('0s')",
    message: 'timeout must be longer than zero',
  },
} as const;

const digest = (description?: string) =>
  Type.String({ pattern: IMAGE_DIGEST_PATTERN, maxLength: 71, ...(description === undefined ? {} : { description }) });
const GitCommit = Type.String({ pattern: GIT_COMMIT_PATTERN, maxLength: 64 });
const Timestamp = Type.String({ format: 'date-time' });

// 250 rows is what one pull request description can carry: GitHub caps a body at 65,536
// characters and a status-table row with two digests is about 200. It also keeps every CEL rule
// over these lists cheap. The largest real case ADR 59 names is 30.
const listOfComponents = <T extends Parameters<typeof Type.Array>[0]>(item: T, description: string) =>
  Type.Array(item, {
    maxItems: MAX_NUDGING_COMPONENTS,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    description,
  });

export const NudgingComponentRef = Type.Object({ name: ComponentName }, { additionalProperties: false });

export const ChangeGroupSpec = Type.Object(
  {
    nudgedComponent: Type.Unsafe<string>({
      ...ComponentName,
      description: 'The Component whose repository receives the one pull request (e.g. an OLM bundle).',
      'x-kubernetes-validations': [CHANGE_GROUP_CEL['nudged-immutable']],
    }),
    nudgingComponents: Type.Optional(
      listOfComponents(
        NudgingComponentRef,
        'The Components whose builds are collected. Empty or absent: every Component that nudges nudgedComponent; the controller then writes them here.',
      ),
    ),
    timeout: Type.Optional(
      Type.String({
        pattern: TIMEOUT_PATTERN,
        maxLength: TIMEOUT_MAX_LENGTH,
        description:
          'How long to wait for every component, from status.startTime (e.g. 24h, 90m, 1h30m). Then the phase becomes Failed and nudges flow normally again.',
        'x-kubernetes-validations': [CHANGE_GROUP_CEL['timeout-positive']],
      }),
    ),
    skipCi: Type.Optional(
      StringEnum(SKIP_CI_MODES, {
        default: DEFAULT_SKIP_CI_MODE,
        description:
          'Where [skip ci] goes until every component is ready: commitMessage (works with stock Pipelines-as-Code) or description (ADR 59 as written; needs a PaC that reads PR descriptions).',
      }),
    ),
  },
  { additionalProperties: false, 'x-kubernetes-validations': [CHANGE_GROUP_CEL['nudged-not-nudging']] },
);
export type ChangeGroupSpec = Static<typeof ChangeGroupSpec>;

export const ChangeGroupComponentStatus = Type.Object(
  {
    name: ComponentName,
    state: StringEnum(COMPONENT_STATES),
    originalBuild: Type.Optional(
      digest("The digest of the Component's status.lastPromotedImage when it joined the ChangeGroup."),
    ),
    newBuild: Type.Optional(digest('The newest verified build (D3) of this component.')),
    newBuildPullSpec: Type.Optional(Type.String({ maxLength: 512 })),
    /**
     * Creation time of the build PipelineRun behind newBuild. It orders rebuilds: a build only
     * replaces newBuild when it is newer, so a slow older build arriving late never wins, and a
     * controller restarted mid-way (D5) reaches the same answer from status alone.
     */
    newBuildTime: Type.Optional(Timestamp),
    lastUpdateTime: Type.Optional(Timestamp),
    buildPipelineRun: Type.Optional(Type.String({ maxLength: 253 })),
  },
  { additionalProperties: false },
);
export type ChangeGroupComponentStatus = Static<typeof ChangeGroupComponentStatus>;

export const PushedBuild = Type.Object({ name: ComponentName, digest: digest() }, { additionalProperties: false });
export type PushedBuild = Static<typeof PushedBuild>;

/**
 * What the controller last did to the pull request (D5). With this and the components above a
 * controller started from nothing can tell, without cloning, whether the PR is up to date:
 * `pushedBuilds` is what the branch's single commit holds, `final` whether that commit went out
 * without `[skip ci]`, `lastPushedCommit` the lease for the next force-push and the yardstick for
 * "someone else committed", `baseCommit` what the commit was built on, `number` and `headBranch`
 * how to find the PR again (it is also looked up by branch before any create, so it is never opened
 * twice), and `descriptionFingerprint` which status the description last showed.
 */
export const PullRequestStatus = Type.Object(
  {
    number: Type.Integer({ minimum: 1 }),
    url: Type.String({ maxLength: 2048 }),
    headBranch: Type.String({ minLength: 1, maxLength: 255 }),
    baseBranch: Type.String({ minLength: 1, maxLength: 255 }),
    baseCommit: GitCommit,
    lastPushedCommit: GitCommit,
    draft: Type.Boolean(),
    final: Type.Boolean({ description: 'Whether the last push was the final one, without [skip ci].' }),
    pushedBuilds: Type.Array(PushedBuild, {
      maxItems: MAX_NUDGING_COMPONENTS,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    }),
    descriptionFingerprint: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type PullRequestStatus = Static<typeof PullRequestStatus>;

export const ChangeGroupStatus = Type.Object(
  {
    phase: Type.Optional(StringEnum(CHANGE_GROUP_PHASES)),
    observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
    summary: Type.Optional(
      Type.String({ pattern: SUMMARY_PATTERN, maxLength: 16, description: 'Ready components / all components.' }),
    ),
    pullRequestURL: Type.Optional(Type.String({ maxLength: 2048 })),
    pullRequest: Type.Optional(PullRequestStatus),
    startTime: Type.Optional(Timestamp),
    readyTime: Type.Optional(Timestamp),
    completionTime: Type.Optional(Timestamp),
    components: Type.Optional(listOfComponents(ChangeGroupComponentStatus, 'One entry per nudging component.')),
    conditions: Type.Optional(
      Type.Array(Condition, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
    ),
  },
  { additionalProperties: false },
);
export type ChangeGroupStatus = Static<typeof ChangeGroupStatus>;

export const ChangeGroup = Type.Object(
  {
    apiVersion: Type.Literal(CHANGE_GROUP_API_VERSION),
    kind: Type.Literal(CHANGE_GROUP_KIND),
    metadata: ObjectMeta,
    spec: ChangeGroupSpec,
    status: Type.Optional(ChangeGroupStatus),
  },
  {
    additionalProperties: false,
    description:
      'Collects the nudges of many components into one pull request and one build of the nudged component (ADR 59).',
  },
);
export type ChangeGroup = Static<typeof ChangeGroup>;

/**
 * A ChangeGroup as the API server serves it. Unlike manifest reading, the status is checked: the
 * controller reads it back, and the API server checked it against the same schema on every write.
 */
export const ClusterChangeGroup = Type.Object(
  { ...ClusterEnvelope, spec: ChangeGroupSpec, status: Type.Optional(ChangeGroupStatus) },
  { additionalProperties: true },
);
export type ClusterChangeGroup = Static<typeof ClusterChangeGroup>;
