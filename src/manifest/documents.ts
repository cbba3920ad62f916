// Text to documents. Two fast paths (strict JSON, plain block YAML) cover nearly every real
// manifest; whatever they decline goes to the full `yaml` parser, which also reports all errors.
import { looksLikeJson, parseSimpleJson } from './simple-json.ts';
import { parseSimpleYaml } from './simple-yaml.ts';
import type { SourceDocument } from './source-tree.ts';
import { parseYamlDocuments } from './yaml-source.ts';

/** Every non-empty document of a file. Throws ManifestSyntaxError for malformed YAML or JSON. */
export function parseDocuments(file: string, text: string): SourceDocument[] {
  const fast = looksLikeJson(text) ? parseSimpleJson(file, text) : parseSimpleYaml(file, text);
  return fast ?? parseYamlDocuments(file, text);
}
