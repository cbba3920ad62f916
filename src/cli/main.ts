#!/usr/bin/env node
// The `nudger` command line: a thin shell that parses arguments, calls the core and maps failures
// to the exit-code contract. Each command is imported lazily so that `nudger validate` does not pay
// for modules only `migrate` needs.
import { Command, CommanderError, Option } from 'commander';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError, isUserFacingError, oneLine } from './errors.ts';
import type { SandboxCommandOptions } from './commands/sandbox.ts';
import type { ManagerCommandOptions } from './commands/manager.ts';
import type { CliIo } from './io.ts';
import { terminalSafe } from './format/terminal-text.ts';
import { favourMemoryForOfflineCommands } from './heap-tuning.ts';
import { type LoadOptions, parseByteSize } from './load.ts';
import { FORGE_REGISTRY, HOSTED_FORGE_KINDS, hostFlagOf, type HostedForgeKind } from '../adapters/forges/registry.ts';
import { DEFAULT_GITHUB_APP_SECRET, formatSecretRef } from '../adapters/forges/github/app-secret.ts';
import { controllerGroupsFlag } from './commands/manager-controllers.ts';
import { DEFAULT_CONTROLLER_GROUPS } from '../runtime/controller-groups.ts';
import { KORIFI_SETTING_DEFAULTS } from '../controllers/korifi/settings.ts';

const VERSION = '0.1.0';

function commaList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  ];
}

const byteSize =
  (flag: string) =>
  (value: string): number => {
    try {
      return parseByteSize(value);
    } catch (error) {
      throw new UsageError(`${flag}: ${oneLine(error)}`);
    }
  };

const outputOption = () =>
  new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text');
const maxFileSizeOption = () =>
  new Option('--max-file-size <size>', 'refuse input files larger than this (e.g. 32Mi)').argParser(
    byteSize('--max-file-size'),
  );
const maxTotalSizeOption = () =>
  new Option(
    '--max-total-size <size>',
    'refuse to read more than this from all inputs together (default 256Mi)',
  ).argParser(byteSize('--max-total-size'));
const verboseOption = () =>
  new Option('-v, --verbose', 'say on stderr which hidden directories and special files a directory walk skipped');

