// Validated batches for the `direct` executor's tests (docs/decisions.md D10, N28): three
// components of component group `operators` (operand-a, -b, -c, images `quay.io/acme/<name>`)
// pinned by the nudged repository `bundle`. operand-a is also released as
// `registry.redhat.io/acme/operand-a`; operand-c's own fileMatch selects only `config/*.env`, so its
// reference in the CSV stays as it is, and operand-a's reference in that env file does too.
import type { BatchEntry, BatchNudgeRequest } from '../../src/controllers/dispatch/executor.ts';
import { DEFAULT_NUDGE_FILES, splitFileMatch } from '../../src/domain/digest-rewrite/index.ts';
import type { RenovateSettings } from '../../src/domain/nudge/renovate-settings.ts';
import { validatedBatchKey } from '../../src/domain/nudge/validated-text.ts';
import { NS, NUDGED, OLD_DIGEST, SOURCE_SHA, buildRunOf, digestOf, nudgedTarget } from './dispatch-direct-fixture.ts';

export const GROUP = 'operators';
export const VALIDATED_BRANCH = `konflux/component-updates/${NUDGED}-validated-${GROUP}`;
export const TITLE = 'Update validated images of operators';
export const imageOf = (component: string): string => `quay.io/acme/${component}`;
export const linkOf = (component: string): string => `https://github.com/acme/${component}?rev=${SOURCE_SHA}`;
export const DISTRIBUTED_A = 'registry.redhat.io/acme/operand-a';
export const ENV_FILE_MATCH = ['config/.*\\.env'];

export const BATCH_FILES: Readonly<Record<string, string>> = {
  'manifests/csv.yaml': [
    'spec:',
    `  a: ${imageOf('operand-a')}@${OLD_DIGEST}`,
    `  aRelated: ${DISTRIBUTED_A}:v1@${OLD_DIGEST}`,
    `  b: ${imageOf('operand-b')}@${OLD_DIGEST}`,
    `  c: ${imageOf('operand-c')}@${OLD_DIGEST}`,
    `  tagOnly: ${imageOf('operand-b')}:v1`,
    '',
  ].join('\n'),
  Dockerfile: `FROM ${imageOf('operand-a')}@${OLD_DIGEST}\n`,
  'config/params.env': `C_IMAGE=${imageOf('operand-c')}@${OLD_DIGEST}\nA_IMAGE=${imageOf('operand-a')}@${OLD_DIGEST}\n`,
  'README.md': 'bundle\n',
};

/** One validated component: the digest is one hex character repeated. */
export interface Validated {
  readonly component: string;
  readonly digest: string;
  readonly snapshot: string;
  readonly createdAt: string;
  readonly previousDigest?: string;
}

export const pipelineRunOf = (v: Pick<Validated, 'component' | 'digest'>): string =>
  `${v.component}-on-push-${v.digest}`;

function entryOf(v: Validated): BatchEntry {
  const digest = digestOf(v.digest);
  const pipelineRun = pipelineRunOf(v);
  return {
    snapshot: v.snapshot,
    build: {
      component: v.component,
      digest,
      pullSpec: `${imageOf(v.component)}@${digest}`,
      imageUrl: `${imageOf(v.component)}:on-push-${v.digest}`,
      pipelineRun,
      createdAt: v.createdAt,
    },
    buildRun: buildRunOf(pipelineRun, v.createdAt, linkOf(v.component)),
    nudging: { metadata: { name: v.component, namespace: NS }, spec: { containerImage: imageOf(v.component) } },
    fileMatch: v.component === 'operand-c' ? ENV_FILE_MATCH : splitFileMatch(DEFAULT_NUDGE_FILES),
    distributionRepositories: v.component === 'operand-a' ? [DISTRIBUTED_A] : [],
    ...(v.previousDigest === undefined ? {} : { previousDigest: v.previousDigest }),
  };
}

export function batchRequest(
  repositoryUrl: string,
  validated: readonly Validated[],
  overrides: { settings?: Partial<RenovateSettings>; attempt?: number } = {},
): BatchNudgeRequest {
  const entries = validated.map(entryOf).sort((a, b) => a.build.component.localeCompare(b.build.component));
  return {
    key: validatedBatchKey(
      NS,
      GROUP,
      NUDGED,
      entries.map((entry) => ({ component: entry.build.component, digest: entry.build.digest })),
    ),
    attempt: overrides.attempt ?? 1,
    namespace: NS,
    gatingGroup: GROUP,
    ...nudgedTarget(repositoryUrl, overrides.settings),
    entries,
  };
}

/** The first pass of `operators`: all three components, validated by one Snapshot. */
export const PASS_1: readonly Validated[] = [
  { component: 'operand-a', digest: 'a', snapshot: 'operators-snap-1', createdAt: '2026-01-01T10:00:00Z' },
  { component: 'operand-b', digest: 'b', snapshot: 'operators-snap-1', createdAt: '2026-01-01T10:05:00Z' },
  { component: 'operand-c', digest: 'c', snapshot: 'operators-snap-1', createdAt: '2026-01-01T09:00:00Z' },
];

/** A later pass: only operand-a changed since its last validated nudge. */
export const PASS_2: readonly Validated[] = [
  {
    component: 'operand-a',
    digest: 'd',
    snapshot: 'operators-snap-2',
    createdAt: '2026-01-02T08:00:00Z',
    previousDigest: digestOf('a'),
  },
];
