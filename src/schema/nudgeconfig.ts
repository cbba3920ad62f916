// NudgeConfig (ADR 67): the one definition from which the CRD (deploy/crds/), the runtime
// validator and the TypeScript types are all derived. Edit here, then `npm run gen:crds`.
import Type, { type Static } from 'typebox';
import { ClusterEnvelope, ComponentName, Condition, ObjectMeta, StringEnum } from './common.ts';
import { DNS1123_LABEL_MAX_LENGTH } from './names.ts';

export const NUDGE_CONFIG_GROUP = 'konflux-ci.dev';
export const NUDGE_CONFIG_VERSION = 'v1alpha1';
export const NUDGE_CONFIG_API_VERSION = `${NUDGE_CONFIG_GROUP}/${NUDGE_CONFIG_VERSION}`;
export const NUDGE_CONFIG_KIND = 'NudgeConfig';

export const NUDGE_MODES = ['immediate', 'validated'] as const;
/** The singleton name ADR 67 mandates for every namespace's NudgeConfig. */
export const NUDGE_CONFIG_NAME = 'nudge-config';
/** ADR 67 `maxItems` on `spec.nudges`, chosen to stay well under etcd's 1 MB object limit. */
export const MAX_NUDGE_ENTRIES = 5000;

/** The CEL rules of ADR 67, by the domain rule id each one mirrors. Tests hold them to that. */
export const NUDGE_CONFIG_CEL = {
  'singleton-name': {
    rule: `self.metadata.name == '${NUDGE_CONFIG_NAME}'`,
    message: `NudgeConfig is a singleton: metadata.name must be '${NUDGE_CONFIG_NAME}'`,
  },
  'self-nudge': {
    rule: '!has(self.nudges) || self.nudges.all(n, n.from != n.to)',
    message: 'a component cannot nudge itself: from and to must differ',
  },
  'missing-gating-group': {
    rule: "!has(self.mode) || self.mode != 'validated' || (has(self.gatingGroup) && size(self.gatingGroup) > 0)",
    message: 'gatingGroup is required when mode is validated',
  },
} as const;

/**
 * The fields of one entry, the same in every NudgeConfig version nudger reads (the versions of one
 * CRD share them, conversion None); only what `gatingGroup` means differs.
 */
export function nudgeRelationshipFields(gatingGroupDescription: string) {
  return {
    from: ComponentName,
    to: ComponentName,
    mode: Type.Optional(
      StringEnum(NUDGE_MODES, {
        default: 'immediate',
        description:
          'When the nudge fires: immediate, after the source build succeeds; validated, after the Snapshot of gatingGroup passes its tests.',
      }),
    ),
    gatingGroup: Type.Optional(Type.String({ maxLength: 63, description: gatingGroupDescription })),
  };
}

export const NUDGE_RELATIONSHIP_DESCRIPTION = 'A directed edge: a successful build of `from` nudges `to`.';

export const NudgeRelationship = Type.Object(
  nudgeRelationshipFields(
    'The ComponentGroup whose Snapshot must pass integration tests first. Required when mode is validated.',
  ),
  {
    additionalProperties: false,
    description: NUDGE_RELATIONSHIP_DESCRIPTION,
    'x-kubernetes-validations': [NUDGE_CONFIG_CEL['missing-gating-group']],
  },
);
export type NudgeRelationship = Static<typeof NudgeRelationship>;

/** `spec.nudges` of every version of nudger's CRD, which differ only in how many entries they allow. */
export function nudgeListOptions(maxItems: number) {
  return {
    maxItems,
    // Uniqueness of (from, to) is declared as a list-map key, which the API server enforces
    // natively in O(n). The CEL form (`all(i, exists_one(j, ...))`) is O(n^2): at 5000 items it
    // exceeds the API server's static CEL cost budget and the CRD would be refused.
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['from', 'to'],
    description: 'The nudge edges of this namespace.',
  };
}

export const NudgeConfigSpec = Type.Object(
  {
    nudges: Type.Optional(Type.Array(NudgeRelationship, nudgeListOptions(MAX_NUDGE_ENTRIES))),
  },
  {
    additionalProperties: false,
    'x-kubernetes-validations': [NUDGE_CONFIG_CEL['self-nudge']],
  },
);
export type NudgeConfigSpec = Static<typeof NudgeConfigSpec>;

/**
 * Bounds of `status.validatedNudges` (docs/decisions.md D10): whatever the spec holds (up to 5,000
 * entries, each with its own gating group), the status lists at most this many groups, this many
 * waiting entries per group and this many across the status, so it stays a few tens of KiB at
 * most (test/domain/nudge/validated-status.test.ts measures the worst case); counts tell the rest.
 */
