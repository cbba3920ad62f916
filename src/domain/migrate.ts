// Plans the GitOps side of ADR 67's migration: nudge edges move from each Component's
// `spec.build-nudges-ref` (and from integration-service's `appstudio.redhat.com/v1beta2`
// NudgeConfig) into one `konflux-ci.dev/v1alpha1` NudgeConfig per namespace. Pure: it takes file
// texts and returns new texts; the CLI does the reading and writing.
//
// Decisions, for the cases the design records leave open:
// - Target per namespace: the existing konflux-ci.dev NudgeConfig (the one named `nudge-config`
//   first, then the first by path); else the first v1beta2 NudgeConfig, converted in place (only
//   its apiVersion changes); else a new file beside the kustomization that lists most of the
//   namespace's Component files, and added to its `resources:` (so a GitOps sync applies it);
//   without such a kustomization, beside the first Component by path (and listed in that
//   directory's kustomization, if any).
// - Merging only appends, sorted by (from, to): an existing entry is never edited, and a pair
//   already present keeps its entry. When both a v1beta2 entry and build-nudges-ref name a pair,
//   the v1beta2 entry wins, because its mode/gatingGroup is the explicit choice.
// - Migration never writes a NudgeConfig that nudger's own validation rejects (one bad entry gets
//   the whole object denied on apply, and every edge of the namespace with it): the objects as they
//   would be written are judged by migrate-check.ts and the migration is refused, naming every
//   offending edge, unless `dropInvalid` allows dropping the edges that can never nudge anything.
//   Dropped edges are listed in the result; nothing is dropped in silence.
// - A v1beta2 document merged into another NudgeConfig is removed from its file. If nothing else
//   with content is left in that file, the file becomes an explained, empty `v1` List instead of
//   an empty text: every tool that reads the file (kubectl, kustomize, Argo CD) accepts an empty
//   List, while some reject a file with no object, and the file can be deleted by hand later.
// - `build-nudges-ref` is removed, also when empty or null. If `spec` becomes empty it is kept
//   as `spec: {}`, because Component requires spec.
// - Caveat worth knowing: upstream build-service already ignores build-nudges-ref in a namespace
//   that has a v1beta2 NudgeConfig, so migrating such a namespace revives those edges. That is
//   what "no edge is lost" means; review the generated entries in such namespaces.
import { Document, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { NUDGE_CONFIG_NAME } from './model.ts';
import {
  classifyDocument,
  dirName,
  isKustomizationPath,
  joinPath,
  kustomizationPaths,
  normalizePath,
} from './migrate-classify.ts';
import {
  MigrationRefusedError,
  checkPlannedNudgeConfigs,
  droppedEdges,
  type DroppedEdge,
  type EntrySource,
  type KnownComponent,
  type MigrationCheck,
  type Offence,
  type PlannedEntry,
  type PlannedNudgeConfig,
} from './migrate-check.ts';
import { MigrationError, UnsafeMigrationError } from './migrate-error.ts';
import { reportUnknownVersions, type UnknownVersionDoc } from './migrate-unknown-versions.ts';
import { mayHoldReadKind } from './read-kinds.ts';
import { SharedTargets, namespaceSetter, placeDocuments } from './migrate-namespaces.ts';
import { jsonLocator, parseJsonSource, renderJsonSource, type JsonSource } from './migrate-json.ts';
import {
  BUILD_NUDGES_REF,
  NUDGER_NUDGE_CONFIG_API_VERSION,
  entryKey,
  type DocOp,
  type DocRole,
  type Locator,
  type MigrationEntry,
} from './migrate-model.ts';
import {
  entryLines,
  entryNode,
  parseYamlSource,
  renderNewDocument,
  renderYamlSource,
  yamlLocator,
  yamlNameText,
  type RenderedText,
  type TextEdit,
  type YamlSource,
} from './migrate-yaml.ts';
import { formatObjectKey } from './object-key.ts';
import { compareStrings } from './compare.ts';

export { MigrationError, UnsafeMigrationError } from './migrate-error.ts';
export { MigrationRefusedError, type DroppedEdge } from './migrate-check.ts';

export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

export type FileChange = {
  readonly path: string;
  /** undefined for a file the migration creates. */
  readonly before: string | undefined;
  readonly after: string;
  /**
   * The edits of `before` that give `after`, in the order they are made (inSpliceOrder); undefined
   * for a file the migration creates. A dry run's diff is computed from them (diffing two whole
   * texts of a large file takes hours).
   */
  readonly edits?: readonly TextEdit[];
} & (
  | {
      /** When to replace this file relative to the others; see commitOrder. */
      readonly commitPhase: 0 | 1 | 3;
    }
  | {
      readonly commitPhase: 2;
      /**
       * The file's text with its gains made (and the entries `dropInvalid` drops removed) but
       * none of its losses, written in commitOrder's pass 1; `after` follows in pass 2.
       */
      readonly gainsOnly: string;
    }
);

/**
 * 0: only lists a file (a kustomization's resources); 1: gains nudge entries and loses none;
 * 2: gains and loses (written twice, see commitOrder); 3: only loses edges (Components, merged
 * v1beta2 documents).
 */
export type CommitPhase = 0 | 1 | 2 | 3;

/** One rename of a crash-safe write: `after` is the file's text once it is done. */
export interface CommitStep {
  readonly path: string;
  readonly after: string;
  /** 0: lists new files; 1: gains edges; 2: loses edges (see commitOrder). */
  readonly pass: CommitPass;
}

export type CommitPass = 0 | 1 | 2;

export interface MigrationResult {
  /** Distinct (namespace, from, to) edges that came from build-nudges-ref or a v1beta2 NudgeConfig. */
  readonly edges: number;
  /** One per namespace with something to migrate: the NudgeConfig file and its entry count after merging. */
  readonly nudgeConfigs: readonly { namespace: string; file: string; edges: number }[];
  /** `namespace/name` (`name` for an unset namespace) of every Component rewritten, sorted. */
  readonly componentsUpdated: readonly string[];
  /** Files whose text changes, sorted by path. */
  readonly changes: readonly FileChange[];
  /** Edges left out because `dropInvalid` was set and nudger's validation rejects them. */
  readonly dropped: readonly DroppedEdge[];
  /** Things a human should know that did not stop the migration. */
  readonly notes: readonly string[];
}

export interface MigrationOptions {
  /** File name for NudgeConfigs the migration creates. Default `nudge-config.yaml`. */
  readonly newFileName?: string;
  /**
   * Drop the edges nudger's validation rejects and that can never nudge anything (unknown or
   * invalid component names, self-nudges) instead of refusing. Never drops valid edges.
   */
  readonly dropInvalid?: boolean;
}

/**
 * The renames of a crash-safe write, in order. A crash between two renames must never leave an
 * edge declared nowhere (and a rerun must finish the job), so the write goes in three passes:
 * 0. kustomizations that list a new file: listing a file that does not exist yet breaks a build
 *    until the rerun, but loses nothing, and the rerun creates the same file;
 * 1. every file that gains edges, with its gains only: a file that also loses edges (phase 2) is
 *    written here without its losses;
 * 2. every file that loses edges, in its final text.
 * After pass 1 every edge is both in its NudgeConfig and in its source, so the losses of pass 2
 * are safe in any order, whichever files hold them.
 *
 * Ordering whole files cannot give that. If file F1 holds namespace A's Component (losing
 * build-nudges-ref) and namespace B's NudgeConfig (gaining entries), and F2 the reverse, each must
 * be replaced before the other: a crash between the two renames would lose edges that a rerun,
 * which reads only the files, could not recover. Refusing such a tree (split the files) would be
 * safe too, but writing a file twice costs one rename and refuses no tree, and it is safe by
 * construction, for any layout, rather than by a check of which file's edges land where that
 * could miss a case. Every intermediate text is one a run of the same plan would write anyway:
 * the rerun after a crash in pass 2 finds the gains made and makes only the losses.
 */
export function commitOrder(changes: readonly FileChange[]): CommitStep[] {
  const steps = changes.flatMap((change): CommitStep[] => {
    const { path, after } = change;
    switch (change.commitPhase) {
      case 0:
        return [{ path, after, pass: 0 }];
      case 1:
        return [{ path, after, pass: 1 }];
      case 2:
        return [
          { path, after: change.gainsOnly, pass: 1 },
          { path, after, pass: 2 },
        ];
      case 3:
        return [{ path, after, pass: 2 }];
    }
  });
  return steps.sort((a, b) => a.pass - b.pass || compareStrings(a.path, b.path));
}

const DEFAULT_NEW_FILE_NAME = 'nudge-config.yaml';
/** One object for the edit every migrated Component gets (tens of thousands of them). */
const REMOVE_BUILD_NUDGES_REF: DocOp = { kind: 'remove-build-nudges-ref' };

interface LoadedFile {
  readonly path: string;
  readonly text: string;
  readonly source:
    { readonly format: 'yaml'; readonly yaml: YamlSource } | { readonly format: 'json'; readonly json: JsonSource };
  readonly documents: readonly LoadedDocument[];
  /** Why a file that holds nothing to migrate was left unread: it is not YAML nudger can parse. */
  readonly skipped?: string;
}

interface LoadedDocument {
  readonly path: string;
  readonly index: number;
  readonly role: DocRole;
  readonly locate: Locator;
}

type ComponentDoc = LoadedDocument & { readonly role: Extract<DocRole, { kind: 'component' }> };
type NudgeConfigDoc = LoadedDocument & { readonly role: Extract<DocRole, { kind: 'nudge-config' }> };
const isUnknownVersionDoc = (doc: LoadedDocument): doc is LoadedDocument & UnknownVersionDoc =>
  doc.role.kind === 'unknown-version';

function isManifestPath(path: string): boolean {
  return /\.(ya?ml|json)$/i.test(path) || isKustomizationPath(path);
}

/**
 * A file that cannot be parsed but holds no Component, NudgeConfig or kustomization (a Helm
 * template, a CRD in go-yaml's dialect) has nothing to migrate: it is left as it is, with a note.
 */
function loadFile(file: SourceFile): LoadedFile {
  try {
    return loadParsedFile(file);
  } catch (error) {
    if (!(error instanceof MigrationError) || mayHoldReadKind(file.path, file.text)) throw error;
    const yaml = { path: file.path, text: file.text, documents: [] };
    return {
      path: file.path,
      text: file.text,
      source: { format: 'yaml', yaml },
      documents: [],
      skipped: error.message,
    };
  }
}

function loadParsedFile(file: SourceFile): LoadedFile {
  if (file.path.toLowerCase().endsWith('.json')) {
    const json = parseJsonSource(file.path, file.text);
    const locate = jsonLocator(json);
    const documents =
      json.value === undefined
        ? []
        : [{ path: file.path, index: 0, role: classifyDocument(json.value, file.path, locate), locate }];
    return { path: file.path, text: file.text, source: { format: 'json', json }, documents };
  }
  // One document at a time, through validate's reader; only small facts of each are kept, and
  // positions are read again from a document's own text when a message needs them.
  const { source: yaml, results: roles } = parseYamlSource(file.path, file.text, (value, locate) =>
    classifyDocument(value, file.path, locate),
  );
  const documents = roles.map((role, index) => ({ path: file.path, index, role, locate: yamlLocator(yaml, index) }));
  return { path: file.path, text: file.text, source: { format: 'yaml', yaml }, documents };
}

function byPathThenIndex(a: LoadedDocument, b: LoadedDocument): number {
  return compareStrings(a.path, b.path) || a.index - b.index;
}

function compareEntries(a: MigrationEntry, b: MigrationEntry): number {
  return compareStrings(a.from, b.from) || compareStrings(a.to, b.to);
}

function componentLabel(doc: ComponentDoc): string {
  const name = doc.role.name ?? `(unnamed Component in ${doc.path})`;
  return formatObjectKey({ namespace: doc.role.namespace, name });
}

/** Collects the operations for every document, then renders each touched file once. */
class Plan {
  private readonly ops = new Map<string, Map<number, DocOp[]>>();

  add(doc: LoadedDocument, op: DocOp): void {
    let byIndex = this.ops.get(doc.path);
    if (byIndex === undefined) this.ops.set(doc.path, (byIndex = new Map<number, DocOp[]>()));
    const list = byIndex.get(doc.index);
    if (list === undefined) byIndex.set(doc.index, [op]);
    // A document kustomize builds into several namespaces is planned once per namespace; its
    // file is edited once (SharedTargets refuses differing edits).
    else if (!list.some((existing) => JSON.stringify(existing) === JSON.stringify(op))) list.push(op);
  }

  /** See CommitPhase. */
  phase(path: string): CommitPhase {
    const passes = new Set<CommitPass>();
    for (const ops of this.ops.get(path)?.values() ?? []) for (const op of ops) passes.add(passOf(op));
    if (passes.has(2)) return passes.has(1) ? 2 : 3;
    return passes.has(1) ? 1 : 0;
  }

  /** The file's text with the edits of passes up to `lastPass` made (all of them by default). */
  render(file: LoadedFile, lastPass: CommitPass = 2): RenderedText {
    const all = this.ops.get(file.path);
    if (all === undefined) return { text: file.text, edits: [] };
    const byIndex = new Map([...all].map(([index, ops]) => [index, ops.filter((op) => passOf(op) <= lastPass)]));
    if (file.source.format === 'yaml') return renderYamlSource(file.source.yaml, byIndex);
    const text = renderJsonSource(file.source.json, byIndex.get(0) ?? []);
    return { text, edits: text === file.text ? [] : [{ start: 0, end: file.text.length, text }] };
  }
}

/**
 * The pass of commitOrder in which an edit may be made. Exhaustive over DocOp: a new kind of edit
 * must say whether it moves edges.
 */
function passOf(op: DocOp): CommitPass {
  switch (op.kind) {
    case 'append-resources':
      return 0;
    case 'append-nudges':
    case 'set-api-version':
      return 1;
    // The entries `dropInvalid` drops move nowhere (they are removed from every place that declares
    // them), so when they go does not matter; going with the gains, the NudgeConfig written in
    // pass 1 is already the one judged valid, not one that still holds them.
    case 'remove-nudges':
      return 1;
    case 'remove-build-nudges-ref':
    case 'remove-document':
      return 2;
  }
}

/**
 * Plans the migration of `files`. Throws MigrationError for input it cannot rewrite, and
 * MigrationRefusedError when a NudgeConfig it would write is one nudger's validation rejects
 * (unless `dropInvalid` can drop every offending edge).
 */
export function planMigration(files: readonly SourceFile[], options: MigrationOptions = {}): MigrationResult {
  const first = firstPlan(files, options);
  if ('result' in first) return first.result;
  const { offences } = first;
  const droppable = offences.filter((offence) => offence.droppable);
  if (options.dropInvalid !== true || droppable.length < offences.length) {
    throw new MigrationRefusedError(offences, options.dropInvalid === true);
  }
  // Dropping never adds an entry, so a second plan without those edges has no new offence; it is
  // judged again all the same, because writing a rejected object is what this exists to prevent.
  const drop = new Set(
    droppable.flatMap((offence) => offence.edges.map((edge) => dropKey(offence.namespace, edge.from, edge.to))),
  );
  const second = planOnce(files, options, drop);
  if (second.check.offences.length > 0) throw new MigrationRefusedError(second.check.offences, true);
  return { ...second.result, dropped: droppedEdges(droppable) };
}

/**
 * The plan without dropping anything, or only its offences: the texts of a plan that is refused,
 * or made again without the edges `dropInvalid` drops, are not kept while the second is made.
 */
function firstPlan(
  files: readonly SourceFile[],
  options: MigrationOptions,
): { readonly result: MigrationResult } | { readonly offences: readonly Offence[] } {
  const { result, check } = planOnce(files, options, new Set());
  return check.offences.length === 0 ? { result } : { offences: check.offences };
}

function planOnce(
  files: readonly SourceFile[],
  options: MigrationOptions,
  drop: ReadonlySet<string>,
): { result: MigrationResult; check: MigrationCheck } {
  const newFileName = options.newFileName ?? DEFAULT_NEW_FILE_NAME;
  if (newFileName === '' || newFileName.includes('/')) {
    throw new MigrationError(
      newFileName,
      'the new NudgeConfig file name must be a plain file name without a directory',
    );
  }
  const loaded = files
    .filter((file) => isManifestPath(file.path))
    .map(loadFile)
    .sort((a, b) => compareStrings(a.path, b.path));
  const byPath = new Map(loaded.map((file) => [file.path, file]));
  // Each Component and NudgeConfig in the namespace kustomize gives it, once per namespace;
  // refuses (UnsafeMigrationError) what cannot be migrated without mixing tenants or losing edges.
  const documents = placeDocuments(files, loaded.flatMap((file) => file.documents).sort(byPathThenIndex));
  const components = documents.filter((doc): doc is ComponentDoc => doc.role.kind === 'component');
  const nudgeConfigs = documents.filter((doc): doc is NudgeConfigDoc => doc.role.kind === 'nudge-config');
  const kustomizations = documents.flatMap((doc) =>
    doc.role.kind === 'kustomization' && Array.isArray(doc.role.resources)
      ? [{ path: doc.path, resources: doc.role.resources.filter((r): r is string => typeof r === 'string') }]
      : [],
  );

  const plan = new Plan();
  const takenPaths = new Set(files.map((file) => file.path));
  const newFiles: FileChange[] = [];
  const resourcesToAdd = new Map<string, string[]>();
  const summaries: { namespace: string; file: string; edges: number }[] = [];
  const updated = new Set<string>();
  const sharedTargets = new SharedTargets(nudgeConfigs);
  const judgement = new Judgement(
    components.flatMap((doc): KnownComponent[] =>
      doc.role.name === undefined ? [] : [{ namespace: doc.role.namespace, name: doc.role.name, file: doc.path }],
    ),
  );
  let edgeCount = 0;
  /** The namespaces whose files this migration rewrites. */
  const migrated = new Set<string>();

  const namespaces = [...new Set([...components, ...nudgeConfigs].map((doc) => doc.role.namespace))].sort();
  for (const namespace of namespaces) {
    const inNamespace = <T extends LoadedDocument & { readonly role: { readonly namespace: string } }>(
      docs: readonly T[],
    ) => docs.filter((doc) => doc.role.namespace === namespace);
    const namespaceComponents = inNamespace(components);
    const referring = namespaceComponents.filter((doc) => doc.role.nudgesRef !== undefined);
    const upstream = inNamespace(nudgeConfigs).filter((doc) => doc.role.flavour === 'upstream-v1beta2');
    const ours = inNamespace(nudgeConfigs).filter((doc) => doc.role.flavour === 'nudger');
    if (referring.length === 0 && upstream.length === 0) continue;
    migrated.add(namespace);

    const dropped = (entry: MigrationEntry): boolean => drop.has(dropKey(namespace, entry.from, entry.to));
    const sourceEntries = collectSourceEntries(upstream, referring, dropped);
    edgeCount += sourceEntries.size;
    for (const doc of referring) {
      plan.add(doc, REMOVE_BUILD_NUDGES_REF);
      updated.add(componentLabel(doc));
    }

    let target: NudgeConfigDoc | undefined = ours.find((doc) => doc.role.name === NUDGE_CONFIG_NAME) ?? ours[0];
    let toRemove = upstream;
    if (target === undefined && upstream[0] !== undefined) {
      target = upstream[0];
      toRemove = upstream.slice(1);
      plan.add(target, { kind: 'set-api-version', apiVersion: NUDGER_NUDGE_CONFIG_API_VERSION });
    }

    if (target === undefined) {
      if (sourceEntries.size === 0) continue;
      const entries = [...sourceEntries.values()].sort(compareEntries);
      // The new file must be built by whatever kustomization builds these Components, or a GitOps
      // sync would drop every migrated edge: place it beside that kustomization and list it there.
      // When a kustomization's namespace: placed them, it is the one: listed there, the new file
      // gets the same namespace from kustomize (so it is written without one, like the Components).
      const setter = namespaceSetter(namespaceComponents);
      const listing =
        setter ??
        kustomizationListing(
          namespaceComponents.map((doc) => doc.path),
          kustomizations,
        );
      const firstComponent = namespaceComponents[0];
      const dir =
        listing === undefined ? (firstComponent === undefined ? '' : dirName(firstComponent.path)) : dirName(listing);
      const fileName = chooseNewFileName(dir, newFileName, namespace, takenPaths);
      const path = joinPath(dir, fileName);
      takenPaths.add(path);
      newFiles.push({
        path,
        before: undefined,
        after: renderNewNudgeConfig(setter === undefined ? namespace : '', entries),
        commitPhase: 1,
      });
      summaries.push({ namespace, file: path, edges: entries.length });
      const sources = edgeSources([...upstream, ...referring]);
      judgement.judge({ namespace, name: NUDGE_CONFIG_NAME, file: path, entries: withSources(entries, sources) });
      const kustomization = listing ?? kustomizationPaths(dir).find((candidate) => byPath.has(candidate));
      if (kustomization !== undefined)
        resourcesToAdd.set(kustomization, [...(resourcesToAdd.get(kustomization) ?? []), fileName]);
      continue;
    }

    const existing = new Set(target.role.entries.map((entry) => entryKey(entry.from, entry.to)));
    const toAppend = [...sourceEntries.values()]
      .filter((entry) => !existing.has(entryKey(entry.from, entry.to)))
      .sort(compareEntries);
    const kept = target.role.entries.filter((entry) => !dropped(entry));
    if (kept.length < target.role.entries.length) {
      const indexes = target.role.entries.flatMap((entry, index) => (dropped(entry) ? [index] : []));
      plan.add(target, { kind: 'remove-nudges', indexes });
    }
    sharedTargets.claim(target, namespace, toAppend);
    if (toAppend.length > 0) plan.add(target, { kind: 'append-nudges', entries: toAppend });
    const sources = edgeSources([...(upstream.includes(target) ? [] : [target]), ...upstream, ...referring]);
    judgement.judge({
      namespace,
      name: target.role.name ?? '',
      file: target.path,
      entries: withSources([...kept, ...toAppend], sources),
    });
    for (const doc of toRemove) {
      const format = byPath.get(doc.path)?.source.format ?? 'yaml';
      plan.add(doc, {
        kind: 'remove-document',
        placeholder: migratedPlaceholder(format, namespace, target.path, doc.role.apiVersion),
      });
    }
    summaries.push({ namespace, file: target.path, edges: kept.length + toAppend.length });
  }

  sharedTargets.verify(nudgeConfigs);
  const unknownVersions = reportUnknownVersions(documents.filter(isUnknownVersionDoc), migrated);
  if (unknownVersions.problems.length > 0) {
    throw new UnsafeMigrationError(
      'refusing to migrate (nothing was written): objects in a version nudger does not read',
      unknownVersions.problems,
    );
  }

  for (const [path, names] of resourcesToAdd) {
    const file = byPath.get(path);
    const doc = file?.documents.find((candidate) => candidate.role.kind === 'kustomization');
    if (doc?.role.kind !== 'kustomization') continue;
    const resources = doc.role.resources;
    if (resources !== undefined && resources !== null && !Array.isArray(resources)) {
      throw new MigrationError(path, 'kustomization resources must be a list to add the new NudgeConfig to it');
    }
    const listed = new Set(Array.isArray(resources) ? resources : []);
    const missing = names.filter((name) => !listed.has(name));
    if (missing.length > 0) plan.add(doc, { kind: 'append-resources', names: missing });
  }

  const check = judgement.finish();

  const changes: FileChange[] = [...newFiles];
  for (const file of loaded) {
    const { text: after, edits } = plan.render(file);
    if (after === file.text) continue;
    const commitPhase = plan.phase(file.path);
    const change = { path: file.path, before: file.text, after, edits };
    changes.push(
      commitPhase === 2 ? { ...change, commitPhase, gainsOnly: plan.render(file, 1).text } : { ...change, commitPhase },
    );
  }
  changes.sort((a, b) => compareStrings(a.path, b.path));

  const notes = [
    ...loaded.flatMap((file) =>
      file.skipped === undefined
        ? []
        : [`skipped ${file.skipped} (it holds no Component, NudgeConfig or kustomization, so nothing to migrate)`],
    ),
    ...unknownVersions.notes,
    ...check.unjudged.map(
      (namespace) =>
        `the input holds no Component of ${namespace === '' ? 'the unset namespace' : `namespace ${namespace}`}, ` +
        'so whether the components its NudgeConfig names exist was not checked; pass the directories that hold them',
    ),
  ];
  const result = {
    edges: edgeCount,
    nudgeConfigs: summaries,
    componentsUpdated: [...updated].sort(),
    changes,
    dropped: [],
    notes,
  };
  return { result, check };
}

/**
 * The planned NudgeConfigs, judged one namespace at a time as they are planned: validation never
 * looks across namespaces, and namespaces are planned in order, so the offences come out as one
 * judgement of them all would sort them. Every edge's declarations are then held for one namespace
 * at a time, not for a whole migration of tens of thousands of Components (issue 8: memory bounded
 * by the input).
 */
class Judgement {
  readonly #known = new Map<string, KnownComponent[]>();
  readonly #offences: Offence[] = [];
  readonly #unjudged: string[] = [];

  constructor(known: readonly KnownComponent[]) {
    for (const component of known) {
      const list = this.#known.get(component.namespace);
      if (list === undefined) this.#known.set(component.namespace, [component]);
      else list.push(component);
    }
  }

  judge(config: PlannedNudgeConfig): void {
    const check = checkPlannedNudgeConfigs([config], this.#known.get(config.namespace) ?? []);
    this.#offences.push(...check.offences);
    this.#unjudged.push(...check.unjudged);
  }

  /** The offences, sorted; the Components judged against are let go (rendering needs none). */
  finish(): MigrationCheck {
    this.#known.clear();
    return { offences: this.#offences, unjudged: this.#unjudged };
  }
}

function dropKey(namespace: string, from: string, to: string): string {
  return JSON.stringify([namespace, from, to]);
}

/** Every declaration of each (from, to) pair in these documents of one namespace, in document order. */
function edgeSources(docs: readonly (ComponentDoc | NudgeConfigDoc)[]): Map<string, EntrySource[]> {
  const sources = new Map<string, EntrySource[]>();
  const add = (from: string, to: string, source: EntrySource): void => {
    const key = entryKey(from, to);
    const list = sources.get(key);
    if (list === undefined) sources.set(key, [source]);
    else list.push(source);
  };
  for (const doc of docs) {
    const { role, locate } = doc;
    if (role.kind === 'component') {
      const object = { kind: 'Component', namespace: role.namespace, name: role.name ?? '' };
      (role.nudgesRef ?? []).forEach((to, index) => {
        const path = ['spec', BUILD_NUDGES_REF, index];
        add(object.name, to, {
          file: doc.path,
          object,
          field: `spec.${BUILD_NUDGES_REF}[${String(index)}]`,
          line: () => locate(path),
        });
      });
    } else {
      const object = { kind: 'NudgeConfig', namespace: role.namespace, name: role.name ?? '' };
      role.entries.forEach((entry, index) => {
        const path = ['spec', 'nudges', index];
        add(entry.from, entry.to, {
          file: doc.path,
          object,
          field: `spec.nudges[${String(index)}]`,
          line: () => locate(path),
        });
      });
    }
  }
  return sources;
}

function withSources(entries: readonly MigrationEntry[], sources: ReadonlyMap<string, EntrySource[]>): PlannedEntry[] {
  return entries.map((entry) => ({ ...entry, sources: sources.get(entryKey(entry.from, entry.to)) ?? [] }));
}

/** Source edges of one namespace by (from, to); v1beta2 entries first so their mode wins. */
function collectSourceEntries(
  upstream: readonly NudgeConfigDoc[],
  referring: readonly ComponentDoc[],
  dropped: (entry: MigrationEntry) => boolean,
): Map<string, MigrationEntry> {
  const entries = new Map<string, MigrationEntry>();
  for (const doc of upstream) {
    for (const entry of doc.role.entries) {
      const key = entryKey(entry.from, entry.to);
      if (!entries.has(key) && !dropped(entry)) entries.set(key, entry);
    }
  }
  for (const doc of referring) {
    const from = doc.role.name;
    if (from === undefined) continue; // only possible with an empty list (classify refuses otherwise)
    for (const to of doc.role.nudgesRef ?? []) {
      const key = entryKey(from, to);
      // build-nudges-ref nudges right after the build: `immediate` keeps that behaviour.
      if (!entries.has(key) && !dropped({ from, to })) entries.set(key, { from, to, mode: 'immediate' });
    }
  }
  return entries;
}

function chooseNewFileName(dir: string, preferred: string, namespace: string, taken: ReadonlySet<string>): string {
  const dot = preferred.lastIndexOf('.');
  const stem = dot > 0 ? preferred.slice(0, dot) : preferred;
  const extension = dot > 0 ? preferred.slice(dot) : '';
  const candidates = [preferred, ...(namespace === '' ? [] : [`${stem}-${namespace}${extension}`])];
  for (const candidate of candidates) if (!taken.has(joinPath(dir, candidate))) return candidate;
  for (let n = 2; ; n++) {
    const candidate = `${stem}-${String(n)}${extension}`;
    if (!taken.has(joinPath(dir, candidate))) return candidate;
  }
}

const GENERATED_COMMENT = [
  " Generated by `nudger migrate` from the spec.build-nudges-ref lists of this namespace's",
  ' Components. mode: immediate keeps the behaviour build-nudges-ref had (ADR 67).',
];

export function renderNewNudgeConfig(namespace: string, entries: readonly MigrationEntry[]): string {
  // As text when every value is written plain: the Document API costs some 40 µs an entry, and a
  // migration may write tens of thousands. The text is what the Document API prints (tested).
  const values = entries.flatMap((entry) => [entry.from, entry.to, entry.mode ?? '', entry.gatingGroup ?? '']);
  const plain = [namespace, ...values].every((value) => value === '' || yamlNameText(value) === value);
  if (plain && entries.length > 0) {
    const lines = [
      ...GENERATED_COMMENT.map((line) => `#${line}`),
      '',
      `apiVersion: ${NUDGER_NUDGE_CONFIG_API_VERSION}`,
      'kind: NudgeConfig',
      'metadata:',
      `  name: ${NUDGE_CONFIG_NAME}`,
      ...(namespace === '' ? [] : [`  namespace: ${namespace}`]),
      'spec:',
      '  nudges:',
      ...entries.flatMap((entry) => entryLines(entry).map((line, i) => `${i === 0 ? '    - ' : '      '}${line}`)),
    ];
    return `${lines.join('\n')}\n`;
  }
  const metadata = new YAMLMap();
  metadata.items.push(new Pair(new Scalar('name'), new Scalar(NUDGE_CONFIG_NAME)));
  if (namespace !== '') metadata.items.push(new Pair(new Scalar('namespace'), scalarFor(namespace)));
  const nudges = new YAMLSeq();
  nudges.items.push(...entries.map(entryNode));
  const spec = new YAMLMap();
  spec.items.push(new Pair(new Scalar('nudges'), nudges));
  const root = new YAMLMap();
  root.items.push(
    new Pair(new Scalar('apiVersion'), new Scalar(NUDGER_NUDGE_CONFIG_API_VERSION)),
    new Pair(new Scalar('kind'), new Scalar('NudgeConfig')),
    new Pair(new Scalar('metadata'), metadata),
    new Pair(new Scalar('spec'), spec),
  );
  const doc = new Document(root);
  doc.commentBefore = GENERATED_COMMENT.join('\n');
  return renderNewDocument(doc);
}

function scalarFor(value: string): Scalar<string> {
  const node = new Scalar(value);
  if (yamlNameText(value) !== value) node.type = Scalar.QUOTE_DOUBLE;
  return node;
}

function migratedPlaceholder(format: 'yaml' | 'json', namespace: string, target: string, apiVersion: string): string {
  const list = { apiVersion: 'v1', kind: 'List', items: [] };
  if (format === 'json') return `${JSON.stringify(list, null, 2)}\n`;
  const where = namespace === '' ? 'its namespace' : `namespace ${namespace}`;
  return (
    `# This file held the ${apiVersion} NudgeConfig of ${where}.\n` +
    `# \`nudger migrate\` merged its entries into ${target}. The empty List keeps every tool that\n` +
    '# reads this file working; delete the file (and its kustomization entry) when convenient.\n' +
    'apiVersion: v1\nkind: List\nitems: []\n'
  );
}

/**
 * The kustomization (by path) that lists the most of these Component files as resources, ties
 * broken by path; undefined when none lists any.
 */
function kustomizationListing(
  componentPaths: readonly string[],
  kustomizations: readonly { path: string; resources: readonly string[] }[],
): string | undefined {
  const wanted = new Set(componentPaths.map(normalizePath));
  let best: { path: string; count: number } | undefined;
  for (const { path, resources } of kustomizations) {
    const count = resources.filter((r) => wanted.has(normalizePath(joinPath(dirName(path), r)))).length;
    if (count > 0 && (best === undefined || count > best.count || (count === best.count && path < best.path))) {
      best = { path, count };
    }
  }
  return best?.path;
}
