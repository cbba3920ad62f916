// The part of the upstream Component (`appstudio.redhat.com/v1alpha1`) that nudger reads. Upstream
// owns the full schema (vendored in sandbox/crds/); this one only checks the fields nudger uses
// and lets every other field through, since upstream adds fields often.
import Type, { type Static } from 'typebox';
import { ClusterEnvelope, ObjectMeta } from './common.ts';

export const COMPONENT_GROUP = 'appstudio.redhat.com';
export const COMPONENT_VERSION = 'v1alpha1';
export const COMPONENT_API_VERSION = `${COMPONENT_GROUP}/${COMPONENT_VERSION}`;
export const COMPONENT_KIND = 'Component';

/** The JSON key really has a hyphen (Go field `BuildNudgesRef`). */
export const BUILD_NUDGES_REF = 'build-nudges-ref';

export const ComponentSpec = Type.Object(
  {
    // Upstream declares plain strings with no name pattern, so none is imposed here either.
    [BUILD_NUDGES_REF]: Type.Optional(Type.Array(Type.String())),
    containerImage: Type.Optional(Type.String()),
    // Where the ChangeGroup controller opens its pull request and which branch builds may come
    // from (docs/decisions.md D3). Upstream requires `url`; nudger only reads it when present.
    source: Type.Optional(
      Type.Object(
        {
          git: Type.Optional(
            Type.Object(
              { url: Type.Optional(Type.String()), revision: Type.Optional(Type.String()) },
              { additionalProperties: true },
            ),
          ),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
);

export const ComponentStatus = Type.Object(
  {
    lastPromotedImage: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const Component = Type.Object(
  {
    apiVersion: Type.Literal(COMPONENT_API_VERSION),
    kind: Type.Literal(COMPONENT_KIND),
    metadata: ObjectMeta,
    spec: Type.Optional(ComponentSpec),
    status: Type.Optional(ComponentStatus),
  },
  { additionalProperties: true },
);
export type Component = Static<typeof Component>;

/** A Component as the API server serves it (src/cluster/watched-kinds.ts decodes it once). */
export const ClusterComponent = Type.Object(
  { ...ClusterEnvelope, spec: Type.Optional(ComponentSpec), status: Type.Optional(ComponentStatus) },
  { additionalProperties: true },
);
export type ClusterComponent = Static<typeof ClusterComponent>;
