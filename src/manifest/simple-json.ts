// validate's view of the fast JSON reader (src/domain/simple-json.ts, shared with `migrate`): its
// document with its positions as a SourceTree.
import { simpleJsonDocument } from '../domain/simple-json.ts';
import { PositionTree } from './position-tree.ts';
import type { SourceDocument } from './source-tree.ts';

export { looksLikeJson } from '../domain/simple-json.ts';

/** The single document of a JSON text, or undefined when it is not strict JSON. */
export function parseSimpleJson(file: string, text: string): SourceDocument[] | undefined {
  const document = simpleJsonDocument(text);
  return document === undefined
    ? undefined
    : [{ file, value: document.value, tree: new PositionTree(file, document.position) }];
}
