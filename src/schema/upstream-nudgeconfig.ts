// integration-service's NudgeConfig, in its two upstream forms (docs/decisions.md D1):
// - `appstudio.redhat.com/v1beta2`, the CRD integration-service shipped first, which nudger reads as
//   an import source and never writes. Facts from its CRD, vendored as
//   sandbox/crds/appstudio.redhat.com_nudgeconfigs.yaml: same entry shape as ours, but at most 256 entries.
// - `konflux-ci.dev/v1beta2`, the same fields in nudger's group with at most 360 entries. Two CRDs of
//   one name cannot coexist, so nudger's CRD serves it beside v1alpha1 (src/schema/crd.ts).
// Upstream reserves `gatingGroup` and does not require it for `mode: validated`, so neither schema
// carries nudger's missing-gating-group rule.
import Type, { type Static } from 'typebox';
import { ClusterEnvelope, ObjectMeta } from './common.ts';
import { NUDGE_CONFIG_NAME } from './nudgeconfig.ts';
import {
  NUDGE_CONFIG_CEL,
  NUDGE_CONFIG_GROUP,
  NUDGE_CONFIG_KIND,
  NUDGE_RELATIONSHIP_DESCRIPTION,
  NudgeConfigStatus,
  nudgeListOptions,
  nudgeRelationshipFields,
} from './nudgeconfig.ts';

export const UPSTREAM_NUDGE_CONFIG_GROUP = 'appstudio.redhat.com';
export const UPSTREAM_NUDGE_CONFIG_VERSION = 'v1beta2';
export const UPSTREAM_NUDGE_CONFIG_API_VERSION = `${UPSTREAM_NUDGE_CONFIG_GROUP}/${UPSTREAM_NUDGE_CONFIG_VERSION}`;
export const UPSTREAM_NUDGE_CONFIG_KIND = 'NudgeConfig';
export const UPSTREAM_MAX_NUDGE_ENTRIES = 256;

// Upstream's structural schema does not say `additionalProperties: false`; the API server prunes
// unknown fields instead (or rejects them under kubectl's default strict field validation). Either
// way a typo'd field is lost, so nudger's rendition closes the objects to be able to warn about it.
export const UpstreamNudgeRelationship = Type.Object(
  nudgeRelationshipFields(
    'The ComponentGroup whose Snapshot must pass integration tests first. Upstream reserves it; nudger fires a validated entry only once it names one.',
  ),
  { additionalProperties: false, description: NUDGE_RELATIONSHIP_DESCRIPTION },
);
export type UpstreamNudgeRelationship = Static<typeof UpstreamNudgeRelationship>;

export const UpstreamNudgeConfigSpec = Type.Object(
  {
    nudges: Type.Optional(Type.Array(UpstreamNudgeRelationship, { maxItems: UPSTREAM_MAX_NUDGE_ENTRIES })),
  },
  { additionalProperties: false },
);

export const UpstreamNudgeConfig = Type.Object(
  {
    apiVersion: Type.Literal(UPSTREAM_NUDGE_CONFIG_API_VERSION),
    kind: Type.Literal(UPSTREAM_NUDGE_CONFIG_KIND),
    metadata: ObjectMeta,
    spec: Type.Optional(UpstreamNudgeConfigSpec),
    // Written by integration-service's controller; nudger does not read it.
    status: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type UpstreamNudgeConfig = Static<typeof UpstreamNudgeConfig>;

export const UPSTREAM_KONFLUX_NUDGE_CONFIG_VERSION = 'v1beta2';
export const UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION = `${NUDGE_CONFIG_GROUP}/${UPSTREAM_KONFLUX_NUDGE_CONFIG_VERSION}`;
export const UPSTREAM_KONFLUX_MAX_NUDGE_ENTRIES = 360;

export const UpstreamKonfluxNudgeConfigSpec = Type.Object(
  {
    // Upstream states (from, to) uniqueness as an O(n^2) CEL rule; the list-map key refuses the
    // same objects, natively and in O(n), as nudger's v1alpha1 does.
    nudges: Type.Optional(Type.Array(UpstreamNudgeRelationship, nudgeListOptions(UPSTREAM_KONFLUX_MAX_NUDGE_ENTRIES))),
  },
  { additionalProperties: false, 'x-kubernetes-validations': [NUDGE_CONFIG_CEL['self-nudge']] },
);

/**
 * `konflux-ci.dev/v1beta2`: the same stored object as v1alpha1 (conversion `None`), so the status
 * is nudger's, a superset of upstream's (conditions and lastValidationTime).
 */
export const UpstreamKonfluxNudgeConfig = Type.Object(
  {
    apiVersion: Type.Literal(UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION),
    kind: Type.Literal(NUDGE_CONFIG_KIND),
    metadata: ObjectMeta,
    spec: Type.Optional(UpstreamKonfluxNudgeConfigSpec),
    status: Type.Optional(NudgeConfigStatus),
  },
  {
    additionalProperties: false,
    description: `The nudge graph of one namespace, in integration-service's form. A singleton: it must be named '${NUDGE_CONFIG_NAME}'.`,
    'x-kubernetes-validations': [NUDGE_CONFIG_CEL['singleton-name']],
  },
);
export type UpstreamKonfluxNudgeConfig = Static<typeof UpstreamKonfluxNudgeConfig>;

/** A NudgeConfig stored through `konflux-ci.dev/v1beta2` and served through v1alpha1 (D1). */
export const ClusterUpstreamKonfluxNudgeConfig = Type.Object(
  { ...ClusterEnvelope, spec: Type.Optional(UpstreamKonfluxNudgeConfigSpec), status: Type.Optional(NudgeConfigStatus) },
  { additionalProperties: true },
);
