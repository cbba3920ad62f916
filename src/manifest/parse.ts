// Manifest text in, domain model out. Pure: the file-system adapter supplies the text.
import {
  UNSET_NAMESPACE,
  formatRef,
  type ComponentObject,
  type LocatedName,
  type ManifestIssue,
  type ManifestSet,
  type NudgeConfigFlavour,
  type NudgeConfigObject,
  type NudgeEntry,
  type ObjectRef,
  type SourceLocation,
} from '../domain/model.ts';
import { BUILD_NUDGES_REF, COMPONENT_API_VERSION, COMPONENT_KIND } from '../schema/component.ts';
import { NUDGE_CONFIG_API_VERSION, NUDGE_CONFIG_KIND } from '../schema/nudgeconfig.ts';
import { unknownApiVersion } from '../schema/api-versions.ts';
import {
  UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION,
  UPSTREAM_NUDGE_CONFIG_API_VERSION,
} from '../schema/upstream-nudgeconfig.ts';
import {
  validateComponentManifest,
  validateNudgeConfigManifest,
  type SchemaProblem,
} from '../domain/schema-validation.ts';
import { objectsOf, type RawObject } from './objects.ts';
import { isRecord } from '../domain/records.ts';
import type { FieldPath, SourceTree } from './source-tree.ts';
import { readDocumentsOrSkip } from './unreadable-files.ts';

/** One input: a path as the user named it (`-` for stdin) and its whole text. */
export interface ManifestFile {
  readonly path: string;
  readonly text: string;
}

const NUDGE_CONFIG_FLAVOURS: Readonly<Record<string, NudgeConfigFlavour>> = {
  [NUDGE_CONFIG_API_VERSION]: 'nudger',
  [UPSTREAM_NUDGE_CONFIG_API_VERSION]: 'upstream-v1beta2',
  [UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION]: 'upstream-konflux-v1beta2',
};

/**
 * Every Component and NudgeConfig in `files`, in input order, plus schema-level issues. Other kinds
 * are skipped. Throws ManifestSyntaxError at the first file that is not well-formed YAML or JSON and
 * may hold a kind nudger reads; other such files are skipped with an `unreadable-file` warning.
 */
export function parseManifestSet(files: readonly ManifestFile[]): ManifestSet {
  const reader = new ManifestReader();
  for (const file of files) {
    // One document at a time, and a file nudger has no use for is skipped with a warning.
    const skipped = readDocumentsOrSkip(file.path, file.text, (doc) => {
      for (const raw of objectsOf(doc)) reader.read(raw);
    });
    if (skipped !== undefined) reader.issues.push(skipped);
  }
  return { components: reader.components, nudgeConfigs: reader.nudgeConfigs, issues: reader.issues };
}

/** An object that did not come from a file: an admission request's object, or one read from the API. */
export interface InMemoryObject {
  readonly value: unknown;
  /** Stands where a file name would in locations, e.g. `admission request 3f2a…`. */
  readonly origin: string;
}

/**
 * The same reading as parseManifestSet for objects already decoded (no text, so no lines):
 * findings then name the object and the field path instead of a line.
 */
export function manifestSetFromObjects(objects: readonly InMemoryObject[]): ManifestSet {
  const reader = new ManifestReader();
  for (const { value, origin } of objects) {
    const tree = new LinelessTree({ file: origin }, value);
    for (const raw of objectsOf({ file: origin, value, tree })) reader.read(raw);
  }
  return { components: reader.components, nudgeConfigs: reader.nudgeConfigs, issues: reader.issues };
}

