// How the `direct` executor classifies failures for the dispatcher's marker (docs/decisions.md N18,
// N20), and who it commits as.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Credentials } from '../../src/adapters/credentials/credentials.ts';
import { ForgeError } from '../../src/adapters/forges/errors.ts';
import { parseRepositoryUrl } from '../../src/adapters/forges/repository-url.ts';
import { ForgeResolutionError } from '../../src/adapters/forges/resolver.ts';
import type { ForgeProvider } from '../../src/adapters/forges/types.ts';
import { GitCommandError, LeaseRejectedError } from '../../src/adapters/git/errors.ts';
import { classifyFireError } from '../../src/controllers/dispatch/direct/failures.ts';
import { gitIdentityOf, defaultGitAuthorOf } from '../../src/controllers/dispatch/direct/identity.ts';
import { NudgeInputError } from '../../src/domain/nudge/errors.ts';

const TOKEN = 'ghs_failureTokenNeverShown0123456789';
const credentials = new Credentials({ token: TOKEN });

const forgeError = (status: number | undefined, transport?: { code: string; host: string }) =>
  new ForgeError({
    forge: 'github',
    operation: 'createPullRequest',
    repo: 'acme/bundle',
    reason: `refused ${TOKEN}`,
    ...(status === undefined ? {} : { status }),
    ...(transport === undefined ? {} : { transport }),
  });
const gitError = (details: string) => new GitCommandError('push', 'https://github.com/acme/bundle', 'failed', details);

describe('classifyFireError', () => {
  const cases: [string, unknown, string, boolean][] = [
    [
      'connection refused',
      forgeError(undefined, { code: 'ECONNREFUSED', host: 'api:443' }),
      'forge-unavailable',
      false,
    ],
    ['a 502', forgeError(502), 'forge-unavailable', false],
    ['a 422', forgeError(422), 'forge-rejected', false],
    ['a 401', forgeError(401), 'no-credentials', true],
    ['a 403', forgeError(403), 'no-credentials', true],
    ['a 404', forgeError(404), 'repository-not-found', true],
    ['no SCM Secret', new ForgeResolutionError('https://github.com/a/b', 'ns', 'no Secret'), 'no-credentials', true],
    ['an unknown host', new ForgeResolutionError('https://x.io/a/b', 'ns', 'no forge', 'no-forge'), 'no-forge', true],
    ['git refused the token', gitError('fatal: Authentication failed for'), 'no-credentials', true],
    [
      'git found no repository',
      gitError("remote: Repository not found.\nfatal: repository 'x' not found"),
      'repository-not-found',
      true,
    ],
    ['git found no base branch', gitError("fatal: couldn't find remote ref main"), 'repository-not-found', true],
    ['git timed out', gitError('fatal: unable to access: Failed to connect to github.com'), 'forge-unavailable', false],
    ['git failed otherwise', gitError('error: something odd'), 'git-failed', false],
    ['a lease rejected', new LeaseRejectedError('repo', 'branch', 'a'.repeat(40)), 'branch-moved', false],
    [
      'an input that would break the text',
      new NudgeInputError('nudged', 'is not a component name'),
      'invalid-input',
      true,
    ],
  ];
  for (const [what, error, reason, permanent] of cases) {
    it(`${what}: ${reason}${permanent ? ', permanent' : ', retried'}`, () => {
      const result = classifyFireError(error, credentials);
      assert.deepEqual([result.reason, result.permanent === true], [reason, permanent]);
      assert.ok(!result.message.includes(TOKEN), 'redacted');
    });
  }

  it('rethrows what no forge, git or input can cause (a programming error)', () => {
    assert.throws(() => classifyFireError(new TypeError('x is undefined'), credentials), TypeError);
  });
});

describe('commit identity', () => {
  const forgeWith = (username: string | undefined, host: string) => ({
    provider: {
      credentials: username === undefined ? undefined : new Credentials({ token: TOKEN, username }),
    } as ForgeProvider,
    repo: { ...parseRepositoryUrl('https://github.com/acme/bundle'), host },
  });

  it('is build-service’s SCM-token author: the Secret’s username, else red-hat-konflux', () => {
    assert.equal(
      defaultGitAuthorOf(forgeWith('konflux-bot', 'github.com')),
      'konflux-bot <123456+konflux-bot[bot]@users.noreply.github.com>',
    );
    assert.equal(
      defaultGitAuthorOf(forgeWith('x-access-token', 'github.com')),
      'red-hat-konflux <123456+red-hat-konflux[bot]@users.noreply.github.com>',
    );
    // GitLab's provider pushes as `oauth2` when the Secret names no user: not a user either (N38).
    assert.equal(
      defaultGitAuthorOf(forgeWith('oauth2', 'gitlab.com')),
      'red-hat-konflux <123456+red-hat-konflux[bot]@users.noreply.gitlab.com>',
    );
    assert.equal(
      defaultGitAuthorOf(forgeWith(undefined, '')),
      'red-hat-konflux <123456+red-hat-konflux[bot]@users.noreply.localhost>',
    );
  });

  it('is the App’s bot for a GitHub App installation token', () => {
    const forge = {
      ...forgeWith('x-access-token', 'github.com'),
      githubApp: { appId: 1, installationId: 2, appSlug: 'red-hat-konflux', botId: 126015336 },
    };
    assert.equal(
      defaultGitAuthorOf(forge),
      'red-hat-konflux <126015336+red-hat-konflux[bot]@users.noreply.github.com>',
    );
  });

  it('splits into the name and address git takes', () => {
    assert.deepEqual(gitIdentityOf('red-hat-konflux <126015336+red-hat-konflux[bot]@users.noreply.github.com>'), {
      name: 'red-hat-konflux',
      email: '126015336+red-hat-konflux[bot]@users.noreply.github.com',
    });
    assert.throws(() => gitIdentityOf('no address'), NudgeInputError);
  });
});
