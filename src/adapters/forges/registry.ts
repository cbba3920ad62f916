// The forges nudger can open pull requests on, by kind: everything else (the manager's default
// hosts, the `--<kind>-host` flags and their help, the resolver that picks a provider for a
// repository host) is derived from this table. Adding a forge is one folder beside github/ with a
// ForgeProvider, plus one entry here; the forge contract suite (test/adapters/forges/) runs every
// provider of this table against its emulator. Kinds are the domain's ForgeKind (how a forge marks a
// draft is a domain rule), so a registry entry cannot invent a kind the domain does not know.
import type { ForgeKind } from '../../domain/pr-description/draft-title.ts';
import type { Credentials } from '../credentials/credentials.ts';
import { GitHubForge } from './github/index.ts';
import { GITLAB_API_PATH, GitLabForge } from './gitlab/index.ts';
import type { ForgeProvider } from './types.ts';

/** What a hosted forge needs to serve one repository host. */
export interface ForgeEndpoint {
  /** REST base, e.g. `https://api.github.com`, `https://ghe.example.com/api/v3`, `https://gitlab.com/api/v4`. */
  readonly apiUrl: string;
  /** Where git fetches and pushes; default `https://<host>`. */
  readonly gitBaseUrl?: string;
}

export interface ForgeKindEntry {
  /** For messages and flag help: `GitHub`. */
  readonly title: string;
  /** Hosts served without any configuration. */
  readonly publicHosts: readonly string[];
  /** The API base of a host given without one (`github.com` → api.github.com, GHES → `/api/v3`). */
  defaultApiUrl(host: string): string;
  create(endpoint: ForgeEndpoint & { readonly gitBaseUrl: string; readonly credentials: Credentials }): ForgeProvider;
}

export const FORGE_REGISTRY = {
  github: {
    title: 'GitHub',
    publicHosts: ['github.com'],
    defaultApiUrl: (host) => (host === 'github.com' ? 'https://api.github.com' : `https://${host}/api/v3`),
    create: (endpoint) => new GitHubForge(endpoint),
  },
  // docs/decisions.md D12, N32: the token is the tenant's SCM Secret for the host (no App).
  gitlab: {
    title: 'GitLab',
    publicHosts: ['gitlab.com'],
    defaultApiUrl: (host) => `https://${host}${GITLAB_API_PATH}`,
    create: (endpoint) => new GitLabForge(endpoint),
  },
} as const satisfies Partial<Record<ForgeKind, ForgeKindEntry>>;

export type HostedForgeKind = keyof typeof FORGE_REGISTRY;
export const HOSTED_FORGE_KINDS = Object.keys(FORGE_REGISTRY) as HostedForgeKind[];

/** A configured repository host: which kind of forge serves it, and where. */
export interface HostedForge extends ForgeEndpoint {
  readonly kind: HostedForgeKind;
}

/** The flag that adds hosts of `kind` to the manager: `--github-host`. */
export function hostFlagOf(kind: HostedForgeKind): string {
  return `--${kind}-host`;
}

/** Every kind's public hosts (github.com, gitlab.com), served by default. */
export function publicForgeHosts(): Map<string, HostedForge> {
  const hosts = new Map<string, HostedForge>();
  for (const kind of HOSTED_FORGE_KINDS) {
    const entry: ForgeKindEntry = FORGE_REGISTRY[kind];
    for (const host of entry.publicHosts) hosts.set(host, { kind, apiUrl: entry.defaultApiUrl(host) });
  }
  return hosts;
}

export class ForgeHostError extends Error {
  override readonly name = 'ForgeHostError';
}

/**
 * The values of `--<kind>-host`: `host` or `host=apiUrl`. Host names are lower-cased, as URLs
 * compare them. Throws ForgeHostError naming the flag and the value.
 */
export function parseForgeHosts(kind: HostedForgeKind, values: readonly string[]): Map<string, HostedForge> {
  const entry: ForgeKindEntry = FORGE_REGISTRY[kind];
  const flag = hostFlagOf(kind);
  const hosts = new Map<string, HostedForge>();
  for (const value of values) {
    const equals = value.indexOf('=');
    const host = (equals < 0 ? value : value.slice(0, equals)).toLowerCase();
    const apiUrl = equals < 0 ? undefined : value.slice(equals + 1);
    if (!/^[a-z0-9.-]+(:[0-9]+)?$/.test(host))
      throw new ForgeHostError(`${flag}: "${value}" does not start with a host name`);
    if (apiUrl !== undefined && !/^https?:\/\//.test(apiUrl)) {
      throw new ForgeHostError(`${flag}: "${apiUrl}" is not an http(s) URL`);
    }
    hosts.set(host, { kind, apiUrl: apiUrl ?? entry.defaultApiUrl(host) });
  }
  return hosts;
}