export const MAX_STATUS_GATING_GROUPS = 50;
export const MAX_WAITING_ENTRIES_PER_GROUP = 20;
export const MAX_WAITING_ENTRIES_LISTED = 200;
/** `<from> -> <to>`: two Component names (DNS-1123 labels) and the arrow. */
export const WAITING_ENTRY_MAX_LENGTH = 2 * DNS1123_LABEL_MAX_LENGTH + ' -> '.length;

export const ValidatedGroupStatus = Type.Object(
  {
    gatingGroup: Type.String({ minLength: 1, maxLength: 63, description: 'The ComponentGroup.' }),
    entries: Type.Integer({ minimum: 0, description: 'Validated entries gated by this group.' }),
    targets: Type.Integer({ minimum: 0, description: 'Distinct targets of those entries: one PR each per pass.' }),
    waiting: Type.Integer({
      minimum: 0,
      description:
        "Entries waiting on this group's next passing Snapshot: their source has a succeeded push build newer than the one last nudged, or was never nudged.",
    }),
    waitingEntries: Type.Optional(
      Type.Array(Type.String({ maxLength: WAITING_ENTRY_MAX_LENGTH }), {
        maxItems: MAX_WAITING_ENTRIES_PER_GROUP,
        description: "The first waiting entries, '<from> -> <to>', sorted; `waiting` counts them all.",
      }),
    ),
    lastPassingSnapshot: Type.Optional(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 253 }),
          startTime: Type.Optional(
            Type.Integer({
              minimum: 0,
              description: 'Its test.appstudio.openshift.io/pipelinerunstarttime, as written (Unix seconds).',
            }),
          ),
        },
        { additionalProperties: false, description: 'The newest passing Snapshot a nudge was made from.' },
      ),
    ),
    lastNudgeTime: Type.Optional(
      Type.String({ format: 'date-time', description: 'When that Snapshot was used to nudge.' }),
    ),
  },
  { additionalProperties: false },
);
export type ValidatedGroupStatus = Static<typeof ValidatedGroupStatus>;

export const ValidatedNudgesStatus = Type.Object(
  {
    entries: Type.Integer({ minimum: 0, description: 'Validated entries that name a gating group.' }),
    waiting: Type.Integer({ minimum: 0, description: 'Of those, entries waiting on their next passing Snapshot.' }),
    gatingGroups: Type.Integer({
      minimum: 0,
      description: `Distinct gating groups; groups lists at most ${String(MAX_STATUS_GATING_GROUPS)}, those with the most waiting entries first.`,
    }),
    groups: Type.Array(ValidatedGroupStatus, {
      maxItems: MAX_STATUS_GATING_GROUPS,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['gatingGroup'],
      description: 'Per gating group, sorted by name.',
    }),
  },
  {
    additionalProperties: false,
    description: 'Validated nudges (ADR 67 validated mode): what waits on which ComponentGroup, and its last pass.',
  },
);
export type ValidatedNudgesStatus = Static<typeof ValidatedNudgesStatus>;

export const NudgeConfigStatus = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(Condition, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
    ),
    lastValidationTime: Type.Optional(Type.String({ format: 'date-time' })),
    observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
    validatedNudges: Type.Optional(ValidatedNudgesStatus),
  },
  { additionalProperties: false },
);
export type NudgeConfigStatus = Static<typeof NudgeConfigStatus>;

export const NudgeConfig = Type.Object(
  {
    apiVersion: Type.Literal(NUDGE_CONFIG_API_VERSION),
    kind: Type.Literal(NUDGE_CONFIG_KIND),
    metadata: ObjectMeta,
    spec: Type.Optional(NudgeConfigSpec),
    status: Type.Optional(NudgeConfigStatus),
  },
  {
    additionalProperties: false,
    description: `The nudge graph of one namespace (ADR 67). A singleton: it must be named '${NUDGE_CONFIG_NAME}'.`,
    'x-kubernetes-validations': [NUDGE_CONFIG_CEL['singleton-name']],
  },
);
export type NudgeConfig = Static<typeof NudgeConfig>;

/**
 * A NudgeConfig as the API server serves it through v1alpha1, whichever version its client wrote
 * (one CRD, conversion None). Its spec is typed by v1alpha1's; v1beta2's entries have the same
 * fields (src/schema/upstream-nudgeconfig.ts), so the type fits both.
 */
export const ClusterNudgeConfig = Type.Object(
  { ...ClusterEnvelope, spec: Type.Optional(NudgeConfigSpec), status: Type.Optional(NudgeConfigStatus) },
  { additionalProperties: true },
);
export type ClusterNudgeConfig = Static<typeof ClusterNudgeConfig>;