export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('nudger')
    .description('Validate, visualise, plan and migrate Konflux nudge graphs (NudgeConfig, build-nudges-ref)')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();

  program
    .command('validate')
    .description('check NudgeConfigs and build-nudges-ref against the ADR 67 rules')
    .argument('[paths...]', "files or directories of manifests, or '-' for stdin", [])
    .addOption(outputOption())
    .addOption(maxFileSizeOption())
    .addOption(maxTotalSizeOption())
    .addOption(verboseOption())
    .addOption(
      new Option(
        '--repository <dir>',
        "a checkout of a components' repository: its .tekton/ PipelineRuns and files are checked for nudge loops (repeatable)",
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .action(async (paths: string[], opts: { output: 'text' | 'json'; maxFileSize?: number; repository?: string[] }) => {
      const { validateCommand } = await import('./commands/validate.ts');
      setExit(
        await validateCommand(
          paths,
          { output: opts.output, ...size(opts), ...(opts.repository && { repositories: opts.repository }) },
          io,
        ),
      );
    });

  program
    .command('graph')
    .description('print the nudge graph as Mermaid, Graphviz DOT or JSON')
    .argument('[paths...]', "files or directories of manifests, or '-' for stdin", [])
    .addOption(
      new Option('-f, --format <format>', 'graph format').choices(['mermaid', 'dot', 'json']).default('mermaid'),
    )
    .option('-n, --namespace <namespace>', 'only this namespace')
    .addOption(maxFileSizeOption())
    .addOption(maxTotalSizeOption())
    .addOption(verboseOption())
    .action(
      async (
        paths: string[],
        opts: { format: 'mermaid' | 'dot' | 'json'; namespace?: string; maxFileSize?: number },
      ) => {
        const { graphCommand } = await import('./commands/graph.ts');
        setExit(await graphCommand(paths, { format: opts.format, ...ns(opts), ...size(opts) }, io));
      },
    );

  program
    .command('plan')
    .description(
      'which components rebuild, in which waves, and how many builds ADR 29 nudges cost versus ChangeGroups and validated nudges',
    )
    .argument('[paths...]', "files or directories of manifests, or '-' for stdin", [])
    .requiredOption('-c, --changed <names>', 'changed components, comma-separated; * matches any characters', commaList)
    .option('-n, --namespace <namespace>', 'the namespace to plan in (needed when names exist in several)')
    .option(
      '-p, --policy <policies>',
      'the build counts shown, comma-separated: adr29, changegroup, validated (default: adr29 and changegroup, and validated when an affected edge is validated)',
      commaList,
    )
    .addOption(outputOption())
    .addOption(maxFileSizeOption())
    .addOption(maxTotalSizeOption())
    .addOption(verboseOption())
    .action(
      async (
        paths: string[],
        opts: {
          changed: string[];
          namespace?: string;
          policy?: string[];
          output: 'text' | 'json';
          maxFileSize?: number;
        },
      ) => {
        const { planCommand } = await import('./commands/plan.ts');
        const policies = opts.policy === undefined ? {} : { policies: opts.policy };
        setExit(
          await planCommand(
            paths,
            { changed: opts.changed, output: opts.output, ...policies, ...ns(opts), ...size(opts) },
            io,
          ),
        );
      },
    );

  program
    .command('migrate')
    .description(
      'move build-nudges-ref (and upstream v1beta2 NudgeConfigs) into nudge-config: in a GitOps tree (a dry run unless --write), or with --cluster on a live cluster (a dry run unless --apply)',
    )
    .argument('[paths...]', 'files or directories of a GitOps repository', [])
    .option('-w, --write', 'rewrite the files (atomically); without it, print a unified diff', false)
    .option(
      '--drop-invalid',
      'drop edges nudger would reject (unknown or invalid component names, self-nudges) and list them, instead of refusing',
      false,
    )
    .option('--cluster', 'migrate the Components of a live cluster instead of files', false)
    .option('--apply', 'with --cluster: create or merge the NudgeConfigs; without it, print what would change', false)
    .option('--kubeconfig <path>', 'with --cluster: kubeconfig file (default: in-cluster, then $KUBECONFIG)')
    .option('-n, --namespace <namespace>', 'with --cluster: only this namespace')
    .addOption(outputOption())
    .addOption(maxFileSizeOption())
    .addOption(maxTotalSizeOption())
    .addOption(verboseOption())
    .action(
      async (
        paths: string[],
        opts: {
          write: boolean;
          dropInvalid: boolean;
          cluster: boolean;
          apply: boolean;
          kubeconfig?: string;
          namespace?: string;
          output: 'text' | 'json';
          maxFileSize?: number;
        },
      ) => {
        if (opts.cluster) {
          if (paths.length > 0 || opts.write || opts.dropInvalid)
            throw new UsageError(
              '--cluster reads the cluster: it takes no paths, no --write (use --apply) and no --drop-invalid',
            );
          const { clusterMigrateCommand } = await import('./commands/migrate-cluster.ts');
          setExit(
            await clusterMigrateCommand(
              {
                apply: opts.apply,
                output: opts.output,
                ...ns(opts),
                ...(opts.kubeconfig === undefined ? {} : { kubeconfig: opts.kubeconfig }),
              },
              io,
            ),
          );
          return;
        }
        if (opts.apply || opts.kubeconfig !== undefined || opts.namespace !== undefined) {
          throw new UsageError(
            '--apply, --kubeconfig and --namespace go with --cluster; files are rewritten with --write',
          );
        }
        if (paths.includes('-'))
          throw new UsageError('migrate rewrites files in place and cannot read stdin: pass paths');
        const { migrateCommand } = await import('./commands/migrate.ts');
        setExit(
          await migrateCommand(
            paths,
            { write: opts.write, dropInvalid: opts.dropInvalid, output: opts.output, ...size(opts) },
            io,
          ),
        );
      },
    );

  const manager = program
    .command('manager')
    .description('run the controllers (on the elected leader) and the admission webhooks (on every replica)')
    .option(
      '--kubeconfig <path>',
      'kubeconfig file (default: in-cluster config, then $KUBECONFIG, then ~/.kube/config)',
    )
    .option('--namespace <namespace>', 'watch only this namespace (default: all namespaces)')
    .option('--leader-elect', 'elect a leader through a coordination.k8s.io Lease before running controllers', false)
    .option(
      '--leader-election-namespace <namespace>',
      'namespace of the leader-election Lease',
      process.env.POD_NAMESPACE ?? 'nudger-system',
    )
    .option('--leader-election-id <name>', 'name of the leader-election Lease', 'nudger-manager-leader')
    .addOption(
      durationOption('--leader-elect-lease-duration <duration>', 'how long a Lease is valid without renewal', 15_000),
    )
    .addOption(
      durationOption(
        '--leader-elect-renew-deadline <duration>',
        'how long the leader keeps trying to renew before stepping down',
        10_000,
      ),
    )
    .addOption(
      durationOption(
        '--leader-elect-retry-period <duration>',
        'how often candidates and the leader act on the Lease',
        2_000,
      ),
    )
    .addOption(portOption('--webhook-port <port>', 'admission webhook HTTPS port', 9443))
    .option(
      '--webhook-cert-dir <dir>',
      'directory holding tls.crt and tls.key (reloaded on change)',
      '/tmp/k8s-webhook-server/serving-certs',
    )
    .option(
      '--webhook-max-inflight-bytes <size>',
      'request-body bytes the webhook server holds at once, all requests together; past it requests get 429 (default: a quarter of the smaller of the container memory limit and the heap limit)',
      byteSize('--webhook-max-inflight-bytes'),
    )
    .addOption(portOption('--metrics-port <port>', 'Prometheus /metrics port', 8080))
    .addOption(
      new Option(
        '--metrics-auth <mode>',
        'who may read /metrics: kubernetes (a bearer token allowed to get /metrics, by TokenReview and SubjectAccessReview) or none',
      )
        .choices(['kubernetes', 'none'])
        .default('kubernetes'),
    )
    .addOption(portOption('--health-port <port>', '/healthz and /readyz port', 8081))
    .addOption(
      // No default: the dashboard is off unless a port is given (docs/decisions.md N46).
      portOption('--dashboard-port <port>', 'serve the read-only dashboard on this port (default: off)', 0).default(
        undefined,
      ),
    )
    .option(
      '--dashboard-host <host>',
      'address the dashboard listens on (reach the default with kubectl port-forward)',
      '127.0.0.1',
    )
    .option(
      '--dashboard-cert-dir <dir>',
      'directory holding tls.crt and tls.key for a dashboard served over HTTPS (reloaded on change; default: plain HTTP)',
    )
    .option('--git-cache-dir <dir>', 'where bare repositories are kept between pull request updates')
    .addOption(
      durationOption(
        '--changegroup-poll-interval <duration>',
        'how often open ChangeGroup pull requests are re-read for merges, ticks and human commits',
        30_000,
      ),
    )
    .option(
      '--changegroup-url-template <url>',
      'console URL of a ChangeGroup for PR descriptions, with {namespace} and {name} (default: a kubectl command)',
    )
    .addOption(
      new Option(
        '--nudge-dispatch <bool>',
        'fire the nudges of namespaces with a NudgeConfig (false leaves firing to integration-service)',
      )
        .default(true, 'true')
        .argParser(booleanFlag('--nudge-dispatch')),
    )
    .addOption(
      new Option('--nudge-executor <name>', 'executor of nudges whose NudgeConfig names none')
        .choices(['direct', 'renovate'])
        .default('direct'),
    )
    .option(
      '--github-app-secret <namespace/name>',
      'the Pipelines-as-Code Secret whose github-application-id and github-private-key nudger acts as on GitHub repositories the App is installed on, before SCM Secrets; "none" for no App',
      formatSecretRef(DEFAULT_GITHUB_APP_SECRET),
    )
    .option('--bot-name <name>', "author name of nudger's commits", 'nudger')
    .option(
      '--bot-email <email>',
      "author email of nudger's commits; commits by others count as manual changes",
      'nudger@konflux-ci.dev',
    )
    .addOption(
      new Option(
        '--controllers <groups>',
        'controller groups to run: konflux, korifi (the Korifi builder controllers), all, or a comma-separated list',
      )
        .default(DEFAULT_CONTROLLER_GROUPS, DEFAULT_CONTROLLER_GROUPS.join(','))
        .argParser(controllerGroupsFlag),
    )
    .option(
      '--korifi-builder-name <name>',
      'with korifi: the BuildWorkload spec.builderName nudger builds',
      KORIFI_SETTING_DEFAULTS.builderName,
    )
    .option(
      '--korifi-cluster-builder <name>',
      'with korifi: the default kpack ClusterBuilder (read, never created)',
      KORIFI_SETTING_DEFAULTS.clusterBuilderName,
    )
    .option(
      '--korifi-image-repository <prefix>',
      'with korifi (required): prefix of the kpack Image and Builder tags, e.g. registry.example.com/cf/',
    )
    .addOption(
      durationOption(
        '--builder-readiness-timeout <duration>',
        'with korifi: how long a build waits for its kpack builder to be ready before it fails with BuilderNotReady',
        KORIFI_SETTING_DEFAULTS.readinessTimeoutMs,
      ),
    )
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['trace', 'debug', 'info', 'warn', 'error'])
        .default('info'),
    )
    .action(async (opts: Omit<ManagerCommandOptions, 'forgeHosts'> & Record<string, unknown>) => {
      const { managerCommand } = await import('./commands/manager.ts');
      const forgeHosts = Object.fromEntries(
        HOSTED_FORGE_KINDS.map((kind) => [kind, (opts[hostOptionKey(kind)] as string[] | undefined) ?? []]),
      );
      setExit(await managerCommand({ ...opts, forgeHosts }, io));
    });
  // One --<kind>-host flag per forge of the registry (src/adapters/forges/registry.ts).
  for (const kind of HOSTED_FORGE_KINDS) {
    const { title, publicHosts } = FORGE_REGISTRY[kind];
    manager.option(
      `${hostFlagOf(kind)} <host[=apiUrl]>`,
      `a ${title} host besides ${publicHosts.join(', ')}, optionally with its REST API URL (repeatable)`,
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    );
  }

  program
    .command('sandbox')
    .description(
      'play a nudging scenario on a local control plane with the manager, a local forge and stand-ins for build-service, Tekton and Pipelines-as-Code',
    )
    .option(
      '--scenario <file>',
      'scenario file (docs/sandbox.md); default: examples/olm-operator, with and without ChangeGroups',
    )
    .option('--no-changegroups', 'play without ChangeGroups: one nudge pull request per nudge (ADR 29)')
    .option(
      '--dashboard',
      'serve the dashboard on 127.0.0.1, print its URL with a one-time token on stderr, and keep running after the scenario until Ctrl-C',
    )
    .addOption(
      new Option(
        '--dashboard-port <port>',
        "with --dashboard: the dashboard's port (default: one the kernel picks)",
      ).argParser(portNumber('--dashboard-port')),
    )
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
    .addOption(
      new Option('--log-level <level>', 'manager log level (to stderr)')
        .choices(['trace', 'debug', 'info', 'warn', 'error', 'silent'])
        .default('error'),
    )
    .action(async (opts: SandboxCommandOptions) => {
      const { sandboxCommand } = await import('./commands/sandbox.ts');
      setExit(await sandboxCommand(opts, io));
    });

  return program;
}

