// The offline commands read a whole repository once and exit; their peak memory is what matters,
// not their throughput. V8 doubles the young generation each time enough objects survive a minor
// GC, up to 64 MiB per semi-space, and reading tens of thousands of manifests (every one of which
// leaves a Component behind) gets it there: measured on `validate` of 30 MB of Components, the
// young generation alone was a third of the peak (about 340 MB, against 240 MB without growth, for
// some 15% more time). The manager, a long-running server, keeps V8's defaults.
//
// `migrate` holds more per document (its plan, the file's new text) and makes more garbage (a
// syntax tree per document, read through the `yaml` library), and V8 lets the old generation grow
// to up to four times what survived the last full GC before it collects again: measured on one
// file of Components that each lose build-nudges-ref, its peak RSS was about 165 MB for 4.8 MB and
// 430-480 MB for 30 MB (17x and 12x the input above Node's own ~80 MB). V8's optimize-for-size mode
// (a smaller young generation, a slower-growing heap) brings that to about 122 MB and 280 MB (9x
// and 6.6x, issue 8's bound is 10x) for some 10-40% more CPU time; validate, graph and plan gain
// little from it (6% less memory for 28% more time on 30 MB), so only migrate pays for it.
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
