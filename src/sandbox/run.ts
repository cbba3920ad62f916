// `nudger sandbox` end to end: one environment, one scenario (or the default one played with and
// without ChangeGroups, side by side), one result.
import type { Logger } from '../runtime/logger.ts';
import { startSandboxEnvironment, type SandboxEnvironment } from './environment.ts';
import { ScenarioPlayer, type PlayOptions } from './play.ts';
import { withoutChangeGroups } from './scenario/objects.ts';
import type { SandboxResult } from './scenario/result.ts';
import type { Scenario } from './scenario/schema.ts';

export interface SandboxRunOptions {
  readonly scenario: Scenario;
  /** Play without ChangeGroups (ADR 29 nudging only). */
  readonly changeGroups: boolean;
  /** Also play the scenario without ChangeGroups and report the nudged component's builds side by side. */
  readonly compare: boolean;
  readonly logger: Logger;
  readonly binDirectory?: string;
  readonly play?: PlayOptions;
}

/** The scenario without ChangeGroups, in a namespace of its own so both runs share one cluster. */
function comparisonScenario(scenario: Scenario): Scenario {
  return { ...withoutChangeGroups(scenario), namespace: `${scenario.namespace.slice(0, 56)}-no-cg` };
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

export async function runSandbox(options: SandboxRunOptions): Promise<SandboxResult> {
  const env = await startSandboxEnvironment({
    logger: options.logger,
    ...(options.binDirectory === undefined ? {} : { binDirectory: options.binDirectory }),
  });
  try {
    const scenario = options.changeGroups ? options.scenario : comparisonScenario(options.scenario);
    const result = await playInEnvironment(env, scenario, options.play);
    if (!options.compare || !options.changeGroups) return result;
    const nudged = options.scenario.changeGroups[0]?.nudgedComponent;
    if (nudged === undefined) return result;
    const without = await playInEnvironment(env, comparisonScenario(options.scenario), options.play);
    return {
      ...result,
      comparison: {
        nudgedComponent: nudged,
        withChangeGroups: { builds: result.builds[nudged] ?? 0 },
        withoutChangeGroups: { builds: without.builds[nudged] ?? 0 },
      },
    };
  } finally {
    await env.close();
  }
}
