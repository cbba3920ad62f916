// `nudger sandbox`: argument handling and output only; src/sandbox/ does the work.
import { createLogger } from '../../runtime/logger.ts';
import { newDashboardToken, type SandboxDashboardRun } from '../../sandbox/dashboard.ts';
import { loadDefaultScenario, loadScenarioFile } from '../../sandbox/scenario/load.ts';
import { renderResultText, type SandboxResult } from '../../sandbox/scenario/result.ts';
import { runSandbox } from '../../sandbox/run.ts';
import { EXIT_OK, UsageError } from '../errors.ts';
import { type CliIo, writeJson, writeLine } from '../io.ts';

export interface SandboxCommandOptions {
  readonly scenario?: string;
  /** commander's `--no-changegroups` sets this to false. */
  readonly changegroups: boolean;
  readonly output: 'text' | 'json';
  readonly logLevel: string;
  /** Serve the dashboard while the scenario plays and after, until SIGINT/SIGTERM (D14). */
  readonly dashboard?: boolean;
  /** The dashboard's port on 127.0.0.1; default one the kernel picks. */
  readonly dashboardPort?: number;
  /** Ends a held-open dashboard run like SIGINT does (tests run the command in process). */
  readonly signal?: AbortSignal;
}

export async function sandboxCommand(options: SandboxCommandOptions, io: CliIo): Promise<number> {
  if (options.dashboardPort !== undefined && options.dashboard !== true)
    throw new UsageError('--dashboard-port goes with --dashboard');
  const logger = createLogger({ level: options.logLevel, destination: io.stderr });
  const scenario =
    options.scenario === undefined ? await loadDefaultScenario() : await loadScenarioFile(options.scenario);
  const dashboard: SandboxDashboardRun | undefined =
    options.dashboard === true
      ? {
          port: options.dashboardPort ?? 0,
          token: newDashboardToken(),
          // The token is printed on purpose: it is this run's only, and the URL is how it reaches the browser.
          onReady: (url) => {
            writeLine(io.stderr, `dashboard: ${url}`);
          },
          whileOpen: async (result) => {
            printResult(result, options.output, io);
            writeLine(io.stderr, 'dashboard: the scenario has played; serving until Ctrl-C');
            await stopRequested(options.signal);
          },
        }
      : undefined;
  const result = await runSandbox({
    scenario,
    changeGroups: options.changegroups,
    // Without a scenario the point is the comparison: play the default both ways.
    compare: options.scenario === undefined,
    logger,
    ...(dashboard === undefined ? {} : { dashboard }),
  });
  // With the dashboard, whileOpen printed it before the hold.
  if (dashboard === undefined) printResult(result, options.output, io);
  return EXIT_OK;
}

function printResult(result: SandboxResult, output: 'text' | 'json', io: CliIo): void {
  if (output === 'json') {
    writeJson(io.stdout, result);
    return;
  }
  // The scenario's names are DNS-1123 (its schema), but each line goes through writeLine as
  // everywhere else, so nothing from the scenario or the forge reaches the terminal as an escape.
  for (const line of renderResultText(result).replace(/\n$/, '').split('\n')) writeLine(io.stdout, line);
}

/** Resolves on the first SIGINT or SIGTERM (Ctrl-C), or when `signal` aborts. */
function stopRequested(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (signal?.aborted === true) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });
}
