// The one interface the dispatcher fires nudges through (docs/decisions.md D9): `direct` does the
// git and forge work itself, `renovate` creates a nudge PipelineRun in build-service's shape. The
// dispatch reconciler gathers everything a nudge needs from its caches (the nudged Component, the
// Renovate settings in force, the fileMatch, the distribution repositories) so an executor reads
// nothing from the cluster's caches itself; it only performs the effect and classifies the result.
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { VerifiedBuild } from '../../domain/changegroup/verify-build.ts';
import type { DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import type { FireResult } from '../../domain/nudge/dispatch.ts';
import type { RenovateSettings, RenovateSettingProblem } from '../../domain/nudge/renovate-settings.ts';

export type { FireResult } from '../../domain/nudge/dispatch.ts';

/** One nudge: `build` of `nudging` updates the image references in `nudged`'s repository. */
export interface NudgeRequest {
  /**
   * dispatchKey(build, target): stable across attempts, restarts and replicas. An executor makes
   * every effect idempotent by it: a fire whose result was lost in a crash comes again with the
   * same key and must not open a second pull request or a second PipelineRun.
   */
  readonly key: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  readonly namespace: string;
  /** The D3-verified build: component, digest, pullSpec, imageUrl, pipelineRun, createdAt, nudgeFiles. */
  readonly build: VerifiedBuild;
  /** The build PipelineRun as cached (annotations: repo-at-sha link, build-nudge-files; uid for owners). */
  readonly buildRun: PipelineRun;
  /** The nudging Component (its `build-nudge-simple-branch` annotation). */
  readonly nudging: ClusterComponent;
  /** The nudged Component: repository URL, revision (the base branch), ConfigMap annotation. */
  readonly nudged: ClusterComponent;
  /** The Renovate settings in force for this target (per-component ConfigMap replaces namespace-wide). */
  readonly settings: RenovateSettings;
  /** What reading that ConfigMap found wrong; the reconciler has already reported each as an Event. */
  readonly settingProblems: readonly RenovateSettingProblem[];
  /** D6 fileMatch in force: ConfigMap, else the build's `build-nudge-files`, else the default. */
  readonly fileMatch: readonly string[];
  /** D6: other names the nudging component's image is released under (ReleasePlanAdmissions). */
  readonly distributionRepositories: readonly string[];
  /** `build-nudge-simple-branch: "true"` on the nudging Component. */
  readonly simpleBranch: boolean;
  /**
   * The held build-service or integration-service run this fire hands a target of back
   * (src/controllers/redispatch.ts): the `renovate` executor's run names it, as a copy did, so that
   * no ChangeGroup holds it again (a releasing one may still look active in a cache).
   */
  readonly redispatchedFrom?: string;
}

/**
 * One component of a validated batch (docs/decisions.md D10): the digest a passing Snapshot of the
 * gating group validated, already matched to the D3-verified push build that produced it.
 */
export interface BatchEntry {
  /** The Snapshot that validated this digest. */
  readonly snapshot: string;
  readonly build: VerifiedBuild;
  readonly buildRun: PipelineRun;
  readonly nudging: ClusterComponent;
  /** D6 fileMatch in force for this component: ConfigMap, else its build's `build-nudge-files`, else the default. */
  readonly fileMatch: readonly string[];
  /** D6: other names this component's image is released under. */
  readonly distributionRepositories: readonly string[];
  /** The digest nudger last nudged for (gatingGroup, component, target), if any: the PR's "old" column fallback. */
  readonly previousDigest?: string;
}

/**
 * A validated batch: every validated entry gated by `gatingGroup` that points at `nudged` and whose
 * digest changed since its last validated nudge, in ONE pull request with ONE commit (or one
 * Renovate PipelineRun with one config covering them all), on branch
 * validatedBranch(nudged, gatingGroup) (src/domain/nudge/validated-text.ts).
 */
export interface BatchNudgeRequest {
  /**
   * validatedBatchKey: derived from the group, the target and every (component, digest) of the
   * batch, so the same content always has the same key (a fire repeated after a crash finds its
   * effect) and other content another one (a newer pass is never mistaken for done).
   */
  readonly key: string;
  readonly attempt: number;
  readonly namespace: string;
  readonly gatingGroup: string;
  /** The nudged Component: repository URL, revision (the base branch), ConfigMap annotation. */
  readonly nudged: ClusterComponent;
  /** The Renovate settings in force for this target, read once for the batch. */
  readonly settings: RenovateSettings;
  readonly settingProblems: readonly RenovateSettingProblem[];
  /** Sorted by component name; at least one. */
  readonly entries: readonly BatchEntry[];
}

/** The state of a triggering pull request, as its forge reports it. */
export type TriggerState = 'open' | 'merged' | 'closed';

/**
 * One triggering pull request of a pre-merge nudge (docs/decisions.md D11): a PR of a nudging
 * component whose source branch is the group's.
 */
export interface PreMergeTrigger {
  /** The nudging component. */
  readonly component: string;
  /** The PR's web page, its number and state (the forge's word, read just before the fire). */
  readonly url: string;
  readonly number: number;
  readonly state: TriggerState;
  /** The PR's repository (Pipelines-as-Code's `repo-url`): the nudged one's in a monorepo. */
  readonly repoUrl: string;
  /**
   * The PR's head as its newest pull-request build built it: in a monorepo, the synthetic commit
   * copies the files the nudged component's `pathChanged()` selects from it (D11).
   */
  readonly head?: { readonly branch?: string; readonly sha?: string };
  /**
   * What the nudge PR pins for it: the pull-request build's digest while the PR is open, its push
   * build's once merged and built. Absent when closed unmerged: its references go back to the
   * base's values.
   */
  readonly image?: {
    readonly event: 'pull-request' | 'push';
    readonly build: VerifiedBuild;
    readonly buildRun: PipelineRun;
    readonly nudging: ClusterComponent;
    readonly fileMatch: readonly string[];
    readonly distributionRepositories: readonly string[];
  };
}

/**
 * A pre-merge nudge (docs/decisions.md D11): the nudge PR of one PR group into one target, on branch
 * preMergeBranch(group, nudged) (src/domain/nudge/pre-merge-text.ts), rebuilt from the base with
 * every open or merged trigger's digest, as a draft until every trigger is merged and built.
 */
export interface PreMergeNudgeRequest {
  /** Derived from the content (group, target, each trigger's state and digest, draft, close). */
  readonly key: string;
  readonly attempt: number;
  readonly namespace: string;
  /** The PR group: the triggering PRs' source branch up to its first `@`. */
  readonly group: string;
  readonly nudged: ClusterComponent;
  readonly settings: RenovateSettings;
  readonly settingProblems: readonly RenovateSettingProblem[];
  /** Sorted by component, then number; at least one. */
  readonly triggers: readonly PreMergeTrigger[];
  /** A draft while a trigger is open, or merged without its push build yet. */
  readonly draft: boolean;
  /** Every trigger closed unmerged: the nudge PR is closed with this comment instead. */
  readonly close?: { readonly comment: string };
}

/** A report an executor wants told to the user (an Event on the nudging Component), never a secret. */
export interface ExecutorNotice {
  readonly type: 'Normal' | 'Warning';
  /** CamelCase Event reason, e.g. `NudgeBranchEditedByHuman`, `NudgeSettingUnsupported`. */
  readonly reason: string;
  readonly message: string;
  /**
   * A fact that stays true from nudge to nudge (a setting the forge cannot honour): told once per
   * fact, as the dispatcher tells an ignored ConfigMap value, not once per nudge.
   */
  readonly once?: boolean;
}

export interface FireOutcome {
  readonly result: FireResult;
  /** Told after the result is recorded; lost, never repeated, if the manager dies first. */
  readonly notices?: readonly ExecutorNotice[];
}

export interface NudgeExecutor {
  readonly kind: DispatchExecutor;
  /**
   * Performs the nudge. Resolves with a classified failure rather than rejecting for anything the
   * forge, git or the API server can cause; rejects only on a programming error. Messages are
   * already free of secrets.
   */
  fire(request: NudgeRequest, signal?: AbortSignal): Promise<FireOutcome>;
  /** The same for a validated batch: one pull request, one commit, one build of the target. */
  fireBatch(request: BatchNudgeRequest, signal?: AbortSignal): Promise<FireOutcome>;
  /**
   * A pre-merge nudge: one draft PR per (PR group, target), updated in place, closed when no
   * trigger is left. Only executors that make the PR themselves can (the `direct` one).
   */
  firePreMerge?(request: PreMergeNudgeRequest, signal?: AbortSignal): Promise<FireOutcome>;
}

/** The executors a manager runs, by name; the namespace's NudgeConfig annotation picks one. */
export type NudgeExecutors = Readonly<Partial<Record<DispatchExecutor, NudgeExecutor>>>;
