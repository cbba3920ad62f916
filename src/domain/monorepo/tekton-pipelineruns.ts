// The PipelineRuns of one Component in a repository's `.tekton/` directory (docs/decisions.md D11,
// N33), as Konflux build-service writes them: `<component>-pull-request.yaml` and
// `<component>-push.yaml`, labelled `appstudio.openshift.io/component: <component>`. Users rename
// files more often than they drop the label, so the label decides; an unlabelled PipelineRun counts
// by its file name. Pure: the caller reads the files.
import { BUILD_NUDGE_FILES_ANNOTATION } from '../digest-rewrite/file-match.ts';
import { documentValue, readYamlDocuments } from '../yaml-reader.ts';
import { ON_CEL_EXPRESSION_ANNOTATION, readPathChanged, type PathChangedReading } from './path-changed.ts';
import { parse } from '@bufbuild/cel';

export const COMPONENT_LABEL = 'appstudio.openshift.io/component';
export const ON_EVENT_ANNOTATION = 'pipelinesascode.tekton.dev/on-event';
export const ON_TARGET_BRANCH_ANNOTATION = 'pipelinesascode.tekton.dev/on-target-branch';

export type PacEvent = 'pull_request' | 'push';

const FILE_SUFFIX: Readonly<Record<PacEvent, string>> = { pull_request: '-pull-request', push: '-push' };

export interface TektonPipelineRun {
  /** The file's path as given (e.g. `.tekton/op-a-push.yaml`). */
  readonly file: string;
  /** `metadata.name`, or `metadata.generateName`; empty when it has neither. */
  readonly name: string;
  /** How it was tied to the Component. */
  readonly matchedBy: 'label' | 'file-name';
  readonly onCelExpression?: string;
  /** `on-target-branch` (ignored by PaC when there is a CEL expression), verbatim. */
  readonly onTargetBranch?: string;
  /** `build.appstudio.openshift.io/build-nudge-files`, the fileMatch a push build nudges with (D6). */
  readonly buildNudgeFiles?: string;
  /** What its on-cel-expression says about changed paths (`"*"` when it has none). */
  readonly pathChanged: PathChangedReading;
}

/** A `.tekton/` file nudger could not read; the others are still read. */
export interface TektonFileProblem {
  readonly file: string;
  readonly reason: string;
}

export interface ComponentPipelineRuns {
  readonly pipelineRuns: readonly TektonPipelineRun[];
  readonly problems: readonly TektonFileProblem[];
}

/** One PipelineRun of the directory, before it is tied to a Component. */
export interface RawPipelineRun {
  readonly file: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, unknown>>;
  readonly annotations: Readonly<Record<string, unknown>>;
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function isYamlFile(path: string): boolean {
  return /\.ya?ml$/.test(path);
}

/** A `.tekton/` directory read once, for looking up several Components. */
export interface TektonDirectory {
  readonly pipelineRuns: readonly RawPipelineRun[];
  readonly problems: readonly TektonFileProblem[];
}

/**
 * Every PipelineRun of the files (path → text; `.yaml`/`.yml` only, as PaC reads), in path order;
 * a file that is not YAML is a problem and the others are still read.
 */
export function readTektonDirectory(files: ReadonlyMap<string, string>): TektonDirectory {
  const pipelineRuns: RawPipelineRun[] = [];
  const problems: TektonFileProblem[] = [];
  for (const file of [...files.keys()].filter(isYamlFile).sort()) {
    try {
      for (const read of readYamlDocuments(files.get(file) ?? '')) {
        const object = record(documentValue(read));
        if (object.kind !== 'PipelineRun') continue;
        const metadata = record(object.metadata);
        pipelineRuns.push({
          file,
          name: text(metadata.name) ?? text(metadata.generateName) ?? '',
          labels: record(metadata.labels),
          annotations: record(metadata.annotations),
        });
      }
    } catch (error: unknown) {
      problems.push({ file, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { pipelineRuns, problems };
}

/**
 * The PipelineRuns of `component` for `event`: labelled with the component (or unlabelled and
 * named `<component>-push.yaml` / `-pull-request.yaml`), whose trigger is that event.
 */
export function componentPipelineRuns(
  tekton: ReadonlyMap<string, string> | TektonDirectory,
  component: string,
  event: PacEvent,
): ComponentPipelineRuns {
  const { pipelineRuns, problems } = 'pipelineRuns' in tekton ? tekton : readTektonDirectory(tekton);
  const out: TektonPipelineRun[] = [];
  for (const run of pipelineRuns) {
    const label = text(run.labels[COMPONENT_LABEL]);
    const byName = /^(.*)\.ya?ml$/.exec(baseName(run.file))?.[1];
    let matchedBy: TektonPipelineRun['matchedBy'];
    if (label === component) matchedBy = 'label';
    else if (label === undefined && (byName === `${component}-push` || byName === `${component}-pull-request`))
      matchedBy = 'file-name';
    else continue;
    if (!triggeredBy(run, byName, event)) continue;
    const onCelExpression = text(run.annotations[ON_CEL_EXPRESSION_ANNOTATION]);
    const onTargetBranch = text(run.annotations[ON_TARGET_BRANCH_ANNOTATION]);
    const buildNudgeFiles = text(run.annotations[BUILD_NUDGE_FILES_ANNOTATION]);
    out.push({
      file: run.file,
      name: run.name,
      matchedBy,
      ...(onCelExpression === undefined ? {} : { onCelExpression }),
      ...(onTargetBranch === undefined ? {} : { onTargetBranch }),
      ...(buildNudgeFiles === undefined ? {} : { buildNudgeFiles }),
      pathChanged: readPathChanged(onCelExpression),
    });
  }
  return { pipelineRuns: out, problems };
}

/**
 * The events a PipelineRun starts on: with an on-cel-expression (which PaC lets override
 * on-event), the string literals compared with `event` by `==`; else the `on-event` list
 * (`[pull_request, push]`). When neither names one, the file name's suffix decides.
 */
function triggeredBy(run: RawPipelineRun, byName: string | undefined, event: PacEvent): boolean {
  const cel = text(run.annotations[ON_CEL_EXPRESSION_ANNOTATION]);
  const named = cel === undefined ? onEventList(text(run.annotations[ON_EVENT_ANNOTATION])) : celEvents(cel);
  if (named.length > 0) return named.includes(event);
  return byName?.endsWith(FILE_SUFFIX[event]) === true;
}

function onEventList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .replace(/^\s*\[|\]\s*$/g, '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

type Expr = ReturnType<typeof parse>['expr'];

function celEvents(expression: string): string[] {
  let root: Expr;
  try {
    root = parse(expression).expr;
  } catch {
    return [];
  }
  const events: string[] = [];
  const visit = (expr: Expr): void => {
    if (expr.exprKind.case !== 'callExpr') return;
    const { function: fn, args, target } = expr.exprKind.value;
    if (fn === '_==_' && args.length === 2) {
      const [a, b] = args;
      for (const [ident, constant] of [
        [a, b],
        [b, a],
      ]) {
        if (
          ident?.exprKind.case === 'identExpr' &&
          ident.exprKind.value.name === 'event' &&
          constant?.exprKind.case === 'constExpr' &&
          constant.exprKind.value.constantKind.case === 'stringValue'
        )
          events.push(constant.exprKind.value.constantKind.value);
      }
    }
    if (target !== undefined) visit(target);
    for (const arg of args) visit(arg);
  };
  visit(root);
  return events;
}
