// `nudger migrate --cluster`: ADR 67's one-time migration on a live cluster. Reads every
// Component's `build-nudges-ref`, and per namespace creates or merges `nudge-config` (mode
// `immediate`). A dry run unless --apply. Each namespace's result is validated with the same rules
// the admission webhook applies, so a graph the webhook would refuse (a cycle) is reported, not sent.
import { loadKubeConfig } from '../../adapters/kubernetes/kubeconfig.ts';
import { KubeClient } from '../../adapters/kubernetes/client.ts';
import { isConflict, isNotFound } from '../../adapters/kubernetes/errors.ts';
import { COMPONENTS, NUDGE_CONFIGS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { type MigrationEntry, planNamespaceMigration } from '../../domain/cluster-migration.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import { validateManifestSet } from '../../domain/validate.ts';
import { manifestSetFromObjects } from '../../manifest/parse.ts';
import { NUDGE_CONFIG_API_VERSION, NUDGE_CONFIG_KIND } from '../../schema/nudgeconfig.ts';
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

interface ComponentObject extends KubeObject {
  spec?: { 'build-nudges-ref'?: unknown };
}

interface NudgeConfigObject extends KubeObject {
  spec?: { nudges?: MigrationEntry[] };
}

const MAX_CONFLICT_RETRIES = 5;

export async function clusterMigrateCommand(options: ClusterMigrateOptions, io: CliIo): Promise<number> {
  const loaded = loadKubeConfig(options.kubeconfig === undefined ? {} : { kubeconfigPath: options.kubeconfig });
  const client = new KubeClient(loaded.kubeConfig, { userAgent: 'nudger-migrate' });
  try {
    const byNamespace = await componentsByNamespace(client, options.namespace);
    const outcomes: NamespaceOutcome[] = [];
    for (const [namespace, components] of [...byNamespace].sort(([a], [b]) => compareStrings(a, b))) {
      outcomes.push(await migrateNamespace(client, namespace, components, options.apply));
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
): Promise<Map<string, ComponentObject[]>> {
  const byNamespace = new Map<string, ComponentObject[]>();
  let continueToken: string | undefined;
  do {
    const page = await client.list<ComponentObject>(COMPONENTS, {
      limit: 500,
      ...(namespace === undefined ? {} : { namespace }),
      ...(continueToken === undefined ? {} : { continue: continueToken }),
    });
    for (const item of page.items) {
      const ns = item.metadata?.namespace ?? '';
      byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), item]);
    }
    continueToken = page.continue === '' ? undefined : page.continue;
  } while (continueToken !== undefined);
  return byNamespace;
}

async function migrateNamespace(
  client: KubeClient,
  namespace: string,
  components: readonly ComponentObject[],
  apply: boolean,
): Promise<NamespaceOutcome> {
  const nudges = components.map((c) => ({
    name: c.metadata?.name ?? '',
    buildNudgesRef: stringsOf(c.spec?.['build-nudges-ref']),
  }));
  for (let attempt = 1; ; attempt += 1) {
    const existing = await getNudgeConfig(client, namespace);
    const plan = planNamespaceMigration(nudges, existing?.spec?.nudges ?? []);
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
    const desired: NudgeConfigObject = {
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

async function getNudgeConfig(client: KubeClient, namespace: string): Promise<NudgeConfigObject | undefined> {
  try {
    return await client.get<NudgeConfigObject>(NUDGE_CONFIGS, namespace, NUDGE_CONFIG_NAME);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
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