/** A SourceTree without positions that mirrors the value's shape; every part is located at its origin. */
class LinelessTree implements SourceTree {
  readonly #location: SourceLocation;
  readonly #value: unknown;
  constructor(location: SourceLocation, value: unknown) {
    this.#location = location;
    this.#value = value;
  }
  location(): SourceLocation {
    return this.#location;
  }
  isMapping(): boolean {
    return isRecord(this.#value);
  }
  fieldLocation(): SourceLocation {
    return this.#location;
  }
  child(path: FieldPath): SourceTree | undefined {
    let value: unknown = this.#value;
    for (const segment of path) {
      if (Array.isArray(value) && typeof segment === 'number') value = value[segment];
      else if (isRecord(value) && typeof segment === 'string' && Object.hasOwn(value, segment)) value = value[segment];
      else return undefined;
    }
    return new LinelessTree(this.#location, value);
  }
  items(): readonly SourceTree[] {
    return Array.isArray(this.#value) ? this.#value.map((item: unknown) => new LinelessTree(this.#location, item)) : [];
  }
}

class ManifestReader {
  readonly components: ComponentObject[] = [];
  readonly nudgeConfigs: NudgeConfigObject[] = [];
  readonly issues: ManifestIssue[] = [];

  read(raw: RawObject): void {
    const { kind, apiVersion } = raw.value;
    if (kind === COMPONENT_KIND && apiVersion === COMPONENT_API_VERSION) {
      this.readComponent(raw);
    } else if (
      kind === NUDGE_CONFIG_KIND &&
      typeof apiVersion === 'string' &&
      Object.hasOwn(NUDGE_CONFIG_FLAVOURS, apiVersion)
    ) {
      this.readNudgeConfig(raw, NUDGE_CONFIG_FLAVOURS[apiVersion] ?? 'nudger');
    } else if ((kind === COMPONENT_KIND || kind === NUDGE_CONFIG_KIND) && apiVersion === undefined) {
      // Without an apiVersion kubectl refuses the object; with an unknown one it is another API's
      // kind of the same name and none of our business.
      this.report(raw, refOf(raw.value, kind), {
        rule: 'invalid-field',
        severity: 'error',
        path: ['apiVersion'],
        at: [],
        message: 'apiVersion: required field is missing',
      });
    } else {
      this.reportUnknownVersion(raw, kind, apiVersion);
    }
  }

  /** A kind nudger reads, in its group, in a version it does not: skipped, but never in silence. */
  private reportUnknownVersion(raw: RawObject, kind: unknown, apiVersion: unknown): void {
    const known = unknownApiVersion(kind, apiVersion);
    if (known === undefined || typeof kind !== 'string') return;
    this.report(raw, refOf(raw.value, kind), {
      rule: 'unknown-api-version',
      severity: 'warning',
      path: ['apiVersion'],
      at: ['apiVersion'],
      message: `apiVersion ${JSON.stringify(apiVersion)}: not a version nudger reads (it reads ${known.join(', ')}); the object is skipped, so its nudges are neither checked nor followed`,
    });
  }

  private readComponent(raw: RawObject): void {
    const ref = refOf(raw.value, COMPONENT_KIND);
    for (const problem of validateComponentManifest(raw.value)) this.report(raw, ref, problem);
    // A nameless object cannot be referred to; it has been reported and is left out of the model.
    if (ref.name === '') return;
    const spec = recordAt(raw.value, 'spec');
    const status = recordAt(raw.value, 'status');
    const containerImage = spec?.containerImage;
    const lastPromotedImage = status?.lastPromotedImage;
    this.components.push({
      ref,
      location: raw.tree.location(),
      ...(typeof containerImage === 'string' && { containerImage }),
      ...(typeof lastPromotedImage === 'string' && { lastPromotedImage }),
      buildNudgesRef: buildNudgesRefOf(raw, spec),
    });
  }

  private readNudgeConfig(raw: RawObject, flavour: NudgeConfigFlavour): void {
    const ref = refOf(raw.value, NUDGE_CONFIG_KIND);
    for (const problem of validateNudgeConfigManifest(raw.value, flavour)) this.report(raw, ref, problem);
    if (ref.name === '') return;
    this.nudgeConfigs.push({
      ref,
      flavour,
      location: raw.tree.location(),
      entries: entriesOf(raw),
    });
  }

  private report(raw: RawObject, ref: ObjectRef, problem: SchemaProblem): void {
    this.issues.push({
      rule: problem.rule,
      severity: problem.severity,
      message: `${describeRef(ref)} ${problem.message}`,
      object: ref,
      location: raw.tree.fieldLocation(problem.at),
    });
  }
}

function refOf(value: Record<string, unknown>, kind: string): ObjectRef {
  const metadata = recordAt(value, 'metadata');
  const name = metadata?.name;
  const namespace = metadata?.namespace;
  return {
    kind,
    namespace: typeof namespace === 'string' ? namespace : UNSET_NAMESPACE,
    name: typeof name === 'string' ? name : '',
  };
}

function describeRef(ref: ObjectRef): string {
  return ref.name === '' ? formatRef({ ...ref, name: '(unnamed)' }) : formatRef(ref);
}

function recordAt(value: Record<string, unknown>, field: string): Record<string, unknown> | undefined {
  const child = value[field];
  return isRecord(child) ? child : undefined;
}

function buildNudgesRefOf(raw: RawObject, spec: Record<string, unknown> | undefined): LocatedName[] {
  const names = spec?.[BUILD_NUDGES_REF];
  if (!Array.isArray(names)) return [];
  const itemTrees = raw.tree.child(['spec', BUILD_NUDGES_REF])?.items() ?? [];
  const located: LocatedName[] = [];
  names.forEach((name: unknown, index) => {
    // Non-strings were reported as invalid-field by the schema check.
    if (typeof name === 'string') located.push({ name, location: (itemTrees[index] ?? raw.tree).location() });
  });
  return located;
}

/**
 * Every entry with string `from` and `to`, valid or not, so that the domain rules see the same
 * edges the author wrote. Entries without them were reported and cannot be edges.
 */
function entriesOf(raw: RawObject): NudgeEntry[] {
  const nudges = recordAt(raw.value, 'spec')?.nudges;
  if (!Array.isArray(nudges)) return [];
  const itemTrees = raw.tree.child(['spec', 'nudges'])?.items() ?? [];
  const entries: NudgeEntry[] = [];
  nudges.forEach((item: unknown, index) => {
    if (!isRecord(item)) return;
    const { from, to, mode, gatingGroup } = item;
    if (typeof from !== 'string' || typeof to !== 'string') return;
    entries.push({
      index,
      from,
      to,
      ...(typeof mode === 'string' && { mode }),
      ...(typeof gatingGroup === 'string' && { gatingGroup }),
      location: (itemTrees[index] ?? raw.tree).location(),
    });
  });
  return entries;
}