/** `true` or `false`, nothing else: a typo must not silently mean either. */
function booleanFlag(flag: string): (value: string) => boolean {
  return (value) => {
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw new UsageError(`${flag}: "${value}" is not true or false`);
  };
}

/** `15s`, `500ms`, `2m`: a duration in milliseconds. */
function durationOption(flags: string, description: string, fallbackMs: number): Option {
  return new Option(flags, description)
    .default(fallbackMs, `${String(fallbackMs / 1000)}s`)
    .argParser((value: string) => {
      const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value.trim());
      if (match === null)
        throw new UsageError(`${flags.split(' ')[0] ?? flags}: "${value}" is not a duration (e.g. 15s, 500ms)`);
      const scale = { ms: 1, s: 1000, m: 60_000 }[match[2] as 'ms' | 's' | 'm'];
      return Math.round(Number(match[1]) * scale);
    });
}

function portOption(flags: string, description: string, fallback: number): Option {
  return new Option(flags, description).default(fallback).argParser(portNumber(flags.split(' ')[0] ?? flags));
}

/** A port number, 0 to 65535 (0: one the kernel picks). */
function portNumber(flag: string): (value: string) => number {
  return (value) => {
    const port = Number(value);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`${flag}: "${value}" is not a port number`);
    return port;
  };
}

