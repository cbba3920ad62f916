// `nudger sandbox` end to end: one environment, one scenario (or the default one played three
// times: nudged by the build-service stand-in with and without ChangeGroups, and with ChangeGroups
// and nudger's dispatcher firing through the direct executor), one result.
import type { Logger } from '../runtime/logger.ts';
import { withDashboard, type SandboxDashboardRun } from './dashboard.ts';
import { startSandboxEnvironment, type SandboxEnvironment } from './environment.ts';
import { runKorifiSandbox } from './korifi/play.ts';
import { ScenarioPlayer, type PlayOptions } from './play.ts';
import { withoutChangeGroups } from './scenario/objects.ts';
import type { SandboxResult } from './scenario/result.ts';
import type { Scenario } from './scenario/schema.ts';

export interface SandboxRunOptions {
  readonly scenario: Scenario;
  /** Play without ChangeGroups (ADR 29 nudging only). */
  readonly changeGroups: boolean;
  /**
   * Play the scenario as build-service nudges, with and without ChangeGroups, and with nudger
   * dispatching directly, and report the nudged component's builds (and pull requests) side by side.
   */
  readonly compare: boolean;
  readonly logger: Logger;
  readonly binDirectory?: string;
  readonly play?: PlayOptions;
  /** `nudger sandbox --dashboard` (D14): the manager serves the dashboard, open until whileOpen resolves. */
  readonly dashboard?: SandboxDashboardRun;
}

/** The scenario without ChangeGroups, in a namespace of its own so both runs share one cluster. */
function comparisonScenario(scenario: Scenario): Scenario {
  return { ...withoutChangeGroups(scenario), namespace: `${scenario.namespace.slice(0, 56)}-no-cg` };
}

/** Nudged by the build-service stand-in, as before nudger dispatched (the first two figures). */
function buildServiceScenario(scenario: Scenario): Scenario {
  const { executor: _executor, ...rest } = scenario;
  return { ...rest, nudgedBy: 'build-service' };
}

/** nudger's dispatcher with the direct executor, in a namespace of its own (the third figure). */
function nudgerDirectScenario(scenario: Scenario): Scenario {
  return {
    ...scenario,
    nudgedBy: 'nudger',
    executor: 'direct',
    namespace: `${scenario.namespace.slice(0, 55)}-direct`,
  };
}

export async function playInEnvironment(
  env: SandboxEnvironment,
  scenario: Scenario,
  play?: PlayOptions,
): Promise<SandboxResult> {
  const player = new ScenarioPlayer(env, scenario, play);
  await player.setUp();
  await player.play();
  return player.result();
}

/**
 * The default run's three plays in one environment: as build-service nudges, with and without
 * ChangeGroups, then with ChangeGroups and nudger dispatching directly. The result describes the
 * first, plus the comparison (absent when the scenario has no ChangeGroup to compare on).
 */
export async function compareInEnvironment(
  env: SandboxEnvironment,
  scenario: Scenario,
  play?: PlayOptions,
): Promise<SandboxResult> {
  const asBuildService = buildServiceScenario(scenario);
  const result = await playInEnvironment(env, asBuildService, play);
  const nudged = scenario.changeGroups[0]?.nudgedComponent;
  if (nudged === undefined) return result;
  const without = await playInEnvironment(env, comparisonScenario(asBuildService), play);
  const direct = await playInEnvironment(env, nudgerDirectScenario(scenario), play);
  return {
    ...result,
    comparison: {
      nudgedComponent: nudged,
      withChangeGroups: { builds: result.builds[nudged] ?? 0 },
      withoutChangeGroups: { builds: without.builds[nudged] ?? 0 },
      nudgerDirect: {
        builds: direct.builds[nudged] ?? 0,
        pullRequests: direct.pullRequests.filter((pr) => pr.repository === nudged).length,
      },
    },
  };
}

export async function runSandbox(options: SandboxRunOptions): Promise<SandboxResult> {
  // CF apps on Korifi: an environment of their own (korifi/environment.ts, N44).
  if (options.scenario.korifi !== undefined) return runKorifiSandbox(options);
  const env = await startSandboxEnvironment({
    logger: options.logger,
    forge: options.scenario.forge,
    ...(options.binDirectory === undefined ? {} : { binDirectory: options.binDirectory }),
    ...(options.dashboard === undefined ? {} : { dashboard: options.dashboard }),
  });
  try {
    return await withDashboard(options.dashboard, env, async () => {
      if (options.compare && options.changeGroups) return compareInEnvironment(env, options.scenario, options.play);
      const scenario = options.changeGroups ? options.scenario : comparisonScenario(options.scenario);
      return playInEnvironment(env, scenario, options.play);
    });
  } finally {
    await env.close();
  }
}
