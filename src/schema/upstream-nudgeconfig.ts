// integration-service's shipped NudgeConfig (`appstudio.redhat.com/v1beta2`), which nudger reads as
// an import source and never writes. Facts from ../upstream-crds/konflux/
// appstudio.redhat.com_nudgeconfigs.yaml: same entry shape as ours, but at most 256 entries.
import Type, { type Static } from 'typebox';
import { NUDGE_MODES } from '../domain/model.ts';
import { ComponentName, ObjectMeta, StringEnum } from './common.ts';

export const UPSTREAM_NUDGE_CONFIG_GROUP = 'appstudio.redhat.com';
export const UPSTREAM_NUDGE_CONFIG_VERSION = 'v1beta2';
export const UPSTREAM_NUDGE_CONFIG_API_VERSION = `${UPSTREAM_NUDGE_CONFIG_GROUP}/${UPSTREAM_NUDGE_CONFIG_VERSION}`;
export const UPSTREAM_NUDGE_CONFIG_KIND = 'NudgeConfig';
export const UPSTREAM_MAX_NUDGE_ENTRIES = 256;

// Upstream's structural schema does not say `additionalProperties: false`; the API server prunes
// unknown fields instead (or rejects them under kubectl's default strict field validation). Either
// way a typo'd field is lost, so nudger's rendition closes the objects to be able to warn about it.
export const UpstreamNudgeRelationship = Type.Object(
  {
    from: ComponentName,
    to: ComponentName,
    mode: Type.Optional(StringEnum(NUDGE_MODES, { default: 'immediate' })),
    gatingGroup: Type.Optional(Type.String({ maxLength: 63 })),
  },
  { additionalProperties: false },
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