/** The input options every command that reads manifests shares (commander leaves unset ones out). */
function size(opts: { maxFileSize?: number; maxTotalSize?: number; verbose?: boolean }): LoadOptions {
  return {
    ...(opts.maxFileSize === undefined ? {} : { maxFileBytes: opts.maxFileSize }),
    ...(opts.maxTotalSize === undefined ? {} : { maxTotalBytes: opts.maxTotalSize }),
    ...(opts.verbose === true && { verbose: true }),
  };
}

function ns(opts: { namespace?: string }): { namespace?: string } {
  return opts.namespace === undefined ? {} : { namespace: opts.namespace };
}

/** Runs the CLI and returns its exit code; never throws and never prints a stack trace. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let code = EXIT_OK;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message; help and version are not failures.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    // Our own errors are one line by construction, unless a name in them holds a newline: escaped, not cut.
    const message = isUserFacingError(error) ? error.message : oneLine(error);
    io.stderr.write(`nudger: ${terminalSafe(message)}\n`);
    if (!isUserFacingError(error) && process.env.NUDGER_DEBUG !== undefined && error instanceof Error) {
      io.stderr.write(`${error.stack ?? ''}\n`);
    }
    return error instanceof Error && error.name === 'PlanError' ? EXIT_FINDINGS : EXIT_USAGE;
  }
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** The CLI as a process: real streams and arguments, the exit code set on `process`. */
export async function main(): Promise<void> {
  // An EPIPE from `nudger graph | head` is not an error worth a message.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  favourMemoryForOfflineCommands(process.argv.slice(2));
  const code = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
  });
  process.exitCode = code;
}

// Run directly (`node src/cli/main.ts`, `node dist/cli/main.js`) as well as through bin.ts.
if (isMain()) await main();

/** commander's key for `--<kind>-host`: `githubHost`. */
function hostOptionKey(kind: HostedForgeKind): string {
  return `${kind}Host`;
}
