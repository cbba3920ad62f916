// Validation findings for humans (text) and for machines (the JSON contract in docs/cli.md).
import { type Finding, type ManifestSet, formatLocation, formatRef } from '../../domain/model.ts';
import { terminalSafe } from './terminal-text.ts';

export interface FindingJson {
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  namespace?: string;
  object?: string;
  file?: string;
  line?: number;
  cycle?: string[];
}

export function findingToJson(finding: Finding): FindingJson {
  const json: FindingJson = { rule: finding.rule, severity: finding.severity, message: finding.message };
  if (finding.namespace !== undefined) json.namespace = finding.namespace;
  if (finding.object !== undefined) json.object = formatRef(finding.object);
  if (finding.location !== undefined) {
    json.file = finding.location.file;
    if (finding.location.line !== undefined) json.line = finding.location.line;
  }
  if (finding.cycle !== undefined) json.cycle = [...finding.cycle];
  return json;
}

/**
 * `file:line: error [rule] message`, the shape editors and CI log parsers pick up: always one line,
 * whatever the names in it hold.
 */
export function findingToText(finding: Finding): string {
  const where = finding.location === undefined ? '' : `${formatLocation(finding.location)}: `;
  return terminalSafe(`${where}${finding.severity} [${finding.rule}] ${finding.message}`);
}

export function summarize(set: ManifestSet, findings: readonly Finding[]): string {
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.length - errors;
  const namespaces = new Set([...set.components, ...set.nudgeConfigs].map((o) => o.ref.namespace)).size;
  const entries = set.nudgeConfigs.reduce((n, c) => n + c.entries.length, 0);
  const refs = set.components.reduce((n, c) => n + c.buildNudgesRef.length, 0);
  const read = `${plural(set.components.length, 'Component')}, ${plural(set.nudgeConfigs.length, 'NudgeConfig')} (${plural(entries, 'entry', 'entries')}), ${plural(refs, 'build-nudges-ref item')} in ${plural(namespaces, 'namespace')}`;
  const verdict = errors === 0 ? 'valid' : 'invalid';
  return `${verdict}: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}; read ${read}`;
}

export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${String(n)} ${n === 1 ? singular : pluralForm}`;
}
