// `nudger migrate --cluster`: ADR 67's one-time migration on a live cluster. Reads every
// Component's `build-nudges-ref`, and per namespace creates or merges `nudge-config` (mode
// `immediate`). A dry run unless --apply. Each namespace's result is validated with the same rules
// the admission webhook applies, so a graph the webhook would refuse (a cycle) is reported, not sent.
import { loadKubeConfig } from '../../adapters/kubernetes/kubeconfig.ts';
import { KubeClient } from '../../adapters/kubernetes/client.ts';
import { isConflict, isNotFound } from '../../adapters/kubernetes/errors.ts';
import { COMPONENTS, NUDGE_CONFIGS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { planNamespaceMigration } from '../../domain/cluster-migration.ts';
import { decodeComponent, decodeNudgeConfig, type DecodeProblem } from '../../domain/cluster-objects.ts';
import { formatObjectKey } from '../../domain/object-key.ts';
import { namespaceNudgeGraph } from '../../cluster/nudge-graph.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import { validateManifestSet } from '../../domain/validate.ts';
import { manifestSetFromObjects } from '../../manifest/parse.ts';
import { NUDGE_CONFIG_API_VERSION, NUDGE_CONFIG_KIND, type ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import { EXIT_FINDINGS, EXIT_OK } from '../errors.ts';
import { plural } from '../format/findings.ts';
import { type CliIo, type OutputFormat, writeJson, writeLine } from '../io.ts';
import { compareStrings } from '../../domain/compare.ts';

export interface ClusterMigrateOptions {
  readonly kubeconfig?: string;
  readonly namespace?: string;
  readonly apply: boolean;
  readonly output: OutputFormat;
}

type Action = 'create' | 'merge' | 'unchanged' | 'invalid';

/** What happened (or would) in one namespace; also the JSON report's `namespaces` entries. */
export interface NamespaceOutcome {
  namespace: string;
  action: Action;
  added: { from: string; to: string }[];
  entries: number;
  problems: string[];
  applied: boolean;
}

/** A namespace's Components as the API server holds them, and those nudger cannot read. */
interface NamespaceComponents {
  readonly components: ClusterComponent[];
  readonly unreadable: string[];
}

const MAX_CONFLICT_RETRIES = 5;

export async function clusterMigrateCommand(options: ClusterMigrateOptions, io: CliIo): Promise<number> {
  const loaded = loadKubeConfig(options.kubeconfig === undefined ? {} : { kubeconfigPath: options.kubeconfig });
  const client = new KubeClient(loaded.kubeConfig, { userAgent: 'nudger-migrate' });
  try {
    const byNamespace = await componentsByNamespace(client, options.namespace);
    const outcomes: NamespaceOutcome[] = [];
    for (const [namespace, read] of [...byNamespace].sort(([a], [b]) => compareStrings(a, b))) {
      outcomes.push(await migrateNamespace(client, namespace, read, options.apply));
    }
    reportClusterMigration(outcomes, options, io);
    return outcomes.some((o) => o.action === 'invalid') ? EXIT_FINDINGS : EXIT_OK;
  } finally {
    client.close();
  }
}

async function componentsByNamespace(
  client: KubeClient,
  namespace: string | undefined,
): Promise<Map<string, NamespaceComponents>> {
  const byNamespace = new Map<string, NamespaceComponents>();
  let continueToken: string | undefined;
  do {
    const page = await client.list<KubeObject>(COMPONENTS, {
      limit: 500,
      ...(namespace === undefined ? {} : { namespace }),
      ...(continueToken === undefined ? {} : { continue: continueToken }),
    });
    for (const item of page.items) {
      const ns = item.metadata?.namespace ?? '';
      let read = byNamespace.get(ns);
      if (read === undefined) byNamespace.set(ns, (read = { components: [], unreadable: [] }));
      // Decoded as the manager's informers decode them: one that cannot be read may hold edges,
      // so its namespace is not migrated (decodeProblems names it and its fields).
      const decoded = decodeComponent(item);
      if (decoded.ok) read.components.push(decoded.object);
      else read.unreadable.push(decodeProblems('Component', item, decoded.problems));
    }
    continueToken = page.continue === '' ? undefined : page.continue;
  } while (continueToken !== undefined);
  return byNamespace;
}

async function migrateNamespace(
  client: KubeClient,
  namespace: string,
  { components, unreadable }: NamespaceComponents,
  apply: boolean,
): Promise<NamespaceOutcome> {
  const invalid = (problems: string[]): NamespaceOutcome => ({
    namespace,
    action: 'invalid',
    added: [],
    entries: 0,
    problems,
    applied: false,
  });
  if (unreadable.length > 0) return invalid(unreadable);
  // The edges to move are the graph's build-nudges-ref edges, from the one graph derivation.
  const graph = namespaceNudgeGraph(namespace, { components });
  for (let attempt = 1; ; attempt += 1) {
    const read = await getNudgeConfig(client, namespace);
    if (read !== undefined && !read.ok) return invalid([read.problem]);
    const existing = read?.object;
    const plan = planNamespaceMigration(graph, existing?.spec?.nudges ?? []);
    const outcome: NamespaceOutcome = {
      namespace,
      action: plan.added.length === 0 ? 'unchanged' : existing === undefined ? 'create' : 'merge',
      added: plan.added.map(({ from, to }) => ({ from, to })),
      entries: plan.entries.length,
      problems: plan.skippedSelfNudges.map(
        (name) => `Component ${namespace}/${name} lists itself in build-nudges-ref; that entry is left out`,
      ),
      applied: false,
    };
    if (outcome.action === 'unchanged') return outcome;
    const desired: KubeObject & { spec: Record<string, unknown> } = {
      apiVersion: NUDGE_CONFIG_API_VERSION,
      kind: NUDGE_CONFIG_KIND,
      metadata: { ...(existing?.metadata ?? {}), name: NUDGE_CONFIG_NAME, namespace },
      spec: { ...(existing?.spec ?? {}), nudges: [...plan.entries] },
    };
    const errors = validateManifestSet(
      manifestSetFromObjects(
        [desired, ...components].map((value) => ({ value, origin: `cluster namespace ${namespace}` })),
      ),
    ).findings.filter((f) => f.severity === 'error');
    if (errors.length > 0)
      return {
        ...outcome,
        action: 'invalid',
        problems: [...outcome.problems, ...errors.map((f) => `[${f.rule}] ${f.message}`)],
      };
    if (!apply) return outcome;
    try {
      // The resourceVersion carried over from the read makes the update a compare-and-swap.
      if (existing === undefined) await client.create(NUDGE_CONFIGS, desired, { fieldManager: 'nudger-migrate' });
      else await client.replace(NUDGE_CONFIGS, desired, { fieldManager: 'nudger-migrate' });
      return { ...outcome, applied: true };
    } catch (error) {
      if (!isConflict(error) || attempt >= MAX_CONFLICT_RETRIES) throw error;
    }
  }
}

type NudgeConfigRead = { ok: true; object: ClusterNudgeConfig } | { ok: false; problem: string };

/** The namespace's NudgeConfig, decoded; undefined when it has none. */
async function getNudgeConfig(client: KubeClient, namespace: string): Promise<NudgeConfigRead | undefined> {
  let raw: KubeObject;
  try {
    raw = await client.get<KubeObject>(NUDGE_CONFIGS, namespace, NUDGE_CONFIG_NAME);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  const decoded = decodeNudgeConfig(raw);
  return decoded.ok
    ? { ok: true, object: decoded.object }
    : { ok: false, problem: decodeProblems(NUDGE_CONFIG_KIND, raw, decoded.problems) };
}

/** One line naming the object and each field nudger cannot read (values are never quoted). */
function decodeProblems(kind: string, object: KubeObject, problems: readonly DecodeProblem[]): string {
  const ref = formatObjectKey({ namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' });
  const fields = problems.map((p) => `${p.path}: ${p.message}`).join('; ');
  return `${kind} ${ref} cannot be read, so its namespace is not migrated: ${fields}`;
}

/**
 * JSON, or one line per namespace and per problem: names come from the cluster (build-nudges-ref
 * holds any string), and writeLine keeps each of them on its line, escaped.
 */
export function reportClusterMigration(
  outcomes: readonly NamespaceOutcome[],
  options: Pick<ClusterMigrateOptions, 'apply' | 'output'>,
  io: Pick<CliIo, 'stdout' | 'stderr'>,
): void {
  if (options.output === 'json') {
    writeJson(io.stdout, {
      applied: options.apply,
      edges: outcomes.reduce((n, o) => n + (o.action === 'invalid' ? 0 : o.added.length), 0),
      namespaces: outcomes,
    });
    return;
  }
  const verb = (o: NamespaceOutcome): string =>
    o.action === 'create' ? (o.applied ? 'created' : 'would create') : o.applied ? 'merged into' : 'would merge into';
  for (const o of outcomes) {
    if (o.action === 'unchanged')
      writeLine(
        io.stdout,
        `${o.namespace}: nothing to migrate (${plural(o.entries, 'entry', 'entries')} in ${NUDGE_CONFIG_NAME})`,
      );
    else if (o.action === 'invalid')
      writeLine(io.stdout, `${o.namespace}: NOT migrated, the resulting ${NUDGE_CONFIG_NAME} would be refused:`);
    else
      writeLine(
        io.stdout,
        `${o.namespace}: ${verb(o)} ${NUDGE_CONFIG_NAME}: ${o.added.map((e) => `${e.from} -> ${e.to}`).join(', ')}`,
      );
    for (const problem of o.problems) writeLine(io.stdout, `  ${problem}`);
  }
  if (!options.apply && outcomes.some((o) => o.action === 'create' || o.action === 'merge')) {
    writeLine(io.stderr, 'dry run: nothing was written; run again with --apply');
  }
}
