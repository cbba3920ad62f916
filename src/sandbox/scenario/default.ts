// The scenarios `nudger sandbox` plays when given none: the OLM operator of examples/olm-operator
// (30 components nudging one bundle), and a synthetic N-operands → 1-bundle graph for benchmarks.
// Pure: load.ts reads the example's files; everything here works on their texts.
import { MAX_NUDGING_COMPONENTS } from '../../domain/changegroup/model.ts';
import { parseDocuments } from '../../manifest/documents.ts';
import { isRecord } from '../../domain/records.ts';
import { COMPONENT_API_VERSION, COMPONENT_KIND } from '../../schema/component.ts';
import { buildNamespaceGraph, edgeKey } from '../../domain/graph.ts';
import type { NudgeEdge } from '../../domain/model.ts';
import { placeByKustomize } from '../../manifest/kustomize-placement.ts';
import { parseManifestSet } from '../../manifest/parse.ts';
import { initialDigest, syntheticDigest } from './objects.ts';
import { checkScenarioDocument } from './parse.ts';
import type {
  BuildStep,
  NudgedBy,
  Scenario,
  ScenarioChangeGroup,
  ScenarioComponent,
  ScenarioDocument,
} from './schema.ts';
import { compareStrings } from '../../domain/compare.ts';

/** One file of the example as read from disk. */
export interface ExampleFile {
  /** Relative to the example's directory, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

/** The texts the OLM operator scenario is made of. */
export interface OlmOperatorFiles {
  /** `kustomization.yaml`: its `namespace` is the scenario's. */
  readonly kustomization: ExampleFile;
  /** The Component manifests and the NudgeConfig (other kinds are ignored). */
  readonly manifests: readonly ExampleFile[];
  /** `bundle-repo/`, keyed by path inside that repository: the nudged component's files. */
  readonly bundleRepository: Readonly<Record<string, string>>;
}

export interface DefaultScenarioOptions {
  /** Seeds the build order and the choice of rebuilt components. Default 1. */
  readonly seed?: number;
  /** How many components are built a second time. Default 2. */
  readonly rebuilds?: number;
}

export const DEFAULT_SEED = 1;
export const DEFAULT_REBUILDS = 2;

/**
 * Every Component of the example, the namespace's nudge edges (NudgeConfig entries and
 * build-nudges-ref, by the one graph derivation) as `nudges`, the bundle repository as
 * the files of every nudged component, one ChangeGroup per nudged component (collecting every
 * component that nudges it), and steps: every nudging component built once in a seeded shuffled
 * order, with `rebuilds` of them built again before the last first build, so that with
 * ChangeGroups they are still collected rather than arriving after the final build.
 */
export function olmOperatorScenario(files: OlmOperatorFiles, options: DefaultScenarioOptions = {}): Scenario {
  const namespace = stringAt(firstDocument(files.kustomization), 'namespace') ?? 'sandbox';
  // The edges come from the one graph derivation, reading the files as `nudger graph` does
  // (kustomize places the namespace-less Components in the tenant's namespace).
  const inputs = [files.kustomization, ...files.manifests];
  const graph = buildNamespaceGraph(namespace, placeByKustomize(parseManifestSet(inputs), inputs));
  const edges = distinctEdges(graph.edges);
  const components: { name: string; image: string; application?: string; gitRevision?: string }[] = [];
  for (const file of files.manifests) {
    for (const doc of parseDocuments(file.path, file.text)) {
      const value = doc.value;
      if (!isRecord(value) || value.kind !== COMPONENT_KIND || value.apiVersion !== COMPONENT_API_VERSION) continue;
      const component = componentOf(value);
      if (component !== undefined) components.push(component);
    }
  }
  components.sort((a, b) => compareStrings(a.name, b.name));
  const nudged = new Set(edges.map((edge) => edge.to));
  const document: ScenarioDocument = {
    namespace,
    ...(components[0]?.application !== undefined && { application: components[0].application }),
    components: components.map(({ name, image, gitRevision }): ScenarioComponent => ({
      name,
      image,
      ...(gitRevision !== undefined && { gitRevision }),
      nudges: edges.filter((edge) => edge.from === name).map((edge) => edge.to),
      ...(nudged.has(name) && { files: { ...files.bundleRepository } }),
    })),
    changeGroups: [...nudged]
      .sort()
      .map((target): ScenarioChangeGroup => ({ name: `${target}-update`, nudgedComponent: target })),
    steps: buildSteps(
      components.filter((c) => edges.some((edge) => edge.from === c.name)).map((c) => c.name),
      options.seed ?? DEFAULT_SEED,
      options.rebuilds ?? DEFAULT_REBUILDS,
    ),
  };
  return checkScenarioDocument(document, 'examples/olm-operator');
}

/**
 * `n` operands (`operand-001`…) nudging one `bundle` whose `manifests/csv.yaml` pins all of them,
 * one ChangeGroup on the bundle, and every operand built once in a seeded order. For benchmarks:
 * the same (n, seed) always gives the same scenario. Nudged by the build-service stand-in unless
 * `nudgedBy` says otherwise, as bench/changegroups.ts measured its ChangeGroup figures.
 */
export function syntheticScenario(n: number, seed: number, options: { readonly nudgedBy?: NudgedBy } = {}): Scenario {
  if (!Number.isInteger(n) || n < 1 || n > MAX_NUDGING_COMPONENTS)
    throw new RangeError(
      `syntheticScenario: n must be an integer from 1 to ${String(MAX_NUDGING_COMPONENTS)}, got ${String(n)}`,
    );
  const width = Math.max(3, String(n).length);
  const operands = Array.from({ length: n }, (_, i) => {
    const name = `operand-${String(i + 1).padStart(width, '0')}`;
    return { name, image: `quay.io/nudger-sandbox/${name}` };
  });
  const related = operands.map((o) => `    - name: ${o.name}\n      image: ${o.image}@${initialDigest(o.image)}\n`);
  const document: ScenarioDocument = {
    namespace: 'synthetic',
    nudgedBy: options.nudgedBy ?? 'build-service',
    components: [
      ...operands.map((o) => ({ ...o, nudges: ['bundle'] })),
      {
        name: 'bundle',
        image: 'quay.io/nudger-sandbox/bundle',
        files: {
          'manifests/csv.yaml': `apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: synthetic.v0.0.1\nspec:\n  relatedImages:\n${related.join('')}`,
          Dockerfile: 'FROM scratch\nCOPY manifests /manifests/\n',
        },
      },
    ],
    changeGroups: [{ name: 'bundle-update', nudgedComponent: 'bundle' }],
    steps: buildSteps(
      operands.map((o) => o.name),
      seed,
      0,
    ),
  };
  return checkScenarioDocument(document, `syntheticScenario(${String(n)}, ${String(seed)})`);
}

/**
 * Each of `names` built once, in an order shuffled by `seed`; then `rebuilds` distinct ones of the
 * already-built built again, placed before the last first build. Every build has its own digest.
 */
export function buildSteps(names: readonly string[], seed: number, rebuilds: number): BuildStep[] {
  const random = mulberry32(seed);
  const order = shuffled(names, random);
  const last = order.pop();
  if (last === undefined) return [];
  const again = shuffled(order, random).slice(0, Math.max(0, rebuilds));
  const counts = new Map<string, number>();
  const step = (name: string): BuildStep => {
    const count = (counts.get(name) ?? 0) + 1;
    counts.set(name, count);
    return { build: name, digest: syntheticDigest(`build ${name} #${String(count)} seed ${String(seed)}`) };
  };
  return [...order.map(step), ...again.map(step), step(last)];
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** A small seeded PRNG: reproducible shuffles without a dependency. Not for anything secret. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function firstDocument(file: ExampleFile): unknown {
  return parseDocuments(file.path, file.text)[0]?.value;
}

function stringAt(value: unknown, ...path: string[]): string | undefined {
  let current = value;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return typeof current === 'string' ? current : undefined;
}

function componentOf(
  value: Record<string, unknown>,
): { name: string; image: string; application?: string; gitRevision?: string } | undefined {
  const name = stringAt(value, 'metadata', 'name');
  const image = stringAt(value, 'spec', 'containerImage');
  if (name === undefined || image === undefined) return undefined;
  const application = stringAt(value, 'spec', 'application');
  const gitRevision = stringAt(value, 'spec', 'source', 'git', 'revision');
  return {
    name,
    image,
    ...(application !== undefined && { application }),
    ...(gitRevision !== undefined && { gitRevision }),
  };
}

/** Each (from, to) pair once, in declaration order; the scenario has no use for modes or origins. */
function distinctEdges(edges: readonly NudgeEdge[]): { from: string; to: string }[] {
  const seen = new Set<string>();
  return edges.flatMap((edge) => {
    const key = edgeKey(edge);
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ from: edge.from, to: edge.to }];
  });
}
