// A Component's `spec.source.git.url` as the forges see it: host, owner (GitLab groups may nest:
// `group/subgroup`) and repository name. Accepts the forms Konflux users write: https with or
// without `.git` and a trailing slash, scp-like ssh (`git@host:owner/name.git`), `ssh://` URLs and
// `file://` URLs for the local forge.
import { redactUserInfo } from '../credentials/credentials.ts';

export interface RepositoryRef {
  /** `github.com`, `gitlab.example.com:8443`; empty for `file://` repositories. */
  readonly host: string;
  readonly owner: string;
  readonly name: string;
  /** The URL as the Component gave it, for messages and links. */
  readonly url: string;
}

export class RepositoryUrlError extends Error {
  override readonly name = 'RepositoryUrlError';
  /** The URL with any embedded user name or password replaced, safe to print. */
  readonly url: string;
  readonly reason: string;

  constructor(url: string, reason: string) {
    const shown = redactUserInfo(url);
    super(`repository URL ${JSON.stringify(shown)}: ${reason}`);
    this.url = shown;
    this.reason = reason;
  }
}

const SCP_LIKE = /^(?<user>[^@/\s]+)@(?<host>[^:/\s]+):(?<path>[^\s]+)$/;

export function parseRepositoryUrl(url: string): RepositoryRef {
  const trimmed = url.trim();
  if (trimmed.length === 0) throw new RepositoryUrlError(url, 'is empty');
  const scp = SCP_LIKE.exec(trimmed);
  if (scp?.groups !== undefined && !trimmed.includes('://')) {
    return fromPath(url, scp.groups.host ?? '', scp.groups.path ?? '');
  }
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    throw new RepositoryUrlError(
      url,
      'is not a URL (expected https://host/owner/name, git@host:owner/name.git or file:///path/owner/name.git)',
    );
  }
  switch (parsed.protocol) {
    case 'https:':
    case 'http:':
      if (parsed.username !== '' || parsed.password !== '') {
        throw new RepositoryUrlError(url, 'must not embed credentials; use an scm credentials Secret');
      }
      break;
    case 'ssh:':
    case 'git+ssh:':
      if (parsed.password !== '') throw new RepositoryUrlError(url, 'must not embed a password');
      break;
    case 'file:':
      break;
    default:
      throw new RepositoryUrlError(url, `unsupported scheme ${JSON.stringify(parsed.protocol.slice(0, -1))}`);
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    throw new RepositoryUrlError(url, 'must not have a query or fragment');
  }
  if (parsed.protocol === 'file:') return fromFilePath(url, decodeURIComponent(parsed.pathname));
  return fromPath(url, parsed.host, decodeURIComponent(parsed.pathname));
}

function fromPath(url: string, host: string, path: string): RepositoryRef {
  if (host.length === 0) throw new RepositoryUrlError(url, 'has no host');
  const segments = splitRepositoryPath(path);
  if (segments.length < 2) throw new RepositoryUrlError(url, 'must name an owner and a repository (owner/name)');
  const name = segments.at(-1) ?? '';
  return { host: host.toLowerCase(), owner: segments.slice(0, -1).join('/'), name, url };
}

/** A local path has no owner boundary of its own: the last two segments are owner and name. */
function fromFilePath(url: string, path: string): RepositoryRef {
  const segments = splitRepositoryPath(path);
  if (segments.length < 2) throw new RepositoryUrlError(url, 'must end in /owner/name.git');
  return { host: '', owner: segments.at(-2) ?? '', name: segments.at(-1) ?? '', url };
}

function splitRepositoryPath(path: string): string[] {
  const segments = path.split('/').filter((segment) => segment.length > 0);
  const last = segments.at(-1);
  if (last?.endsWith('.git') === true) segments[segments.length - 1] = last.slice(0, -'.git'.length);
  if (segments.some((segment) => segment === '.' || segment === '..' || segment.length === 0)) return [];
  return segments;
}
