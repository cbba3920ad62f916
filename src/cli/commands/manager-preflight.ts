// Everything `nudger manager` can check before it listens on a port or connects to the API server.
// A mistake found here is one line naming the flag and its value, and exit 2; found later, it
// would surface after servers and watches had started (issue 8, part 2 item 5). Values are flag
// values or paths, never the content of a file, so no secret can reach the message.
import { stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { dns1123LabelProblem } from '../../schema/names.ts';
import { CertificateLoadError, loadCertificatePair } from '../../webhooks/cert-watcher.ts';
import { leaderElectionTimingProblem, type LeaderElectionTimings } from '../../runtime/leader-election.ts';
import { UsageError } from '../errors.ts';
import { METRICS_AUTH_MODES, type MetricsAuthMode } from '../../manager/manager.ts';
import { DEFAULT_MAX_BODY_BYTES } from '../../webhooks/server.ts';

/** The flag values the checks read, as commander hands them over. */
export interface ManagerPreflightOptions {
  readonly namespace?: string;
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace: string;
  readonly leaderElectionId: string;
  readonly leaderElectLeaseDuration: number;
  readonly leaderElectRenewDeadline: number;
  readonly leaderElectRetryPeriod: number;
  readonly webhookPort: number;
  readonly webhookCertDir: string;
  readonly metricsPort: number;
  readonly healthPort: number;
  readonly metricsAuth: MetricsAuthMode;
  readonly webhookMaxInflightBytes?: number;
  readonly gitCacheDir?: string;
  readonly changegroupPollInterval: number;
  readonly changegroupUrlTemplate?: string;
  readonly botEmail: string;
  /** `--dashboard-port`: the dashboard runs only with it (docs/decisions.md N46). */
  readonly dashboardPort?: number;
  readonly dashboardHost?: string;
  readonly dashboardCertDir?: string;
}

const TIMING_FLAGS: Readonly<Record<keyof LeaderElectionTimings, string>> = {
  leaseDurationMs: '--leader-elect-lease-duration',
  renewDeadlineMs: '--leader-elect-renew-deadline',
  retryPeriodMs: '--leader-elect-retry-period',
};

/** Throws a UsageError for the first problem; resolves when the manager may start. */
export async function preflightManager(options: ManagerPreflightOptions): Promise<void> {
  checkNames(options);
  checkLeaderElection(options);
  checkPorts(options);
  checkWebhookAndMetrics(options);
  if (!(options.changegroupPollInterval > 0)) {
    throw new UsageError(`--changegroup-poll-interval ${ms(options.changegroupPollInterval)}: must be greater than 0`);
  }
  checkUrlTemplate(options.changegroupUrlTemplate);
  if (!/^[^@\s]+@[^@\s]+$/.test(options.botEmail)) {
    throw new UsageError(`--bot-email "${options.botEmail}": is not an email address`);
  }
  if (options.gitCacheDir !== undefined) await checkGitCacheDir(options.gitCacheDir);
  checkDashboard(options);
  await checkCertDir('--webhook-cert-dir', options.webhookCertDir);
  if (options.dashboardCertDir !== undefined) await checkCertDir('--dashboard-cert-dir', options.dashboardCertDir);
}

function checkDashboard(options: ManagerPreflightOptions): void {
  const host = options.dashboardHost;
  if (options.dashboardPort === undefined) {
    if (options.dashboardCertDir !== undefined) {
      throw new UsageError(`--dashboard-cert-dir ${options.dashboardCertDir}: goes with --dashboard-port`);
    }
    return;
  }
  // An address or a host name to resolve; anything else would fail only at listen time.
  const hostName = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i;
  if (host !== undefined && isIP(host) === 0 && !hostName.test(host)) {
    throw new UsageError(`--dashboard-host "${host}": is not an IP address or host name`);
  }
}

function checkNames(options: ManagerPreflightOptions): void {
  const labels: [string, string | undefined][] = [
    ['--namespace', options.namespace],
    ['--leader-election-namespace', options.leaderElectionNamespace],
  ];
  for (const [flag, value] of labels) {
    const problem = value === undefined ? undefined : dns1123LabelProblem(value);
    if (problem !== undefined) throw new UsageError(`${flag} "${String(value)}": a namespace name ${problem}`);
  }
  // A Lease name is a DNS-1123 subdomain: labels joined by dots, 253 characters at most.
  const id = options.leaderElectionId;
  const labelProblem = id
    .split('.')
    .map(dns1123LabelProblem)
    .find((p) => p !== undefined);
  if (id.length > 253 || labelProblem !== undefined) {
    throw new UsageError(
      `--leader-election-id "${id}": not a valid Lease name (a DNS-1123 subdomain: lower case alphanumerics, '-' and '.', at most 253 characters)`,
    );
  }
}

function checkLeaderElection(options: ManagerPreflightOptions): void {
  // Checked with or without --leader-elect: a Deployment that later turns election on must not
  // discover then that its timings never made sense.
  const timings: LeaderElectionTimings = {
    leaseDurationMs: options.leaderElectLeaseDuration,
    renewDeadlineMs: options.leaderElectRenewDeadline,
    retryPeriodMs: options.leaderElectRetryPeriod,
  };
  const problem = leaderElectionTimingProblem(timings);
  if (problem === undefined) return;
  const flag = `${TIMING_FLAGS[problem.timing]} ${ms(timings[problem.timing])}`;
  if (problem.than === undefined) throw new UsageError(`${flag}: must be greater than 0`);
  const than = `${TIMING_FLAGS[problem.than]} ${ms(timings[problem.than])}`;
  const factor = problem.than === 'retryPeriodMs' ? '1.2 × ' : '';
  throw new UsageError(
    `${flag}: must be greater than ${factor}${than} (client-go requires lease duration > renew deadline > 1.2 × retry period)`,
  );
}

function checkPorts(options: ManagerPreflightOptions): void {
  // 0 asks the system for any free port, so it never collides. The metrics and health ports may be
  // equal on purpose: one server then answers both.
  const ports: [string, number][] = [
    ['--webhook-port', options.webhookPort],
    ['--health-port', options.healthPort],
    ['--metrics-port', options.metricsPort],
    ...(options.dashboardPort === undefined ? [] : [['--dashboard-port', options.dashboardPort] as [string, number]]),
  ];
  for (const [flag, port] of ports) {
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`${flag} ${String(port)}: is not a port number (0-65535)`);
    }
  }
  const webhook = options.webhookPort;
  for (const [flag, port] of ports.slice(1)) {
    if (port !== 0 && port === webhook) {
      throw new UsageError(
        `--webhook-port ${String(webhook)} and ${flag} ${String(port)}: the HTTPS webhook server needs a port of its own`,
      );
    }
  }
  const dashboard = options.dashboardPort;
  for (const [flag, port] of ports.slice(1, 3)) {
    if (dashboard !== undefined && dashboard !== 0 && port === dashboard) {
      throw new UsageError(
        `--dashboard-port ${String(dashboard)} and ${flag} ${String(port)}: the dashboard needs a port of its own`,
      );
    }
  }
}

