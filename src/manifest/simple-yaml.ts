// validate's view of the fast YAML reader (src/domain/simple-yaml.ts, shared with `migrate`): its
// documents with their positions as a SourceTree.
import { simpleYamlDocuments as simpleDocuments } from '../domain/simple-yaml.ts';
import { PositionTree } from './position-tree.ts';
import type { SourceDocument } from './source-tree.ts';

/** The documents of `text`, or undefined when the file is not in the simple subset. */
export function parseSimpleYaml(file: string, text: string): SourceDocument[] | undefined {
  const documents: SourceDocument[] = [];
  const reader = simpleYamlDocuments(file, text);
  for (let step = reader.next(); ; step = reader.next()) {
    if (step.done === true) return step.value ? documents : undefined;
    documents.push(step.value);
  }
}

/**
 * The non-empty documents of `text` one at a time. Returns true when the whole file was read,
 * false when it declined: the documents yielded until then are exactly `yaml`'s first ones.
 */
export function* simpleYamlDocuments(file: string, text: string): Generator<SourceDocument, boolean> {
  const reader = simpleDocuments(text);
  for (let step = reader.next(); ; step = reader.next()) {
    if (step.done === true) return step.value;
    const region = step.value;
    if (region.kind === 'document') yield { file, value: region.value, tree: new PositionTree(file, region.position) };
  }
}
