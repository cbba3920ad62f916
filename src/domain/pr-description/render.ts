// Renders the PR description's managed block and splices it into whatever a human has written
// around it. Only the block is ever replaced: text outside it is kept byte for byte.
import { escapeMarkdown, escapeUrlForMarkdown } from './escape.ts';
import {
  BEGIN_MARKER,
  BUILD_NOW_LABEL,
  REBASE_LABEL,
  checkboxLine,
  endMarker,
  fingerprintBlock,
  fingerprintOutside,
  locateManagedBlock,
} from './managed-block.ts';
import { SKIP_CI } from './skip-markers.ts';
import type { ChangeGroupLink, ComponentRow, ComponentState, DescriptionInput } from './types.ts';

/** A description input nudger refuses to render, naming the field at fault. */
export class DescriptionInputError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`PR description: ${field}: ${message}`);
    this.name = 'DescriptionInputError';
    this.field = field;
  }
}

export const TABLE_HEADER = '| Component | State | Current | New | New pull spec | Build PipelineRun | Last updated |';
export const TABLE_SEPARATOR = '| --- | --- | --- | --- | --- | --- | --- |';
export const STATE_CELLS: Readonly<Record<ComponentState, string>> = {
  Ready: '✅ Ready',
  Waiting: '⏳ Waiting',
  NotReferenced: '⚠️ Not referenced',
};
export const NOTE_PREFIX = '> ⚠️ ';
// The ChangeGroup line is parsed back; `<` never survives escaping, so `[^<]*` finds each value.
export const MANAGED_BY_LINE =
  /^This pull request is managed by ChangeGroup <code>([^<]*)<\/code> in namespace <code>([^<]*)<\/code> for component <code>([^<]*)<\/code>\.$/;
export const PHASE_LINE = /^\*\*Phase:\*\* ([A-Za-z]+) · /;

// Shown in prose where the marker itself must not appear: a literal `[skip ci]` here would be
// honoured by a description-reading PaC even after nudger meant to release the build.
const SKIP_CI_TEXT = escapeMarkdown(SKIP_CI);

function code(value: string): string {
  return `<code>${escapeMarkdown(value)}</code>`;
}

/** Table cells leave "none yet" visibly empty rather than showing an empty code span. */
function codeCell(value: string): string {
  return value === '' ? '' : code(value);
}

function tableRow(row: ComponentRow): string {
  const cells = [
    escapeMarkdown(row.name),
    STATE_CELLS[row.state],
    codeCell(row.originalBuild),
    codeCell(row.newBuild),
    codeCell(row.newBuildPullSpec),
    codeCell(row.buildPipelineRun),
    escapeMarkdown(row.lastUpdate),
  ];
  return `|${cells.map((cell) => ` ${cell} `).join('|')}|`;
}

function linkLine(link: ChangeGroupLink, name: string, namespace: string): string {
  if (link.kind === 'kubectl') {
    return `Inspect it with <code>kubectl get changegroup ${escapeMarkdown(name)} -n ${escapeMarkdown(namespace)} -o yaml</code>.`;
  }
  if (!/^https?:\/\//i.test(link.urlTemplate)) {
    throw new DescriptionInputError('link.urlTemplate', 'must be an http or https URL');
  }
  const url = link.urlTemplate
    .replaceAll('{namespace}', encodeURIComponent(namespace))
    .replaceAll('{name}', encodeURIComponent(name));
  return `[View ChangeGroup ${escapeMarkdown(name)}](${escapeUrlForMarkdown(url)})`;
}

function modeParagraph(input: DescriptionInput, skipCiInDescription: boolean): string {
  if (skipCiInDescription) {
    return `The ${SKIP_CI_TEXT} line above keeps Pipelines as Code from building this pull request until every component is ready. To build early, tick the first box below or delete that line.`;
  }
  const stillWaiting = input.phase === 'Initialized' || input.phase === 'Waiting';
  if (input.mode === 'commitMessage' && stillWaiting) {
    return `Until every component is ready, nudger's commits carry ${SKIP_CI_TEXT} so Pipelines as Code does not build them; the final commit leaves it out and starts one build. To build early, tick the first box below.`;
  }
  return 'No more builds are held back for this pull request.';
}

/** The block's lines between the markers. */
function blockContent(input: DescriptionInput, skipCiInDescription: boolean): string[] {
  const { changeGroup, components } = input;
  const ready = components.filter((c) => c.state === 'Ready').length;
  const lines = [
    '## Orchestrated component update',
    '',
    `This pull request is managed by ChangeGroup ${code(changeGroup.name)} in namespace ${code(changeGroup.namespace)} for component ${code(input.nudgedComponent)}.`,
    '',
    `**Phase:** ${input.phase} · ${String(ready)} of ${String(components.length)} components ready`,
  ];
  if (input.note !== undefined && input.note !== '') lines.push('', `${NOTE_PREFIX}${escapeMarkdown(input.note)}`);
  lines.push('', TABLE_HEADER, TABLE_SEPARATOR, ...components.map(tableRow));
  if (skipCiInDescription) lines.push('', SKIP_CI);
  lines.push(
    '',
    modeParagraph(input, skipCiInDescription),
    '',
    checkboxLine(BUILD_NOW_LABEL, input.checkboxes.buildNow),
    checkboxLine(REBASE_LABEL, input.checkboxes.rebase),
    '',
    'Commits or description edits by others pause nudger’s updates until “rebase” is ticked. Text outside this block is never removed.',
    '',
    linkLine(input.link, changeGroup.name, changeGroup.namespace),
  );
  return lines;
}

function renderBlock(input: DescriptionInput, before: string, after: string): string {
  const skipCi = input.mode === 'description' && input.skipCi;
  const content = blockContent(input, skipCi);
  const outside = fingerprintOutside(before, after);
  const sha256 = fingerprintBlock(content, skipCi, outside);
  return [BEGIN_MARKER, ...content, endMarker({ skipCi, outside, sha256 })].join('\n');
}

/**
 * Replaces the managed block in `existing`, or appends one when there is none. Text outside the
 * block is kept byte for byte; edits inside the block are discarded (that is what "managed" means).
 */
export function updateDescription(existing: string | null | undefined, input: DescriptionInput): string {
  if (existing === undefined || existing === null || existing === '') return `${renderBlock(input, '', '\n')}\n`;
  const search = locateManagedBlock(existing);
  if (search.found) {
    const { before, after } = search.located;
    return `${before}${renderBlock(input, before, after)}${after}`;
  }
  const before = `${existing}${existing.endsWith('\n') ? '\n' : '\n\n'}`;
  return `${before}${renderBlock(input, before, '\n')}\n`;
}

/** A fresh description holding only the managed block. */
export function renderDescription(input: DescriptionInput): string {
  return updateDescription(undefined, input);
}
