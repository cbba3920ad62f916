// Decides what a parsed manifest document is to the migration and reads the values it needs,
// refusing (with file and line) anything it could not rewrite without guessing.
import { unknownApiVersion } from '../schema/api-versions.ts';
import { MigrationError } from './migrate-error.ts';
import {
  BUILD_NUDGES_REF,
  COMPONENT_API_VERSION,
  NUDGER_NUDGE_CONFIG_API_VERSION,
  UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION,
  UPSTREAM_NUDGE_CONFIG_API_VERSION,
  type DocRole,
  type Locator,
  type MigrationEntry,
} from './migrate-model.ts';

const KUSTOMIZATION_FILE_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The directory part of a `/`-separated path, without the trailing slash ('' for the top). */
export function dirName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

export function joinPath(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** Resolves `.` and `..` in a `/`-separated relative path (pure: no file system). */
export function normalizePath(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length > 0 && out.at(-1) !== '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

export function kustomizationPaths(dir: string): string[] {
  return KUSTOMIZATION_FILE_NAMES.map((name) => joinPath(dir, name));
}

export function isKustomizationPath(path: string): boolean {
  return (KUSTOMIZATION_FILE_NAMES as readonly string[]).includes(baseName(path));
}

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(value: unknown, key: string): unknown {
  return isPlainObject(value) ? value[key] : undefined;
}

export function classifyDocument(value: unknown, file: string, locate: Locator): DocRole {
  if (isKustomizationPath(file)) {
    return isPlainObject(value) ? { kind: 'kustomization', resources: value.resources, value } : { kind: 'other' };
  }
  if (!isPlainObject(value)) return { kind: 'other' };
  const { apiVersion, kind } = value;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return { kind: 'other' };
  if (kind === 'Component' && apiVersion === COMPONENT_API_VERSION) return readComponent(value, file, locate);
  if (kind === 'NudgeConfig' && apiVersion === NUDGER_NUDGE_CONFIG_API_VERSION) {
    return readNudgeConfig(value, 'nudger', file, locate);
  }
  if (
    kind === 'NudgeConfig' &&
    (apiVersion === UPSTREAM_NUDGE_CONFIG_API_VERSION || apiVersion === UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION)
  ) {
    return readNudgeConfig(value, 'upstream-v1beta2', file, locate);
  }
  const known = migratedKindInUnknownVersion(kind, apiVersion);
  if (known !== undefined) {
    const namespace = field(value.metadata, 'namespace');
    return {
      kind: 'unknown-version',
      objectKind: kind,
      apiVersion,
      known,
      // Read leniently: the object is not migrated, only reported, and a malformed namespace
      // reads as unset (the namespace a kustomization may still give it).
      namespace: typeof namespace === 'string' ? namespace : '',
      name: readName(value),
    };
  }
  if (kind.endsWith('List')) refuseListedSources(value, file, locate);
  return { kind: 'other' };
}

/**
 * The versions nudger reads, for a Component or NudgeConfig of nudger's groups in any other
 * apiVersion (validate's unknown-api-version rule, src/schema/api-versions.ts); else undefined.
 * ChangeGroups, which that rule also covers, hold no edges and the migration reads none in any
 * version, so they are none of its business.
 */
function migratedKindInUnknownVersion(kind: unknown, apiVersion: unknown): readonly string[] | undefined {
  return kind === 'Component' || kind === 'NudgeConfig' ? unknownApiVersion(kind, apiVersion) : undefined;
}

// A `List` would need its items rewritten inside one document; no GitOps tree we know of keeps
// Components that way, so the migration asks for them to be split rather than guessing. Typed
// lists (`ComponentList`) may leave `kind` off their items, and lists may nest.
function refuseListedSources(
  list: Plain,
  file: string,
  locate: Locator,
  path: readonly (string | number)[] = [],
): void {
  const listKind = typeof list.kind === 'string' ? list.kind : '';
  const impliedKind = listKind === 'List' ? undefined : listKind.slice(0, -'List'.length);
  const items = Array.isArray(list.items) ? (list.items as unknown[]) : [];
  items.forEach((item, index) => {
    if (!isPlainObject(item)) return;
    const here = [...path, 'items', index];
    const kind = typeof item.kind === 'string' ? item.kind : impliedKind;
    if (kind?.endsWith('List')) {
      refuseListedSources(item, file, locate, here);
      return;
    }
    const spec = item.spec;
    const hasNudgesRef = kind === 'Component' && isPlainObject(spec) && BUILD_NUDGES_REF in spec;
    // An item in a version nudger does not read is reported like a document of its own would be
    // (migrate-unknown-versions.ts), which needs it to be one.
    const unknownVersion = migratedKindInUnknownVersion(kind, item.apiVersion) !== undefined;
    if (hasNudgesRef || kind === 'NudgeConfig' || unknownVersion) {
      const version = unknownVersion ? ` of apiVersion ${JSON.stringify(item.apiVersion)}` : '';
      throw new MigrationError(
        file,
        `${here.join('.')} is a ${kind ?? ''}${version} inside a List; split the List into separate documents and rerun`,
        locate(here),
      );
    }
  });
}

function readNamespace(value: Plain, file: string, locate: Locator): string {
  const namespace = field(value.metadata, 'namespace');
  if (namespace === undefined || namespace === null) return '';
  if (typeof namespace !== 'string') {
    throw new MigrationError(file, 'metadata.namespace must be a string', locate(['metadata', 'namespace']));
  }
  return namespace;
}

function readName(value: Plain): string | undefined {
  const name = field(value.metadata, 'name');
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function readComponent(value: Plain, file: string, locate: Locator): DocRole {
  const namespace = readNamespace(value, file, locate);
  const name = readName(value);
  const spec = value.spec;
  if (!isPlainObject(spec) || !(BUILD_NUDGES_REF in spec)) {
    return { kind: 'component', namespace, name, nudgesRef: undefined };
  }
  const raw = spec[BUILD_NUDGES_REF];
  const where = ['spec', BUILD_NUDGES_REF];
  // Kubernetes treats an explicit null like an absent list.
  if (raw === null) return { kind: 'component', namespace, name, nudgesRef: [] };
  if (!Array.isArray(raw)) {
    throw new MigrationError(
      file,
      `Component spec.${BUILD_NUDGES_REF} must be a list of component names`,
      locate(where),
    );
  }
  const refs = raw.map((item: unknown, index) => {
    if (typeof item !== 'string' || item === '') {
      throw new MigrationError(
        file,
        `Component spec.${BUILD_NUDGES_REF}[${String(index)}] must be a non-empty string (a component name)`,
        locate([...where, index]),
      );
    }
    return item;
  });
  if (refs.length > 0 && name === undefined) {
    throw new MigrationError(
      file,
      `Component has spec.${BUILD_NUDGES_REF} but no metadata.name, so its edges have no source`,
      locate(['metadata']) ?? locate(where),
    );
  }
  return { kind: 'component', namespace, name, nudgesRef: refs };
}

function readNudgeConfig(value: Plain, flavour: 'nudger' | 'upstream-v1beta2', file: string, locate: Locator): DocRole {
  const namespace = readNamespace(value, file, locate);
  const spec = value.spec;
  let nudges: unknown = undefined;
  if (spec !== undefined && spec !== null) {
    if (!isPlainObject(spec)) throw new MigrationError(file, 'NudgeConfig spec must be a mapping', locate(['spec']));
    nudges = spec.nudges;
  }
  if (nudges !== undefined && nudges !== null && !Array.isArray(nudges)) {
    throw new MigrationError(file, 'NudgeConfig spec.nudges must be a list', locate(['spec', 'nudges']));
  }
  const entries = (nudges ?? []).map((item: unknown, index) =>
    readEntry(item, file, locate(['spec', 'nudges', index])),
  );
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
  return { kind: 'nudge-config', flavour, apiVersion, namespace, name: readName(value), entries };
}

function readEntry(item: unknown, file: string, line: number | undefined): MigrationEntry {
  const from = field(item, 'from');
  const to = field(item, 'to');
  const mode = field(item, 'mode');
  const gatingGroup = field(item, 'gatingGroup');
  if (typeof from !== 'string' || from === '' || typeof to !== 'string' || to === '') {
    throw new MigrationError(file, 'NudgeConfig spec.nudges entry needs string from and to', line);
  }
  if (
    (mode !== undefined && typeof mode !== 'string') ||
    (gatingGroup !== undefined && typeof gatingGroup !== 'string')
  ) {
    throw new MigrationError(file, 'NudgeConfig spec.nudges entry has a non-string mode or gatingGroup', line);
  }
  return {
    from,
    to,
    ...(mode === undefined ? {} : { mode }),
    ...(gatingGroup === undefined ? {} : { gatingGroup }),
  };
}
