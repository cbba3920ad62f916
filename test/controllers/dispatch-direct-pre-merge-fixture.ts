// Pre-merge nudges for the `direct` executor's tests (docs/decisions.md D11, N34): PR group
// `feature-1234` of operand-a and operand-b (the validated batch fixture's repository: operand-a is
// also released as `registry.redhat.io/acme/operand-a`, operand-c's fileMatch selects only
// `config/*.env`) into the nudged repository `bundle`. Each request is what the controller sends:
// the key derived from the content, a draft while a trigger is open or merged without its push
// build, `close` once every trigger is closed.
import type { PreMergeNudgeRequest, PreMergeTrigger } from '../../src/controllers/dispatch/executor.ts';
import { DEFAULT_NUDGE_FILES, splitFileMatch } from '../../src/domain/digest-rewrite/index.ts';
import { preMergeKey } from '../../src/domain/nudge/pre-merge-text.ts';
import type { RenovateSettings } from '../../src/domain/nudge/renovate-settings.ts';
import { DISTRIBUTED_A, ENV_FILE_MATCH, imageOf, linkOf } from './dispatch-direct-batch-fixture.ts';
import { NS, NUDGED, buildRunOf, digestOf, nudgedTarget } from './dispatch-direct-fixture.ts';

export const GROUP = 'feature-1234';
export const PRE_MERGE_BRANCH = `${GROUP}@${NUDGED}`;
export const TITLE = 'Update bundle with pre-merge images of feature-1234';
export const CLOSE_COMMENT = 'Every pull request of PR group feature-1234 was closed without merging.';

/** One triggering PR: the digest is one hex character repeated; no digest, nothing pinned. */
export interface Trigger {
  readonly component: string;
  readonly number: number;
  readonly state: 'open' | 'merged' | 'closed';
  readonly digest?: string;
  readonly event?: 'pull-request' | 'push';
  readonly createdAt?: string;
}

export const pullRequestUrl = (t: Pick<Trigger, 'component' | 'number'>): string =>
  `https://github.com/acme/${t.component}/pull/${String(t.number)}`;
export const pipelineRunOf = (t: Trigger): string =>
  `${t.component}-on-${t.event === 'push' ? 'push' : 'pull-request'}-${t.digest ?? 'x'}`;

function triggerOf(t: Trigger): PreMergeTrigger {
  const base = {
    component: t.component,
    url: pullRequestUrl(t),
    number: t.number,
    state: t.state,
    repoUrl: `https://github.com/acme/${t.component}`,
  };
  if (t.digest === undefined) return base;
  const digest = digestOf(t.digest);
  const pipelineRun = pipelineRunOf(t);
  const createdAt = t.createdAt ?? '2026-01-01T10:00:00Z';
  return {
    ...base,
    image: {
      event: t.event ?? 'pull-request',
      build: {
        component: t.component,
        digest,
        pullSpec: `${imageOf(t.component)}@${digest}`,
        imageUrl: `${imageOf(t.component)}:on-pr-${t.digest}`,
        pipelineRun,
        createdAt,
      },
      buildRun: buildRunOf(pipelineRun, createdAt, linkOf(t.component)),
      nudging: { metadata: { name: t.component, namespace: NS }, spec: { containerImage: imageOf(t.component) } },
      fileMatch: t.component === 'operand-c' ? ENV_FILE_MATCH : splitFileMatch(DEFAULT_NUDGE_FILES),
      distributionRepositories: t.component === 'operand-a' ? [DISTRIBUTED_A] : [],
    },
  };
}

export function preMergeRequest(
  repositoryUrl: string,
  triggers: readonly Trigger[],
  overrides: { settings?: Partial<RenovateSettings>; attempt?: number } = {},
): PreMergeNudgeRequest {
  const sorted = [...triggers].sort((a, b) =>
    a.component === b.component ? a.number - b.number : a.component.localeCompare(b.component),
  );
  const draft = sorted.some((t) => t.state === 'open' || (t.state === 'merged' && t.event !== 'push'));
  const closing = sorted.every((t) => t.state === 'closed');
  const parts = sorted.map((t) => ({
    component: t.component,
    number: t.number,
    state: t.state,
    ...(t.digest === undefined ? {} : { digest: digestOf(t.digest) }),
  }));
  return {
    key: preMergeKey(NS, GROUP, NUDGED, parts, draft, closing),
    attempt: overrides.attempt ?? 1,
    namespace: NS,
    group: GROUP,
    ...nudgedTarget(repositoryUrl, overrides.settings),
    triggers: sorted.map(triggerOf),
    draft,
    ...(closing ? { close: { comment: CLOSE_COMMENT } } : {}),
  };
}

/** operand-a's PR #12, built once. */
export const A_OPEN: Trigger = { component: 'operand-a', number: 12, state: 'open', digest: 'a' };
/** A newer push to it, built again. */
export const A_PUSHED: Trigger = { ...A_OPEN, digest: 'd', createdAt: '2026-01-01T11:00:00Z' };
/** operand-b's PR #7 in the same group. */
export const B_OPEN: Trigger = { component: 'operand-b', number: 7, state: 'open', digest: 'b' };
/** operand-a's PR merged, before and after its push build. */
export const A_MERGED: Trigger = { ...A_PUSHED, state: 'merged' };
export const A_MERGED_BUILT: Trigger = {
  ...A_OPEN,
  state: 'merged',
  digest: 'e',
  event: 'push',
  createdAt: '2026-01-01T12:00:00Z',
};
export const B_MERGED_BUILT: Trigger = {
  ...B_OPEN,
  state: 'merged',
  digest: 'f',
  event: 'push',
  createdAt: '2026-01-01T12:30:00Z',
};
/** operand-b's PR closed unmerged: nothing pinned. */
export const B_CLOSED: Trigger = { component: 'operand-b', number: 7, state: 'closed' };
export const A_CLOSED: Trigger = { component: 'operand-a', number: 12, state: 'closed' };
