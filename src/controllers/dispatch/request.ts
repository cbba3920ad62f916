// One fire intent made into what its executor needs (src/controllers/dispatch/executor.ts): both
// Components from the cache, the Renovate settings in force (the ConfigMap read by name, once per
// fire, or from the cache of namespace-wide ones: N49), the fileMatch (docs/decisions.md D6), the
// distribution repositories and the simple-branch switch. What cannot be gathered is said as the
// marker state the fire settles to instead, never thrown, so a fire always ends recorded.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { describeTarget, KubeApiError } from '../../adapters/kubernetes/errors.ts';
import { renovateConfigMapSources, type NamespaceWideConfigMaps } from '../../cluster/nudged-repository.ts';
import { distributionRepositories } from '../../domain/digest-rewrite/index.ts';
import type { FireIntent } from '../../domain/nudge/dispatch-intents.ts';
import type { TargetState } from '../../domain/nudge/dispatch-marker.ts';
import { SKIP_REASONS } from '../../domain/nudge/dispatch-messages.ts';
import type { FireResult } from '../../domain/nudge/dispatch.ts';
import { isSimpleBranch } from '../../domain/nudge/pull-request-text.ts';
import { configMapInForce, fileMatchInForce, readRenovateSettings } from '../../domain/nudge/renovate-settings.ts';
import type { Store } from '../../runtime/store.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ReleasePlanAdmission } from '../../schema/release-plan-admission.ts';
import type { NudgeRequest } from './executor.ts';

export interface RequestSources {
  readonly client: ObjectClient;
  readonly components: Store<ClusterComponent>;
  /** Absent or empty when release-service is not installed: build repositories only (D6). */
  readonly releasePlanAdmissions?: Store<ReleasePlanAdmission>;
  /**
   * The namespace-wide Renovate ConfigMaps, cached (NAMESPACE_WIDE_RENOVATE_CONFIG_SELECTOR, N49);
   * absent: read by name on each fire.
   */
  readonly renovateConfigs?: NamespaceWideConfigMaps;
}

export type PreparedFire =
  | { readonly kind: 'request'; readonly request: NudgeRequest }
  /** Settled without calling the executor: the entry this fire ends in. */
  | { readonly kind: 'skip'; readonly state: Extract<TargetState, { kind: 'skipped' }> }
  | { readonly kind: 'fail'; readonly result: Extract<FireResult, { ok: false }> };

/** The nudged Component vanished from the cache since the decision: skipped, as decideDispatch skips it. */
const TARGET_GONE = { kind: 'skip', state: { kind: 'skipped', reason: SKIP_REASONS.targetNotFound } } as const;
/** The nudging Component vanished: the build would now fail D3 (component-not-found). */
const NUDGING_GONE = { kind: 'skip', state: { kind: 'skipped', reason: 'component-not-found' } } as const;

export async function prepareFire(
  sources: RequestSources,
  intent: FireIntent,
  buildRun: PipelineRun,
  signal: AbortSignal,
): Promise<PreparedFire> {
  const namespace = buildRun.metadata?.namespace ?? '';
  const nudged = sources.components.get(namespace, intent.target);
  if (nudged === undefined) return TARGET_GONE;
  const nudging = sources.components.get(namespace, intent.build.component);
  if (nudging === undefined) return NUDGING_GONE;
  const settings = await settingsInForce(sources, namespace, nudged, signal);
  if (settings.kind === 'fail') return settings;
  const reading = settings.reading;
  const repositories = distributionRepositoriesOf(sources, namespace, intent.build.component);
  return {
    kind: 'request',
    request: {
      key: intent.key,
      attempt: intent.attempt,
      namespace,
      build: intent.build,
      buildRun,
      nudging,
      nudged,
      settings: reading.settings,
      settingProblems: reading.problems,
      fileMatch: fileMatchInForce(reading.settings, intent.build.nudgeFiles),
      distributionRepositories: repositories,
      simpleBranch: isSimpleBranch(nudging.metadata?.annotations),
    },
  };
}

/**
 * The Renovate settings in force for `nudged` (per-component ConfigMap replaces namespace-wide),
 * read by name once per fire; an API failure is a failed fire naming the ConfigMap, never its data.
 */
export async function settingsInForce(
  sources: RequestSources,
  namespace: string,
  nudged: ClusterComponent,
  signal: AbortSignal,
): Promise<
  | { readonly kind: 'settings'; readonly reading: ReturnType<typeof readRenovateSettings> }
  | Extract<PreparedFire, { kind: 'fail' }>
> {
  try {
    const configMaps = await renovateConfigMapSources(
      sources.client,
      namespace,
      nudged,
      signal,
      sources.renovateConfigs,
    );
    return {
      kind: 'settings',
      reading: readRenovateSettings(configMapInForce(configMaps, nudged.metadata?.annotations)),
    };
  } catch (error) {
    if (!(error instanceof KubeApiError)) throw error;
    // The API server's answer names the verb and the ConfigMap, never its data.
    return {
      kind: 'fail',
      result: {
        ok: false,
        reason: 'configmap-unreadable',
        message: `${describeTarget(error.target)}: ${error.reason}`,
      },
    };
  }
}

/** D6: the other names `component`'s image is released under (empty without release-service). */
export function distributionRepositoriesOf(sources: RequestSources, namespace: string, component: string): string[] {
  return [...distributionRepositories(sources.releasePlanAdmissions?.list() ?? [], namespace, component).repositories];
}
