// The environment of every git child process. Built from an allowlist rather than inherited, so a
// stray GIT_* variable of the host cannot redirect a push, and git's messages are in English for
// the lease detection. The token, when there is one, travels as an `http.<origin>/.extraHeader`
// config entry through GIT_CONFIG_COUNT/KEY/VALUE: not in argv (visible in `ps`), not in
// .git/config, not in the URL (which git echoes in its messages).
import { basicAuthValue, type Credentials } from '../credentials/credentials.ts';

const INHERITED = [
  'PATH',
  'HOME',
  'TMPDIR',
  'SYSTEMROOT',
  'SSH_AUTH_SOCK',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
];

export type GitEnvironment = Record<string, string>;

/** Every GIT_* key this module may set; simple-git refuses guarded keys not declared up front. */
export const GIT_ENVIRONMENT_KEYS = [
  'GIT_TERMINAL_PROMPT',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_KEY_0',
  'GIT_CONFIG_VALUE_0',
  'GIT_INDEX_FILE',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_DATE',
] as const;

export type GitEnvironmentKey = (typeof GIT_ENVIRONMENT_KEYS)[number];

export function gitEnvironment(extra: Partial<Record<GitEnvironmentKey, string>> = {}): GitEnvironment {
  const env: GitEnvironment = { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
  for (const key of INHERITED) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) env[key] = value;
  return env;
}

/** The config entries that authenticate HTTP(S) requests to `repoUrl`'s origin; none for other schemes. */
export function authEnvironment(
  repoUrl: string,
  credentials: Credentials | undefined,
): Partial<Record<GitEnvironmentKey, string>> {
  if (credentials === undefined) return {};
  let origin: string;
  try {
    const url = new URL(repoUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return {};
    origin = url.origin;
  } catch {
    return {};
  }
  return {
    GIT_CONFIG_COUNT: '1',
    // Scoped to the origin so that a redirect elsewhere does not carry the header along.
    GIT_CONFIG_KEY_0: `http.${origin}/.extraHeader`,
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basicAuthValue(credentials.username, credentials.revealToken())}`,
  };
}
