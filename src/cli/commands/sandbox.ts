// `nudger sandbox`: argument handling and output only; src/sandbox/ does the work.
import { createLogger } from '../../runtime/logger.ts';
import { loadDefaultScenario, loadScenarioFile } from '../../sandbox/scenario/load.ts';
import { renderResultText } from '../../sandbox/scenario/result.ts';
import { runSandbox } from '../../sandbox/run.ts';
import { EXIT_OK } from '../errors.ts';
import { type CliIo, writeJson, writeLine } from '../io.ts';

export interface SandboxCommandOptions {
  readonly scenario?: string;
  /** commander's `--no-changegroups` sets this to false. */
  readonly changegroups: boolean;
  readonly output: 'text' | 'json';
  readonly logLevel: string;
}

export async function sandboxCommand(options: SandboxCommandOptions, io: CliIo): Promise<number> {
  const logger = createLogger({ level: options.logLevel, destination: io.stderr });
  const scenario =
    options.scenario === undefined ? await loadDefaultScenario() : await loadScenarioFile(options.scenario);
  const result = await runSandbox({
    scenario,
    changeGroups: options.changegroups,
    // Without a scenario the point is the comparison: play the default both ways.
    compare: options.scenario === undefined,
    logger,
  });
  if (options.output === 'json') {
    writeJson(io.stdout, result);
    return EXIT_OK;
  }
  // The scenario's names are DNS-1123 (its schema), but each line goes through writeLine as
  // everywhere else, so nothing from the scenario or the forge reaches the terminal as an escape.
  for (const line of renderResultText(result).replace(/\n$/, '').split('\n')) writeLine(io.stdout, line);
  return EXIT_OK;
}
