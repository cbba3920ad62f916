// The part of integration-service's Snapshot (`appstudio.redhat.com/v1alpha1`) that nudger reads for
// validated nudges (docs/decisions.md D10). Upstream owns the full schema (vendored as
// sandbox/crds/appstudio.redhat.com_snapshots.yaml); this one checks only the fields read here and
// lets every other one through. Conditions are loose on purpose: a Snapshot whose status nudger
// cannot read simply has not passed, it is not an undecodable object.
import Type, { type Static } from 'typebox';
import { ClusterEnvelope } from './common.ts';

export const SnapshotComponent = Type.Object(
  { name: Type.String(), containerImage: Type.String() },
  { additionalProperties: true },
);
export type SnapshotComponent = Static<typeof SnapshotComponent>;

export const SnapshotSpec = Type.Object(
  {
    application: Type.Optional(Type.String()),
    componentGroup: Type.Optional(Type.String()),
    components: Type.Optional(Type.Array(SnapshotComponent)),
  },
  { additionalProperties: true },
);

const SnapshotCondition = Type.Object(
  {
    type: Type.String(),
    status: Type.String(),
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    lastTransitionTime: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const SnapshotStatus = Type.Object(
  { conditions: Type.Optional(Type.Array(SnapshotCondition)) },
  { additionalProperties: true },
);

export const ClusterSnapshot = Type.Object(
  { ...ClusterEnvelope, spec: Type.Optional(SnapshotSpec), status: Type.Optional(SnapshotStatus) },
  { additionalProperties: true },
);
export type ClusterSnapshot = Static<typeof ClusterSnapshot>;
