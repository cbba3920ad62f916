// Paths on the command line -> the domain's ManifestSet. I/O lives in the fs adapter; parsing is pure.
import { readManifestFiles, type ReadOptions } from '../adapters/fs/read-inputs.ts';
import type { ManifestSet } from '../domain/model.ts';
import { placeByKustomize } from '../manifest/kustomize-placement.ts';
import { parseManifestSet } from '../manifest/parse.ts';
import { type CliIo, writeLine } from './io.ts';

export interface LoadOptions {
  readonly maxFileBytes?: number;
  readonly maxTotalBytes?: number;
  /** Say on stderr what a directory walk skipped (hidden directories, FIFOs and devices). */
  readonly verbose?: boolean;
}

/** The file-system reader's options for the CLI's own. */
export function readOptions(options: LoadOptions, io: CliIo): ReadOptions {
  return {
    stdin: io.stdin,
    ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }),
    ...(options.maxTotalBytes === undefined ? {} : { maxTotalBytes: options.maxTotalBytes }),
    ...(options.verbose === true && {
      onSkip: (path: string, reason: string) => {
        writeLine(io.stderr, `nudger: skipped ${path}: ${reason}`);
      },
    }),
  };
}

export async function loadManifests(
  paths: readonly string[],
  io: CliIo,
  options: LoadOptions = {},
): Promise<ManifestSet> {
  const files = await readManifestFiles(paths.length === 0 ? ['.'] : paths, readOptions(options, io));
  // Namespaces as kustomize would set them, so that tenants of one tree never share a graph.
  return placeByKustomize(parseManifestSet(files), files);
}

/** `--max-file-size 64Mi`, `10MB`, `1048576`: a human size to bytes. */
export function parseByteSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(|k|ki|kb|m|mi|mb|g|gi|gb)$/i.exec(text.trim());
  if (match === null) throw new Error(`"${text}" is not a size (examples: 1048576, 512Ki, 32Mi)`);
  const units: Record<string, number> = {
    '': 1,
    k: 1e3,
    kb: 1e3,
    ki: 1024,
    m: 1e6,
    mb: 1e6,
    mi: 1024 ** 2,
    g: 1e9,
    gb: 1e9,
    gi: 1024 ** 3,
  };
  return Math.floor(Number(match[1]) * (units[(match[2] ?? '').toLowerCase()] ?? 1));
}
