// Nudge requests for the `direct` executor's tests: a nudging component `operand` whose image
// `quay.io/acme/operand` (released as `registry.redhat.io/acme/operand`) is pinned by the nudged
// repository `bundle`, built several times over. The files give the executor something to rewrite
// (a CSV and a Dockerfile), something the fileMatch leaves alone (a Markdown note) and a tag-only
// reference it must never touch.
import type { NudgeRequest } from '../../src/controllers/dispatch/executor.ts';
import type { ClusterComponent } from '../../src/schema/component.ts';
import type { PipelineRun } from '../../src/schema/pipelinerun.ts';
import { DEFAULT_NUDGE_FILES, splitFileMatch } from '../../src/domain/digest-rewrite/index.ts';
import { NO_RENOVATE_SETTINGS, type RenovateSettings } from '../../src/domain/nudge/renovate-settings.ts';

export const NS = 'tenant';
export const NUDGED = 'bundle';
export const NUDGING = 'operand';
export const BRANCH = `konflux/component-updates/${NUDGED}-component-update-${NUDGING}`;
export const IMAGE = 'quay.io/acme/operand';
export const DISTRIBUTED = 'registry.redhat.io/acme/operand';
export const OLD_DIGEST = `sha256:${'0'.repeat(64)}`;
export const digestOf = (c: string): string => `sha256:${c.repeat(64)}`;
export const SOURCE_SHA = 'f'.repeat(40);
export const LINK = `https://github.com/acme/operand?rev=${SOURCE_SHA}`;

export const BUNDLE_FILES: Readonly<Record<string, string>> = {
  'manifests/csv.yaml': [
    'spec:',
    `  image: ${IMAGE}@${OLD_DIGEST}`,
    `  related: ${DISTRIBUTED}:v1@${OLD_DIGEST}`,
    `  lookalike: quay.io/acme/operand-extra@${OLD_DIGEST}`,
    `  tagOnly: ${IMAGE}:v1`,
    '',
  ].join('\n'),
  Dockerfile: `FROM ${IMAGE}@${OLD_DIGEST}\n`,
  'docs/notes.md': `pinned: ${IMAGE}@${OLD_DIGEST}\n`,
  'README.md': 'bundle\n',
};

export interface BuildInput {
  /** One hex character repeated: the digest. */
  readonly digest: string;
  readonly pipelineRun: string;
  readonly createdAt: string;
}

export function nudgeRequest(
  repositoryUrl: string,
  build: BuildInput,
  overrides: { settings?: Partial<RenovateSettings>; simpleBranch?: boolean; key?: string } = {},
): NudgeRequest {
  const digest = digestOf(build.digest);
  return {
    key: overrides.key ?? `${build.pipelineRun}/${NUDGED}`,
    attempt: 1,
    namespace: NS,
    build: {
      component: NUDGING,
      digest,
      pullSpec: `${IMAGE}@${digest}`,
      imageUrl: `${IMAGE}:on-push-${build.digest}`,
      pipelineRun: build.pipelineRun,
      createdAt: build.createdAt,
    },
    buildRun: {
      apiVersion: 'tekton.dev/v1',
      kind: 'PipelineRun',
      metadata: {
        name: build.pipelineRun,
        namespace: NS,
        uid: `uid-${build.pipelineRun}`,
        creationTimestamp: build.createdAt,
        annotations: { 'build.appstudio.openshift.io/repo': LINK },
      },
    },
    nudging: { metadata: { name: NUDGING, namespace: NS }, spec: { containerImage: IMAGE } },
    nudged: {
      metadata: { name: NUDGED, namespace: NS },
      spec: { source: { git: { url: repositoryUrl, revision: 'main' } } },
    },
    settings: { ...NO_RENOVATE_SETTINGS, ...overrides.settings },
    settingProblems: [],
    fileMatch: splitFileMatch(DEFAULT_NUDGE_FILES),
    distributionRepositories: [DISTRIBUTED],
    simpleBranch: overrides.simpleBranch ?? false,
  };
}

export const BUILD_1: BuildInput = { digest: 'a', pipelineRun: 'operand-on-push-1', createdAt: '2026-01-01T10:00:00Z' };
export const BUILD_2: BuildInput = { digest: 'b', pipelineRun: 'operand-on-push-2', createdAt: '2026-01-01T11:00:00Z' };
export const BUILD_3: BuildInput = { digest: 'c', pipelineRun: 'operand-on-push-3', createdAt: '2026-01-01T12:00:00Z' };

/** The rebase box of a Renovate body, ticked. */
export function tickRebase(body: string): string {
  return body.replace('- [ ] <!-- rebase-check -->', '- [x] <!-- rebase-check -->');
}

/** A build PipelineRun as the dispatcher caches it, with its repo-at-sha link (batch and pre-merge fixtures). */
export function buildRunOf(name: string, createdAt: string, link: string): PipelineRun {
  return {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      creationTimestamp: createdAt,
      annotations: { 'build.appstudio.openshift.io/repo': link },
    },
  };
}

/** The nudged Component `bundle` on `main` of `repositoryUrl`, and the settings in force. */
export function nudgedTarget(
  repositoryUrl: string,
  settings: Partial<RenovateSettings> | undefined,
): { nudged: ClusterComponent; settings: RenovateSettings; settingProblems: [] } {
  return {
    nudged: {
      metadata: { name: NUDGED, namespace: NS },
      spec: { source: { git: { url: repositoryUrl, revision: 'main' } } },
    },
    settings: { ...NO_RENOVATE_SETTINGS, ...settings },
    settingProblems: [],
  };
}
