// Reads a PR description back: the managed block's content, the boxes a human ticked, whether
// `[skip ci]` is still there, and whether anyone changed what nudger wrote.
import { unescapeMarkdown } from './escape.ts';
import { fingerprintBlock, fingerprintOutside, locateManagedBlock, readCheckbox } from './managed-block.ts';
import { MANAGED_BY_LINE, NOTE_PREFIX, PHASE_LINE, STATE_CELLS, TABLE_HEADER, TABLE_SEPARATOR } from './render.ts';
import { hasSkipMarker } from './skip-markers.ts';
import {
  CHANGE_GROUP_PHASES,
  type ChangeGroupPhase,
  type ComponentRow,
  type ComponentState,
  type ManagedContent,
  type ParsedDescription,
} from './types.ts';

const CODE_CELL = /^<code>([^<]*)<\/code>$/;

function stateOf(cell: string): ComponentState | undefined {
  for (const [state, text] of Object.entries(STATE_CELLS)) if (cell === text) return state as ComponentState;
  return undefined;
}

function codeValue(cell: string): string | undefined {
  if (cell === '') return '';
  const match = CODE_CELL.exec(cell);
  return match ? unescapeMarkdown(match[1] ?? '') : undefined;
}

/** One table row, or undefined when it is not a row nudger could have written. */
function parseRow(line: string): ComponentRow | undefined {
  if (!line.startsWith('|') || !line.endsWith('|')) return undefined;
  // Escaping turns every `|` in a value into an entity, so splitting on `|` is exact.
  const cells = line
    .slice(1, -1)
    .split('|')
    .map((cell) => cell.trim());
  if (cells.length !== 7) return undefined;
  const [name, stateCell, original, fresh, pullSpec, pipelineRun, lastUpdate] = cells as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const state = stateOf(stateCell);
  const originalBuild = codeValue(original);
  const newBuild = codeValue(fresh);
  const newBuildPullSpec = codeValue(pullSpec);
  const buildPipelineRun = codeValue(pipelineRun);
  if (
    state === undefined ||
    originalBuild === undefined ||
    newBuild === undefined ||
    newBuildPullSpec === undefined ||
    buildPipelineRun === undefined
  ) {
    return undefined;
  }
  return {
    name: unescapeMarkdown(name),
    state,
    originalBuild,
    newBuild,
    newBuildPullSpec,
    buildPipelineRun,
    lastUpdate: unescapeMarkdown(lastUpdate),
  };
}

function isPhase(value: string): value is ChangeGroupPhase {
  return (CHANGE_GROUP_PHASES as readonly string[]).includes(value);
}

/** The block's content, or undefined when its header lines are gone. */
function parseContent(lines: readonly string[], skipCiRendered: boolean): ManagedContent | undefined {
  let managedBy: RegExpExecArray | null = null;
  let phase: ChangeGroupPhase | undefined;
  let note: string | undefined;
  const components: ComponentRow[] = [];
  let inTable = false;
  for (const line of lines) {
    if (inTable) {
      const row = parseRow(line);
      if (row) {
        components.push(row);
        continue;
      }
      inTable = false;
    }
    if (line === TABLE_HEADER) continue;
    if (line === TABLE_SEPARATOR) {
      inTable = true;
      continue;
    }
    managedBy ??= MANAGED_BY_LINE.exec(line);
    const phaseMatch = PHASE_LINE.exec(line);
    if (phaseMatch && phase === undefined && isPhase(phaseMatch[1] ?? '')) phase = phaseMatch[1] as ChangeGroupPhase;
    if (note === undefined && line.startsWith(NOTE_PREFIX)) note = unescapeMarkdown(line.slice(NOTE_PREFIX.length));
  }
  if (!managedBy || phase === undefined) return undefined;
  return {
    changeGroup: { name: unescapeMarkdown(managedBy[1] ?? ''), namespace: unescapeMarkdown(managedBy[2] ?? '') },
    nudgedComponent: unescapeMarkdown(managedBy[3] ?? ''),
    phase,
    components,
    skipCiRendered,
    ...(note === undefined ? {} : { note }),
  };
}

export function parseDescription(text: string | null | undefined): ParsedDescription {
  const description = text ?? '';
  const skipCiPresent = hasSkipMarker(description);
  const search = locateManagedBlock(description);
  if (!search.found) {
    return {
      managed: undefined,
      checkboxes: { buildNow: false, rebase: false },
      skipCiPresent,
      skipCiRemoved: false,
      buildNowRequested: false,
      humanText: { before: description, after: '' },
      humanTextEdited: false,
      tamperedManagedBlock: search.markerSeen,
    };
  }
  const { before, after, end } = search.located;
  // Forges may store the description with CRLF; the content is compared without it.
  const lines = search.located.contentLines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const checkboxes = { buildNow: false, rebase: false };
  for (const line of lines) {
    const box = readCheckbox(line);
    if (box?.ticked) checkboxes[box.box] = true;
  }
  const skipCiRendered = end.skipCi ?? false;
  const skipCiRemoved = skipCiRendered && !skipCiPresent;
  const intact =
    end.version === 'v1' &&
    end.skipCi !== undefined &&
    end.outside !== undefined &&
    end.sha256 === fingerprintBlock(lines, end.skipCi, end.outside);
  const managed = parseContent(lines, skipCiRendered);
  return {
    managed,
    checkboxes,
    skipCiPresent,
    skipCiRemoved,
    buildNowRequested: checkboxes.buildNow || skipCiRemoved,
    humanText: { before, after },
    humanTextEdited: end.outside !== undefined && end.outside !== fingerprintOutside(before, after),
    tamperedManagedBlock: !intact || managed === undefined,
  };
}
