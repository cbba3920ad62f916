// Text to documents. Two fast paths (strict JSON, plain block YAML) cover nearly every real
// manifest; whatever they decline goes to the full `yaml` parser, which also reports all errors.
import { withLineFeeds } from '../domain/yaml-reader.ts';
import { looksLikeJson, parseSimpleJson } from './simple-json.ts';
import { simpleYamlDocuments } from './simple-yaml.ts';
import type { SourceDocument } from './source-tree.ts';
import { yamlDocuments } from './yaml-source.ts';

/** Every non-empty document of a file. Throws ManifestSyntaxError for malformed YAML or JSON. */
export function parseDocuments(file: string, text: string): SourceDocument[] {
  return [...streamDocuments(file, text)];
}

/**
 * parseDocuments one document at a time, so that a reader that keeps only what it extracts holds
 * one document's data and positions at a time, not a whole file's.
 */
export function* streamDocuments(file: string, text: string): Generator<SourceDocument> {
  // Line feeds for bare CRs and CRLFs, as the full reader reads them; CRLF files reach the fast
  // reader this way too.
  const normalized = withLineFeeds(text);
  if (looksLikeJson(normalized)) {
    yield* parseSimpleJson(file, normalized) ?? yamlDocuments(file, normalized);
    return;
  }
  const fast = simpleYamlDocuments(file, normalized);
  let read = 0;
  for (let step = fast.next(); ; step = fast.next()) {
    if (step.done === true) {
      if (step.value) return;
      break;
    }
    yield step.value;
    read++;
  }
  // The fast reader declined part-way: its documents so far are exactly yaml's first ones.
  for (const document of yamlDocuments(file, normalized)) {
    if (read > 0) read--;
    else yield document;
  }
}
