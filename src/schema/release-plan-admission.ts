// The part of release-service's ReleasePlanAdmission (`appstudio.redhat.com/v1alpha1`) that nudger
// reads for docs/decisions.md D6 distribution repositories. Upstream owns the full schema (vendored
// as sandbox/crds/appstudio.redhat.com_releaseplanadmissions.yaml): `spec.origin` is a string and
// `spec.data` an object of any content, which src/domain/digest-rewrite/distribution-repositories.ts
// reads the way build-service's Go does (keys matched case-insensitively, odd entries skipped).
import Type, { type Static } from 'typebox';
import { ClusterEnvelope } from './common.ts';

export const ReleasePlanAdmissionSpec = Type.Object(
  {
    origin: Type.Optional(Type.String()),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true },
);

export const ReleasePlanAdmission = Type.Object(
  { ...ClusterEnvelope, spec: Type.Optional(ReleasePlanAdmissionSpec) },
  { additionalProperties: true },
);
export type ReleasePlanAdmission = Static<typeof ReleasePlanAdmission>;
