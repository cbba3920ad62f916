// Synthetic GitOps inputs for the benchmarks: deterministic (seeded) so that runs are comparable.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A small, fast, seeded PRNG (mulberry32): benchmarks must see the same graph every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function componentYaml(name: string, namespace: string): string {
  return `apiVersion: appstudio.redhat.com/v1alpha1
kind: Component
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  application: bench-app
  componentName: ${name}
  containerImage: quay.io/redhat-user-workloads/${namespace}/${name}
  source:
    git:
      url: https://github.com/example/${name}
      revision: main
`;
}

/** `count` edges over `nodes` components, acyclic by construction (edges go from lower to higher index). */
export function randomDagEdges(nodes: number, count: number, random: () => number): [number, number][] {
  const edges = new Set<string>();
  const out: [number, number][] = [];
  while (out.length < count) {
    const a = Math.floor(random() * nodes);
    const b = Math.floor(random() * nodes);
    if (a === b) continue;
    const [from, to] = a < b ? [a, b] : [b, a];
    const key = `${String(from)}>${String(to)}`;
    if (edges.has(key)) continue;
    edges.add(key);
    out.push([from, to]);
  }
  return out;
}

export function componentName(index: number): string {
  return `component-${String(index).padStart(5, '0')}`;
}

export function nudgeConfigYaml(namespace: string, edges: readonly [number, number][]): string {
  const lines = [
    'apiVersion: konflux-ci.dev/v1alpha1',
    'kind: NudgeConfig',
    'metadata:',
    '  name: nudge-config',
    `  namespace: ${namespace}`,
    'spec:',
    '  nudges:',
  ];
  for (const [from, to] of edges) lines.push(`    - from: ${componentName(from)}`, `      to: ${componentName(to)}`);
  return `${lines.join('\n')}\n`;
}

/** A GitOps tree: one file per Component plus one NudgeConfig. Returns the directory. */
export async function writeGitopsTree(
  dir: string,
  components: number,
  edges: readonly [number, number][],
): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'components'), { recursive: true });
  const namespace = 'bench-tenant';
  for (let i = 0; i < components; i += 1) {
    await writeFile(join(dir, 'components', `${componentName(i)}.yaml`), componentYaml(componentName(i), namespace));
  }
  await writeFile(join(dir, 'nudge-config.yaml'), nudgeConfigYaml(namespace, edges));
  return dir;
}

/** Components per namespace in writeMigrationInput: one chain of nudges each, under 5,000 entries. */
const MIGRATION_CHAIN = 1000;

/**
 * One file of Components, each with spec.build-nudges-ref, of about `bytes` bytes, plus a
 * kustomization that lists it: what `nudger migrate` rewrites in full. Each namespace's Components
 * nudge the next one along a chain (no cycle, every name exists). Returns the file's size.
 */
export async function writeMigrationInput(dir: string, bytes: number): Promise<number> {
  const doc = (index: number, count: number): string => {
    const name = componentName(index);
    const next = index + 1 < count && (index + 1) % MIGRATION_CHAIN !== 0 ? componentName(index + 1) : undefined;
    const refs = next === undefined ? '  build-nudges-ref: []\n' : `  build-nudges-ref:\n    - ${next}\n`;
    const namespace = `bench-tenant-${String(Math.floor(index / MIGRATION_CHAIN)).padStart(3, '0')}`;
    return componentYaml(name, namespace).replace('spec:\n', `spec:\n${refs}`);
  };
  const count = Math.max(1, Math.round(bytes / (doc(0, 2).length + 4)));
  const text = Array.from({ length: count }, (_, index) => doc(index, count)).join('---\n');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'components.yaml'), text);
  await writeFile(
    join(dir, 'kustomization.yaml'),
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - components.yaml\n',
  );
  return text.length;
}
