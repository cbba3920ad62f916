// The offline commands read a whole repository once and exit; their peak memory is what matters,
// not their throughput. V8 doubles the young generation each time enough objects survive a minor
// GC, up to 64 MiB per semi-space, and reading tens of thousands of manifests (every one of which
// leaves a Component behind) gets it there: measured on `validate` of 30 MB of Components, the
// young generation alone was a third of the peak (about 340 MB, against 240 MB without growth, for
// some 15% more time). The manager, a long-running server, keeps V8's defaults.
//
// `migrate` holds more per document (its plan, the file's new text, the edits for its diff) and
// reads every file it edits twice, and V8 lets the old generation grow well past what survived
// its last full GC before it collects again: measured on one file of Components that each lose
// build-nudges-ref (bench/cli-memory.ts), its peak RSS was 134-144 MiB for 4.5 MB and 323-351 MiB
// for 30 MB, 13x and 9x the input above Node's own ~80 MiB (issue 8's bound is 10x). V8's
// optimize-for-size mode (a smaller young generation, a slower-growing heap) brings that to
// 108-112 and 244-258 MiB (under 8x and 6x), for some 30-65% more CPU time (1.2 -> 1.6 s and
// 4.8 -> 7.9 s); validate, graph and plan gain little from it (6% less memory for 28% more time
// on 30 MB), so only migrate pays for it.
import { setFlagsFromString } from 'node:v8';

/** The commands that read manifests from files and exit. */
const OFFLINE_COMMANDS = new Set(['validate', 'graph', 'plan', 'migrate']);

/**
 * Keeps the young generation at its initial size for an offline command, and V8 in its
 * optimize-for-size mode for `migrate`. Flags V8 reads whenever it sizes the heap, so setting them
 * after start-up takes effect.
 */
export function favourMemoryForOfflineCommands(argv: readonly string[]): void {
  const command = argv[0] ?? '';
  if (!OFFLINE_COMMANDS.has(command)) return;
  setFlagsFromString('--semi-space-growth-factor=1');
  if (command === 'migrate') setFlagsFromString('--optimize-for-size');
}
