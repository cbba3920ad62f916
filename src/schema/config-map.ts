// A ConfigMap as nudger caches it: only its own records (label-selected; docs/decisions.md N27), so
// `data` is read as strings and nothing else is looked at.
import Type, { type Static } from 'typebox';
import { ClusterEnvelope } from './common.ts';

export const ClusterConfigMap = Type.Object(
  { ...ClusterEnvelope, data: Type.Optional(Type.Record(Type.String(), Type.String())) },
  { additionalProperties: true },
);
export type ClusterConfigMap = Static<typeof ClusterConfigMap>;
