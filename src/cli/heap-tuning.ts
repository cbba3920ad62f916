// The offline commands read a whole repository once and exit; their peak memory is what matters,
// not their throughput. V8 doubles the young generation each time enough objects survive a minor
// GC, up to 64 MiB per semi-space, and reading tens of thousands of manifests (every one of which
// leaves a Component behind) gets it there: measured on `validate` of 30 MB of Components, the
// young generation alone was a third of the peak (about 340 MB, against 240 MB without growth, for
// some 15% more time). The manager, a long-running server, keeps V8's defaults.
import { setFlagsFromString } from 'node:v8';

/** The commands that read manifests from files and exit. */
const OFFLINE_COMMANDS = new Set(['validate', 'graph', 'plan', 'migrate']);

/**
 * Keeps the young generation at its initial size for an offline command. A V8 flag that is read
 * whenever the young generation would grow, so setting it after start-up takes effect.
 */
export function favourMemoryForOfflineCommands(argv: readonly string[]): void {
  if (OFFLINE_COMMANDS.has(argv[0] ?? '')) setFlagsFromString('--semi-space-growth-factor=1');
}
