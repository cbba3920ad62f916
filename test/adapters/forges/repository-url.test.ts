import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRepositoryUrl, RepositoryUrlError } from '../../../src/adapters/forges/repository-url.ts';

describe('parseRepositoryUrl', () => {
  const cases: [string, { host: string; owner: string; name: string }][] = [
    ['https://github.com/konflux-ci/build-service', { host: 'github.com', owner: 'konflux-ci', name: 'build-service' }],
    [
      'https://github.com/konflux-ci/build-service.git',
      { host: 'github.com', owner: 'konflux-ci', name: 'build-service' },
    ],
    [
      'https://github.com/konflux-ci/build-service/',
      { host: 'github.com', owner: 'konflux-ci', name: 'build-service' },
    ],
    ['https://GitHub.com/Org/Repo.git', { host: 'github.com', owner: 'Org', name: 'Repo' }],
    ['http://127.0.0.1:8080/o/r.git', { host: '127.0.0.1:8080', owner: 'o', name: 'r' }],
    ['https://gitlab.com/group/sub/project.git', { host: 'gitlab.com', owner: 'group/sub', name: 'project' }],
    ['git@github.com:konflux-ci/build-service.git', { host: 'github.com', owner: 'konflux-ci', name: 'build-service' }],
    ['git@gitlab.com:group/sub/project', { host: 'gitlab.com', owner: 'group/sub', name: 'project' }],
    ['ssh://git@github.com/o/r.git', { host: 'github.com', owner: 'o', name: 'r' }],
    ['ssh://git@git.example.com:2222/o/r.git', { host: 'git.example.com:2222', owner: 'o', name: 'r' }],
    ['file:///var/lib/nudger/forge/acme/bundle.git', { host: '', owner: 'acme', name: 'bundle' }],
  ];
  for (const [url, expected] of cases) {
    it(`parses ${url}`, () => {
      assert.deepEqual(parseRepositoryUrl(url), { ...expected, url });
    });
  }

  const invalid: [string, RegExp][] = [
    ['', /is empty/],
    ['github.com/o/r', /is not a URL/],
    ['https://github.com/only-owner', /owner and a repository/],
    ['https://github.com/o/../r', /owner and a repository/],
    ['ftp://example.com/o/r', /unsupported scheme "ftp"/],
    ['https://github.com/o/r?x=1', /query or fragment/],
    ['file:///r.git', /owner\/name\.git/],
  ];
  for (const [url, reason] of invalid) {
    it(`rejects ${JSON.stringify(url)}`, () => {
      assert.throws(
        () => parseRepositoryUrl(url),
        (error: unknown) => error instanceof RepositoryUrlError && reason.test(error.message),
      );
    });
  }

  it('rejects embedded credentials without repeating them', () => {
    assert.throws(
      () => parseRepositoryUrl('https://x-access-token:ghp_secret@github.com/o/r.git'),
      (error: unknown) =>
        error instanceof RepositoryUrlError &&
        !error.message.includes('ghp_secret') &&
        error.message ===
          'repository URL "https://***@github.com/o/r.git": must not embed credentials; use an scm credentials Secret',
    );
  });
});
