// The korifi controller group's settings (docs/decisions.md D13, N39), from `nudger manager`'s
// `--korifi-*` flags and `--builder-readiness-timeout`.
import { DEFAULT_CLUSTER_BUILDER, DEFAULT_NUDGER_BUILDER_NAME } from '../../domain/korifi/labels.ts';

/**
 * The korifi group's part of the manager's settings. The CLI sets every field; an absent one (a
 * test, the sandbox) takes KORIFI_SETTING_DEFAULTS, the repository prefix `''`.
 */
export interface KorifiControllerSettings {
  /** The `BuildWorkload.spec.builderName` nudger's build reconciler takes (`--korifi-builder-name`). */
  readonly builderName?: string;
  /** The default ClusterBuilder, read and never created (`--korifi-cluster-builder`). */
  readonly clusterBuilderName?: string;
  /**
   * The prefix of every kpack Image's `spec.tag` and Builder's `spec.tag`, used as written, as
   * Korifi's `containerRepositoryPrefix` is: e.g. `registry.example.com/cf/` gives
   * `registry.example.com/cf/<app GUID>-droplets` (`--korifi-image-repository`).
   */
  readonly repositoryPrefix?: string;
  /**
   * How long a build waits for its Builder to be ready before `BuilderNotReady`
   * (`--builder-readiness-timeout`; Korifi's own default is 30 s, nudger waits longer).
   */
  readonly readinessTimeoutMs?: number;
  /** Reconciles at once, per controller; each controller has its own default. */
  readonly workers?: number;
}

export const DEFAULT_BUILDER_READINESS_TIMEOUT_MS = 5 * 60_000;

/** The defaults of every setting but the repository, which has none (it is the cluster's registry). */
export const KORIFI_SETTING_DEFAULTS = {
  builderName: DEFAULT_NUDGER_BUILDER_NAME,
  clusterBuilderName: DEFAULT_CLUSTER_BUILDER,
  readinessTimeoutMs: DEFAULT_BUILDER_READINESS_TIMEOUT_MS,
} as const satisfies Required<Omit<KorifiControllerSettings, 'repositoryPrefix' | 'workers'>>;
