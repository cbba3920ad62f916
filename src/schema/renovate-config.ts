// The Renovate config the `renovate` executor writes per nudged target (docs/decisions.md D9, N15,
// N16): build-service's `RenovateConfig` (internal/controller/renovate_util.go), field for field,
// in its field order. It is nudger's own output, so the schema is closed (no other property): the
// domain builds it (src/domain/nudge/renovate-config.ts), tests validate it, and the sandbox's
// Tekton stand-in can decode what it executes with the same schema. No token is ever part of it:
// Renovate gets its token from the environment (RENOVATE_TOKEN, from the PipelineRun's Secret).
//
// A validated batch (docs/decisions.md D10, N29) is the same config with one custom manager per
// component of the batch and one group rule for all of them: its rule names the group's slug
// (`groupSlug`) and the commit topic and extra instead of a branch topic.
import Type, { type Static } from 'typebox';
import { StringEnum } from './common.ts';

/** Renovate's `platform` values build-service (github, gitlab, forgejo) and integration-service (bitbucket) write. */
export const RENOVATE_PLATFORMS = ['github', 'gitlab', 'forgejo', 'bitbucket'] as const;
export type RenovatePlatform = (typeof RENOVATE_PLATFORMS)[number];

/** Renovate's `automergeType` values. */
export const AUTOMERGE_TYPES = ['branch', 'pr', 'pr-comment'] as const;
export type AutomergeType = (typeof AUTOMERGE_TYPES)[number];

const NonEmpty = Type.String({ minLength: 1 });
const closed = { additionalProperties: false } as const;

export const RenovateRepository = Type.Object(
  { repository: NonEmpty, baseBranches: Type.Array(NonEmpty, { minItems: 1, maxItems: 1 }) },
  closed,
);

export const RenovateCustomManager = Type.Object(
  {
    fileMatch: Type.Array(NonEmpty, { minItems: 1 }),
    customType: Type.Literal('regex'),
    datasourceTemplate: Type.Literal('docker'),
    matchStrings: Type.Array(NonEmpty, { minItems: 1 }),
    currentValueTemplate: NonEmpty,
    depNameTemplate: NonEmpty,
  },
  closed,
);

/** build-service's DisableAllPackageRules: every package off, before the nudge's rule turns its own on. */
export const RenovateDisableAllRule = Type.Object(
  { matchPackagePatterns: Type.Tuple([Type.Literal('*')]), enabled: Type.Literal(false) },
  closed,
);

export const RenovateNudgeRule = Type.Object(
  {
    matchPackageNames: Type.Array(NonEmpty, { minItems: 1 }),
    groupName: NonEmpty,
    /** A validated batch only: the slug Renovate names the group's branch with. */
    groupSlug: Type.Optional(NonEmpty),
    branchPrefix: NonEmpty,
    /** A single nudge only; a group's branch topic is its slug. */
    branchTopic: Type.Optional(NonEmpty),
    additionalBranchPrefix: Type.String(),
    commitMessageTopic: NonEmpty,
    /** A validated batch only: '' so that one component or several read "Update <groupName>". */
    commitMessageExtra: Type.Optional(Type.String()),
    commitMessagePrefix: Type.Optional(NonEmpty),
    commitMessageSuffix: Type.Optional(NonEmpty),
    commitBody: NonEmpty,
    prFooter: NonEmpty,
    prHeader: NonEmpty,
    recreateWhen: Type.Literal('always'),
    rebaseWhen: Type.Literal('behind-base-branch'),
    enabled: Type.Literal(true),
  },
  closed,
);

export const RenovateNudgeConfig = Type.Object(
  {
    platform: StringEnum(RENOVATE_PLATFORMS),
    username: NonEmpty,
    gitAuthor: NonEmpty,
    onboarding: Type.Literal(false),
    requireConfig: Type.Literal('ignored'),
    repositories: Type.Array(RenovateRepository, { minItems: 1, maxItems: 1 }),
    enabledManagers: Type.Tuple([Type.Literal('custom.regex')]),
    endpoint: NonEmpty,
    /** One per nudging component: a single nudge has one, a validated batch one per component. */
    customManagers: Type.Array(RenovateCustomManager, { minItems: 1 }),
    registryAliases: Type.Optional(Type.Record(Type.String(), NonEmpty)),
    packageRules: Type.Tuple([RenovateDisableAllRule, RenovateNudgeRule]),
    forkProcessing: Type.Literal('enabled'),
    extends: Type.Array(Type.String(), { maxItems: 0 }),
    dependencyDashboard: Type.Literal(false),
    labels: Type.Array(NonEmpty, { minItems: 1 }),
    automerge: Type.Boolean(),
    automergeType: Type.Optional(StringEnum(AUTOMERGE_TYPES)),
    platformAutomerge: Type.Boolean(),
    ignoreTests: Type.Boolean(),
    gitLabIgnoreApprovals: Type.Boolean(),
    automergeSchedule: Type.Optional(Type.Array(NonEmpty, { minItems: 1 })),
  },
  closed,
);
export type RenovateNudgeConfig = Static<typeof RenovateNudgeConfig>;
