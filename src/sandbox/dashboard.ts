// `nudger sandbox --dashboard` (docs/decisions.md D14, docs/sandbox.md): the in-process manager
// serves the dashboard on loopback with one random token per run, exchanged at
// /login?token= for a session cookie, instead of the cluster's TokenReview.
import { randomBytes } from 'node:crypto';
import type { ManagerOptions } from '../manager/manager.ts';
import type { SandboxResult } from './scenario/result.ts';

/** The dashboard of a sandbox run. */
export interface SandboxDashboard {
  /** The port on 127.0.0.1; 0: one the kernel picks. */
  readonly port: number;
  /** The run's one-time token: what the printed URL carries. */
  readonly token: string;
}

/** A run with the dashboard open: told where it is, held open after the play. */
export interface SandboxDashboardRun extends SandboxDashboard {
  /** Told the login URL as soon as the manager serves the dashboard, before the scenario plays. */
  readonly onReady: (url: string) => void;
  /** Given the result; the environment stays up until it resolves (the CLI: until Ctrl-C). */
  readonly whileOpen: (result: SandboxResult) => Promise<void>;
}

/** Where the sandbox's dashboard listens: loopback only, never another interface. */
export const SANDBOX_DASHBOARD_HOST = '127.0.0.1';

/** 32 random bytes, base64url: new for every run, never written anywhere but the printed URL. */
export function newDashboardToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The manager's dashboard settings for a sandbox run. */
export function managerDashboardOptions(
  dashboard: SandboxDashboard,
  port = dashboard.port,
): NonNullable<ManagerOptions['dashboard']> {
  return { port, host: SANDBOX_DASHBOARD_HOST, auth: { mode: 'token', token: dashboard.token } };
}

/** The URL that logs the browser in with the run's token and opens the namespaces view. */
export function dashboardLoginUrl(port: number, token: string): string {
  return `http://${SANDBOX_DASHBOARD_HOST}:${String(port)}/login?token=${encodeURIComponent(token)}`;
}

/** The manager started without serving the dashboard it was asked for. */
export class SandboxDashboardError extends Error {
  override readonly name = 'SandboxDashboardError';
}

/** The port the manager serves the dashboard on; throws when it serves none. */
export function servedDashboardPort(manager: { readonly dashboardPort?: number | undefined }): number {
  if (manager.dashboardPort === undefined) {
    throw new SandboxDashboardError('the sandbox asked the manager for a dashboard, and it serves none');
  }
  return manager.dashboardPort;
}

/**
 * Plays with the dashboard open: its URL told before `play`, the environment held open after it
 * until `whileOpen` resolves. A play that fails is not held: its error ends the run.
 */
export async function withDashboard(
  dashboard: SandboxDashboardRun | undefined,
  manager: { readonly dashboardPort?: number | undefined },
  play: () => Promise<SandboxResult>,
): Promise<SandboxResult> {
  if (dashboard === undefined) return play();
  dashboard.onReady(dashboardLoginUrl(servedDashboardPort(manager), dashboard.token));
  const result = await play();
  await dashboard.whileOpen(result);
  return result;
}
