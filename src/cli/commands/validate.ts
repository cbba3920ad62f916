import { validateManifestSet } from '../../domain/validate.ts';
import { EXIT_FINDINGS, EXIT_OK } from '../errors.ts';
import { findingToJson, findingToText, summarize } from '../format/findings.ts';
import { type CliIo, type OutputFormat, writeJson, writeLine } from '../io.ts';
import { type LoadOptions, loadManifests } from '../load.ts';

export interface ValidateOptions extends LoadOptions {
  readonly output: OutputFormat;
}

export async function validateCommand(paths: readonly string[], options: ValidateOptions, io: CliIo): Promise<number> {
  const set = await loadManifests(paths, io, options);
  const result = validateManifestSet(set);
  if (options.output === 'json') {
    writeJson(io.stdout, { valid: result.valid, findings: result.findings.map(findingToJson) });
  } else {
    for (const finding of result.findings) writeLine(io.stdout, findingToText(finding));
    writeLine(io.stdout, summarize(set, result.findings));
  }
  return result.valid ? EXIT_OK : EXIT_FINDINGS;
}
