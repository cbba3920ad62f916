// Which changed files a Pipelines-as-Code `on-cel-expression` reacts to (docs/decisions.md D11,
// N33): the `"<glob>".pathChanged()` calls found on the CEL syntax tree (@bufbuild/cel's parser,
// never a regex over the text).
//
// The reading, conservative on purpose:
// - From the root, walk through `&&` and `||` only. What is left are the leaves.
// - A leaf `"<glob>".pathChanged()` (a string literal receiver, no arguments) contributes its glob.
// - A leaf that mentions neither `pathChanged` nor `files` (`event == "push"`, `target_branch ==
//   "main"`, `!source_branch.startsWith("x")`) is a condition on the event, not on paths: it is
//   assumed true.
// - Anything else that mentions them (`!"a".pathChanged()`, a ternary, `"a".pathChanged() ==
//   false`, a non-literal receiver, `files.all.exists(...)`) is not understood.
// - An `||` with path leaves on one side and none on the other is not understood either: the
//   other side may start the pipeline whatever changed.
// - The files that match are those that match any collected glob. For an `&&` of two path leaves
//   this over-approximates (each file alone need not trigger); over-reporting is the safe side for
//   loop warnings and for the monorepo commit that copies the changed files.
// - No path leaf at all (only event conditions) or no expression: every file matches, as
//   `"*".pathChanged()`. Not understood (a parse error included): every file matches too, and the
//   reason is reported with the annotation named.
import { parse } from '@bufbuild/cel';
import { PacGlobError, pacGlobRegExp } from './pac-glob.ts';

export const ON_CEL_EXPRESSION_ANNOTATION = 'pipelinesascode.tekton.dev/on-cel-expression';

/** The glob a missing expression stands for. */
export const MATCH_ALL_GLOB = '*';

type Expr = ReturnType<typeof parse>['expr'];

export interface PathChangedReading {
  /**
   * The globs of the `pathChanged()` calls, in order of appearance, without repeats; `["*"]`
   * when the expression is missing or filters on no path.
   */
  readonly globs: readonly string[];
  /** False: the expression was not understood, and every file counts as matching. */
  readonly understood: boolean;
  /** Why it was not understood, naming the annotation; absent when understood. */
  readonly reason?: string;
}

/** How far a subtree was understood. */
type Leaves = { readonly ok: true; readonly globs: readonly string[] } | { readonly ok: false; readonly why: string };

const AND = '_&&_';
const OR = '_||_';
const PATH_CHANGED = 'pathChanged';
const FILES = 'files';

function notUnderstood(reason: string, globs: readonly string[] = []): PathChangedReading {
  return { globs, understood: false, reason: `${ON_CEL_EXPRESSION_ANNOTATION}: ${reason}` };
}

/** Reads an `on-cel-expression` annotation value; `undefined` means the annotation is absent. */
export function readPathChanged(expression: string | undefined): PathChangedReading {
  if (expression === undefined) return { globs: [MATCH_ALL_GLOB], understood: true };
  let root: Expr;
  try {
    root = parse(expression).expr;
  } catch (error: unknown) {
    return notUnderstood(`not a CEL expression (${error instanceof Error ? error.message : String(error)})`);
  }
  const leaves = pathLeaves(root);
  if (!leaves.ok) return notUnderstood(leaves.why, [...new Set(allPathChangedGlobs(root))]);
  const globs = [...new Set(leaves.globs)];
  for (const glob of globs) {
    try {
      pacGlobRegExp(glob);
    } catch (error: unknown) {
      if (error instanceof PacGlobError)
        return notUnderstood(`${error.message} is not a glob Pipelines-as-Code compiles`, globs);
      throw error;
    }
  }
  return globs.length === 0 ? { globs: [MATCH_ALL_GLOB], understood: true } : { globs, understood: true };
}

/** Whether a change of `path` makes the reading's expression true (every path when not understood). */
export function pathChangedMatches(reading: PathChangedReading, path: string): boolean {
  return matchingGlobs(reading, path).length > 0 || !reading.understood;
}

/** The reading's globs that match `path` (none for a not-understood reading without globs). */
export function matchingGlobs(reading: PathChangedReading, path: string): string[] {
  return reading.globs.filter((glob) => {
    try {
      return pacGlobRegExp(glob).test(path);
    } catch {
      return false;
    }
  });
}

function call(expr: Expr) {
  return expr.exprKind.case === 'callExpr' ? expr.exprKind.value : undefined;
}

function pathLeaves(expr: Expr): Leaves {
  const node = call(expr);
  if (node !== undefined && node.target === undefined && (node.function === AND || node.function === OR)) {
    const [left, right] = node.args;
    if (left === undefined || right === undefined) return { ok: false, why: `${node.function} without two operands` };
    const a = pathLeaves(left);
    if (!a.ok) return a;
    const b = pathLeaves(right);
    if (!b.ok) return b;
    if (node.function === OR && (a.globs.length === 0) !== (b.globs.length === 0)) {
      return {
        ok: false,
        why: 'pathChanged() is in an || with a condition on something other than paths, which may start the pipeline whatever changed',
      };
    }
    return { ok: true, globs: [...a.globs, ...b.globs] };
  }
  const glob = pathChangedGlob(expr);
  if (glob !== undefined) return { ok: true, globs: [glob] };
  if (mentionsPaths(expr)) {
    return {
      ok: false,
      why: 'pathChanged() or files appear other than as "<glob>".pathChanged() joined by && and ||',
    };
  }
  return { ok: true, globs: [] };
}

/** The glob of `"<glob>".pathChanged()`, else undefined. */
function pathChangedGlob(expr: Expr): string | undefined {
  const node = call(expr);
  if (node?.function !== PATH_CHANGED || node.args.length > 0 || node.target === undefined) return undefined;
  const target = node.target.exprKind;
  if (target.case !== 'constExpr' || target.value.constantKind.case !== 'stringValue') return undefined;
  return target.value.constantKind.value;
}

function mentionsPaths(expr: Expr): boolean {
  return children(expr).some((child) => mentionsPaths(child)) || isPathNode(expr);
}

function isPathNode(expr: Expr): boolean {
  const kind = expr.exprKind;
  if (kind.case === 'identExpr') return kind.value.name === FILES;
  if (kind.case === 'callExpr') return kind.value.function === PATH_CHANGED;
  return false;
}

/** Every `"<glob>".pathChanged()` anywhere, for reporting what a not-understood expression names. */
function allPathChangedGlobs(expr: Expr): string[] {
  const glob = pathChangedGlob(expr);
  return [...(glob === undefined ? [] : [glob]), ...children(expr).flatMap(allPathChangedGlobs)];
}

function children(expr: Expr): Expr[] {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      return kind.value.operand === undefined ? [] : [kind.value.operand];
    case 'callExpr':
      return [...(kind.value.target === undefined ? [] : [kind.value.target]), ...kind.value.args];
    case 'listExpr':
      return [...kind.value.elements];
    case 'structExpr':
      return kind.value.entries.flatMap((entry) => {
        const key = entry.keyKind.case === 'mapKey' ? [entry.keyKind.value] : [];
        return entry.value === undefined ? key : [...key, entry.value];
      });
    case 'comprehensionExpr': {
      const c = kind.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].filter((e) => e !== undefined);
    }
    default:
      return [];
  }
}
