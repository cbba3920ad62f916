// NudgeConfig (ADR 67): the one definition from which the CRD (deploy/crds/), the runtime
// validator and the TypeScript types are all derived. Edit here, then `npm run gen:crds`.
import Type, { type Static } from 'typebox';
import { ClusterEnvelope, ComponentName, Condition, ObjectMeta, StringEnum } from './common.ts';

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

export const NudgeConfigStatus = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(Condition, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
    ),
    lastValidationTime: Type.Optional(Type.String({ format: 'date-time' })),
    observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
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