function checkWebhookAndMetrics(options: ManagerPreflightOptions): void {
  if (!METRICS_AUTH_MODES.includes(options.metricsAuth)) {
    throw new UsageError(`--metrics-auth "${options.metricsAuth}": must be one of ${METRICS_AUTH_MODES.join(', ')}`);
  }
  const bytes = options.webhookMaxInflightBytes;
  // Below one largest request, a request of the maximum size could never be served.
  if (bytes !== undefined && !(bytes >= DEFAULT_MAX_BODY_BYTES)) {
    throw new UsageError(
      `--webhook-max-inflight-bytes ${String(bytes)}: must be at least the per-request body cap, ${String(DEFAULT_MAX_BODY_BYTES)} bytes (7Mi)`,
    );
  }
}

function checkUrlTemplate(template: string | undefined): void {
  if (template === undefined) return;
  const sample = template.replaceAll('{namespace}', 'ns').replaceAll('{name}', 'name');
  const url = URL.canParse(sample) ? new URL(sample) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`--changegroup-url-template "${template}": is not an http(s) URL`);
  }
}

async function checkGitCacheDir(dir: string): Promise<void> {
  // Created on first use when missing; an existing file in its place would fail every reconcile.
  const info = await stat(dir).catch((error: unknown) => {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw new UsageError(`--git-cache-dir ${dir}: ${codeOf(error)}`);
  });
  if (info !== undefined && !info.isDirectory()) throw new UsageError(`--git-cache-dir ${dir}: is not a directory`);
}

async function checkCertDir(flag: string, dir: string): Promise<void> {
  const info = await stat(dir).catch((error: unknown) => {
    throw new UsageError(
      `${flag} ${dir}: ${(error as { code?: unknown }).code === 'ENOENT' ? 'no such directory' : codeOf(error)}`,
    );
  });
  if (!info.isDirectory()) throw new UsageError(`${flag} ${dir}: is not a directory`);
  try {
    await loadCertificatePair(dir);
  } catch (error) {
    if (error instanceof CertificateLoadError) throw certDirError(error, flag);
    throw error;
  }
}

/** The certificate problem under the flag's name (the message names files, never their content). */
export function certDirError(error: CertificateLoadError, flag = '--webhook-cert-dir'): UsageError {
  return new UsageError(`${flag} ${error.dir}: ${error.problem}`);
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'cannot be read';
}

function ms(value: number): string {
  return value % 1000 === 0 ? `${String(value / 1000)}s` : `${String(value)}ms`;
}
