import { readRepositoryCheckout } from '../../adapters/fs/read-checkout.ts';
import { DEFAULT_MAX_TOTAL_BYTES, InputBudget } from '../../adapters/fs/input-limits.ts';
import { validateManifestSet } from '../../domain/validate.ts';
import { EXIT_FINDINGS, EXIT_OK } from '../errors.ts';
import { findingToJson, findingToText, summarize } from '../format/findings.ts';
import { type CliIo, type OutputFormat, writeJson, writeLine } from '../io.ts';
import { type LoadOptions, loadManifests } from '../load.ts';

export interface ValidateOptions extends LoadOptions {
  readonly output: OutputFormat;
  /** Repository checkouts whose `.tekton/` PipelineRuns the `nudge-loop` rule reads (N33). */
  readonly repositories?: readonly string[];
}

export async function validateCommand(paths: readonly string[], options: ValidateOptions, io: CliIo): Promise<number> {
  const set = await loadManifests(paths, io, options);
  // The checkouts have a --max-total-size budget of their own: they are not manifests.
  const budget = new InputBudget(options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES);
  const repositories = [];
  for (const root of options.repositories ?? []) {
    repositories.push(
      await readRepositoryCheckout(root, {
        budget,
        ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }),
      }),
    );
  }
  const result = validateManifestSet(set, { repositories });
  if (options.output === 'json') {
    writeJson(io.stdout, { valid: result.valid, findings: result.findings.map(findingToJson) });
  } else {
    for (const finding of result.findings) writeLine(io.stdout, findingToText(finding));
    writeLine(io.stdout, summarize(set, result.findings));
  }
  return result.valid ? EXIT_OK : EXIT_FINDINGS;
}
