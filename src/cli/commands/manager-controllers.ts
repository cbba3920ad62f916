// `nudger manager --controllers` and the korifi group's flags (docs/decisions.md N39): parsed and
// checked before the manager listens or connects, each mistake one UsageError naming the flag and
// its value. Loaded by the CLI's argument parser, so it imports no controller.
import {
  ControllerGroupsError,
  DEFAULT_CONTROLLER_GROUPS,
  parseControllerGroups,
  type ControllerGroup,
} from '../../runtime/controller-groups.ts';
import { KORIFI_SETTING_DEFAULTS, type KorifiControllerSettings } from '../../controllers/korifi/settings.ts';
import { dns1123LabelProblem } from '../../schema/names.ts';
import { UsageError } from '../errors.ts';

/** The flags, as commander hands them over (absent in callers that predate them: the defaults). */
export interface ControllerFlags {
  /** `--controllers`, parsed by controllerGroupsFlag. */
  readonly controllers?: readonly ControllerGroup[];
  readonly korifiBuilderName?: string;
  readonly korifiClusterBuilder?: string;
  readonly korifiImageRepository?: string;
  /** `--builder-readiness-timeout`, in milliseconds. */
  readonly builderReadinessTimeout?: number;
}

/** commander's parser of `--controllers`: `konflux`, `korifi`, `all`, or a comma list. */
export function controllerGroupsFlag(value: string): readonly ControllerGroup[] {
  try {
    return parseControllerGroups(value);
  } catch (error) {
    if (error instanceof ControllerGroupsError) throw new UsageError(`--controllers "${value}": ${error.message}`);
    throw error;
  }
}

/** The groups to run: the flag's, or the default (konflux only). */
export function controllerGroupsOf(flags: ControllerFlags): readonly ControllerGroup[] {
  return flags.controllers ?? DEFAULT_CONTROLLER_GROUPS;
}

/**
 * The korifi group's settings when it runs, checked; undefined when it does not (its flags are
 * then ignored, so a Konflux deployment need not set any).
 */
export function korifiSettingsOf(flags: ControllerFlags): KorifiControllerSettings | undefined {
  if (!controllerGroupsOf(flags).includes('korifi')) return undefined;
  const builderName = flags.korifiBuilderName ?? KORIFI_SETTING_DEFAULTS.builderName;
  if (builderName.trim() === '' || /\s/.test(builderName)) {
    throw new UsageError(`--korifi-builder-name "${builderName}": must be a non-empty name without spaces`);
  }
  const clusterBuilderName = flags.korifiClusterBuilder ?? KORIFI_SETTING_DEFAULTS.clusterBuilderName;
  if (subdomainProblem(clusterBuilderName)) {
    throw new UsageError(
      `--korifi-cluster-builder "${clusterBuilderName}": not a valid ClusterBuilder name (a DNS-1123 subdomain: lower case alphanumerics, '-' and '.', at most 253 characters)`,
    );
  }
  const repositoryPrefix = flags.korifiImageRepository;
  if (repositoryPrefix === undefined || repositoryPrefix === '') {
    throw new UsageError(
      '--korifi-image-repository: required when --controllers runs korifi (the registry prefix of the kpack Images nudger creates, e.g. registry.example.com/cf/)',
    );
  }
  if (/[\s@]/.test(repositoryPrefix) || !/^[a-z0-9]/i.test(repositoryPrefix)) {
    throw new UsageError(
      `--korifi-image-repository "${repositoryPrefix}": not an image repository prefix (a registry host and path, e.g. registry.example.com/cf/, no spaces or digest)`,
    );
  }
  const readinessTimeoutMs = flags.builderReadinessTimeout ?? KORIFI_SETTING_DEFAULTS.readinessTimeoutMs;
  if (!(readinessTimeoutMs > 0)) {
    throw new UsageError(`--builder-readiness-timeout ${String(readinessTimeoutMs)}ms: must be greater than 0`);
  }
  return { builderName, clusterBuilderName, repositoryPrefix, readinessTimeoutMs };
}

function subdomainProblem(name: string): boolean {
  return name.length > 253 || name.split('.').some((label) => dns1123LabelProblem(label) !== undefined);
}
