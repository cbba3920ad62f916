// The Korifi and kpack objects nudger reads from the cluster, decoded once where they enter (the
// informers of the korifi controller group, a live read, the sandbox's kpack stand-in), each by a
// decoder built from its schema in src/schema/korifi.ts and src/schema/kpack.ts
// (docs/decisions.md N39). A decoder returns problems naming each field path and the rule it breaks,
// never its value; `decodeOrThrow` turns them into a KorifiDecodeError that also names the kind
// and the object, for live reads that cannot go on without the object. Pure: ajv and the schemas.
import {
  BUILD_WORKLOAD_KIND,
  BuildWorkload,
  CF_APP_KIND,
  CF_BUILD_KIND,
  CF_PACKAGE_KIND,
  CF_PROCESS_KIND,
  CFApp,
  CFBuild,
  CFPackage,
  CFProcess,
} from '../../schema/korifi.ts';
import {
  KPACK_BUILD_KIND,
  KPACK_BUILDER_KIND,
  KPACK_CLUSTER_BUILDER_KIND,
  KPACK_IMAGE_KIND,
  KpackBuild,
  KpackBuilder,
  KpackClusterBuilder,
  KpackImage,
} from '../../schema/kpack.ts';
import { formatObjectKey } from '../object-key.ts';
import { isRecord } from '../records.ts';
import { objectDecoder, type DecodeProblem, type Decoder } from '../schema-validation.ts';

export const decodeBuildWorkload: Decoder<BuildWorkload> = objectDecoder(BuildWorkload);
export const decodeCFApp: Decoder<CFApp> = objectDecoder(CFApp);
export const decodeCFBuild: Decoder<CFBuild> = objectDecoder(CFBuild);
export const decodeCFPackage: Decoder<CFPackage> = objectDecoder(CFPackage);
export const decodeCFProcess: Decoder<CFProcess> = objectDecoder(CFProcess);
export const decodeKpackImage: Decoder<KpackImage> = objectDecoder(KpackImage);
export const decodeKpackBuild: Decoder<KpackBuild> = objectDecoder(KpackBuild);
export const decodeKpackBuilder: Decoder<KpackBuilder> = objectDecoder(KpackBuilder);
export const decodeKpackClusterBuilder: Decoder<KpackClusterBuilder> = objectDecoder(KpackClusterBuilder);

/** Each decoder by the kind it decodes (every kind here has a distinct name). */
export const KORIFI_DECODERS = {
  [BUILD_WORKLOAD_KIND]: decodeBuildWorkload,
  [CF_APP_KIND]: decodeCFApp,
  [CF_BUILD_KIND]: decodeCFBuild,
  [CF_PACKAGE_KIND]: decodeCFPackage,
  [CF_PROCESS_KIND]: decodeCFProcess,
  [KPACK_IMAGE_KIND]: decodeKpackImage,
  [KPACK_BUILD_KIND]: decodeKpackBuild,
  [KPACK_BUILDER_KIND]: decodeKpackBuilder,
  [KPACK_CLUSTER_BUILDER_KIND]: decodeKpackClusterBuilder,
} as const;
export type KorifiKind = keyof typeof KORIFI_DECODERS;

/**
 * An object of a Korifi or kpack kind that does not decode. The message names the kind, the
 * object (`namespace/name`, or `(unnamed)`) and every field with the rule it breaks; never a value.
 */
export class KorifiDecodeError extends Error {
  override readonly name = 'KorifiDecodeError';
  readonly kind: string;
  readonly object: string;
  readonly problems: readonly DecodeProblem[];

  constructor(kind: string, object: string, problems: readonly DecodeProblem[]) {
    super(
      `${kind} ${object} does not decode: ${problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}`,
    );
    this.kind = kind;
    this.object = object;
    this.problems = problems;
  }
}

/** `namespace/name` of a raw object as far as its metadata says, for messages only. */
export function describeRawObject(value: unknown): string {
  const metadata = isRecord(value) && isRecord(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '(unnamed)';
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
  return formatObjectKey({ namespace, name });
}

/** The decoded object, or a KorifiDecodeError naming the kind, the object and each bad field. */
export function decodeOrThrow<K extends KorifiKind>(
  kind: K,
  value: unknown,
): (typeof KORIFI_DECODERS)[K] extends Decoder<infer T> ? T : never {
  const decode = KORIFI_DECODERS[kind] as Decoder<unknown>;
  const result = decode(value);
  if (!result.ok) throw new KorifiDecodeError(kind, describeRawObject(value), result.problems);
  return result.object as (typeof KORIFI_DECODERS)[K] extends Decoder<infer T> ? T : never;
}
