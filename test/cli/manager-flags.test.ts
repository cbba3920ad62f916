// `nudger manager --github-host`: a host name, or host=apiUrl; `--github-app-secret`: the App's Secret.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { githubAppSource, parseForgeHostFlags } from '../../src/cli/commands/manager.ts';
import { UsageError } from '../../src/cli/errors.ts';

const parseGitHubHosts = (values: readonly string[]) => parseForgeHostFlags({ github: values });

function usageError(pattern: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UsageError, String(error));
    assert.match(error.message, pattern);
    return true;
  };
}

describe('parseGitHubHosts', () => {
  it('gives no hosts for no flags (github.com is the manager default)', () => {
    assert.deepEqual(parseGitHubHosts([]), new Map());
  });

  it('maps a bare host to its GitHub Enterprise REST base, lower-cased', () => {
    assert.deepEqual(
      parseGitHubHosts(['ghe.example.com', 'GHE2.Example.COM', 'ghe3.example.com:8443']),
      new Map([
        ['ghe.example.com', { kind: 'github', apiUrl: 'https://ghe.example.com/api/v3' }],
        ['ghe2.example.com', { kind: 'github', apiUrl: 'https://ghe2.example.com/api/v3' }],
        ['ghe3.example.com:8443', { kind: 'github', apiUrl: 'https://ghe3.example.com:8443/api/v3' }],
      ]),
    );
  });

  it('maps github.com to api.github.com', () => {
    assert.deepEqual(parseGitHubHosts(['github.com']).get('github.com'), {
      kind: 'github',
      apiUrl: 'https://api.github.com',
    });
  });

  it('takes host=url as given', () => {
    assert.deepEqual(
      parseGitHubHosts(['ghe.example.com=https://api.ghe.example.com/v3', 'Local=http://127.0.0.1:8080/api']),
      new Map([
        ['ghe.example.com', { kind: 'github', apiUrl: 'https://api.ghe.example.com/v3' }],
        ['local', { kind: 'github', apiUrl: 'http://127.0.0.1:8080/api' }],
      ]),
    );
  });

  it('lets a later flag for the same host win', () => {
    const hosts = parseGitHubHosts(['ghe.example.com', 'ghe.example.com=https://other/api']);
    assert.equal(hosts.size, 1);
    assert.equal(hosts.get('ghe.example.com')?.apiUrl, 'https://other/api');
  });

  it('rejects values that do not start with a host name', () => {
    for (const value of ['', '=https://x', 'https://ghe.example.com', 'ghe example.com', 'ghe/x', 'user@ghe']) {
      assert.throws(() => parseGitHubHosts([value]), usageError(/does not start with a host name/), value);
    }
  });

  it('rejects an API URL that is not http(s)', () => {
    for (const value of ['ghe.example.com=', 'ghe.example.com=ftp://ghe', 'ghe.example.com=ghe.example.com/api']) {
      assert.throws(() => parseGitHubHosts([value]), usageError(/is not an http\(s\) URL/), value);
    }
  });

  it('keeps an API URL containing "=" whole', () => {
    assert.equal(
      parseGitHubHosts(['ghe.example.com=https://ghe.example.com/api/v3?tenant=a']).get('ghe.example.com')?.apiUrl,
      'https://ghe.example.com/api/v3?tenant=a',
    );
  });
});

describe('--github-app-secret', () => {
  it('names the Pipelines-as-Code Secret, default build-service/pipelines-as-code-secret, or none', () => {
    const source = githubAppSource('build-service/pipelines-as-code-secret');
    assert.deepEqual(source?.secret, { namespace: 'build-service', name: 'pipelines-as-code-secret' });
    assert.equal(githubAppSource('none'), undefined);
  });

  it('exits 2 naming the flag for anything else', () => {
    for (const value of ['pipelines-as-code-secret', 'a/b/c', 'Build/x']) {
      assert.throws(() => githubAppSource(value), usageError(/^--github-app-secret "/), value);
    }
  });
});

describe('--gitlab-host (docs/decisions.md D12, N32)', () => {
  it('maps a bare host to its /api/v4 REST base and takes host=url as given, beside GitHub hosts', () => {
    assert.deepEqual(
      parseForgeHostFlags({
        github: ['ghe.example.com'],
        gitlab: ['GitLab.Example.com', 'gl2.example.com=https://gl2.example.com/gitlab/api/v4'],
      }),
      new Map([
        ['ghe.example.com', { kind: 'github', apiUrl: 'https://ghe.example.com/api/v3' }],
        ['gitlab.example.com', { kind: 'gitlab', apiUrl: 'https://gitlab.example.com/api/v4' }],
        ['gl2.example.com', { kind: 'gitlab', apiUrl: 'https://gl2.example.com/gitlab/api/v4' }],
      ]),
    );
  });

  it('names the --gitlab-host flag in its errors', () => {
    assert.throws(
      () => parseForgeHostFlags({ gitlab: ['gitlab.example.com=ftp://x'] }),
      usageError(/^--gitlab-host: "ftp:\/\/x" is not an http\(s\) URL$/),
    );
  });
});
