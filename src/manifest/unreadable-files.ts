// Which files nudger may skip when it cannot read them. A repository holds much YAML that is not
// nudger's business (Helm templates, CI configs, CRDs in dialects of YAML); refusing the whole run
// over one of them makes `nudger validate .` useless. A file that may hold a kind nudger reads
// (Component, NudgeConfig, their lists) or a kustomization (which sets the namespaces of others)
// is different: skipping it could lose nudge edges in silence, so its error still stops the run.
import type { ManifestIssue } from '../domain/model.ts';
import { mayHoldReadKind } from '../domain/read-kinds.ts';
import { streamDocuments } from './documents.ts';
import { ManifestSyntaxError } from './errors.ts';
import type { SourceDocument } from './source-tree.ts';

/** `{{` outside quotes and comments: an unrendered Go template (Helm, kustomize-less operators). */
const GO_TEMPLATE = /^[^#'"\n]*\{\{/m;

/**
 * Feeds every document of the file to `read`. A syntax error in a file that cannot hold a kind
 * nudger reads becomes a warning (returned); in any other file it is thrown, as before.
 */
export function readDocumentsOrSkip(
  path: string,
  text: string,
  read: (doc: SourceDocument) => void,
): ManifestIssue | undefined {
  try {
    for (const doc of streamDocuments(path, text)) read(doc);
    return undefined;
  } catch (error) {
    if (!(error instanceof ManifestSyntaxError)) throw error;
    const hinted = asTemplateError(error, text);
    if (mayHoldReadKind(path, text)) throw hinted;
    return {
      rule: 'unreadable-file',
      severity: 'warning',
      message: `skipped: malformed ${hinted.format}: ${hinted.reason} (it holds no Component, NudgeConfig or kustomization, so nudger needs nothing from it)`,
      location: { file: hinted.file, line: hinted.line, column: hinted.column },
    };
  }
}

/**
 * The error moved to the first template action, which is what needs fixing (yaml often gives up
 * lines later, or reads `{{ x }}` as a nested flow mapping without complaint), yaml's own reason kept.
 */
function asTemplateError(error: ManifestSyntaxError, text: string): ManifestSyntaxError {
  const match = GO_TEMPLATE.exec(text);
  if (match === null) return error;
  const offset = match.index + match[0].length - 2;
  const line = text.slice(0, offset).split('\n').length;
  const column = offset - text.lastIndexOf('\n', offset - 1);
  return new ManifestSyntaxError(
    error.file,
    line,
    column,
    `an unrendered Go template ({{ ... }}): render it first, e.g. with helm template ` +
      `(yaml: ${error.reason} at line ${String(error.line)})`,
    error.format,
  );
}
