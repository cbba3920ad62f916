import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import { GraphqlResponseError } from '@octokit/graphql';
import fc from 'fast-check';
import { Credentials } from '../../../src/adapters/credentials/credentials.ts';
import { deriveGraphqlUrl, rateLimitDelay } from '../../../src/adapters/forges/github/client.ts';
import { toForgeError } from '../../../src/adapters/forges/github/errors.ts';
import {
  parseCommitList,
  parsePullRequest,
  ResponseShapeError,
  toPullRequest,
} from '../../../src/adapters/forges/github/responses.ts';

/** The shape of Octokit's RequestError, including the request headers it carries. */
function requestError(status: number, data: unknown, token: string, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`HTTP ${String(status)} token ${token}`), {
    name: 'HttpError',
    status,
    request: { method: 'GET', url: 'https://api.github.com/x', headers: { authorization: `token ${token}` } },
    response: { status, url: 'https://api.github.com/x', headers, data },
  });
}

const pullResponse = {
  number: 3,
  node_id: 'PR_x',
  html_url: 'https://github.com/acme/bundle/pull/3',
  state: 'closed',
  title: 'Update',
  body: null,
  draft: false,
  merged_at: '2026-01-01T00:00:00Z',
  created_at: '2026-01-01T00:00:00Z',
  head: { ref: 'feature', sha: 'abc' },
  base: { ref: 'main' },
};

describe('GitHub provider parts', () => {
  it('never lets the token out of a ForgeError built from an Octokit failure', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^ghs_[A-Za-z0-9]{16,40}$/),
        fc.constantFrom(401, 403, 404, 422, 500),
        fc.string(),
        (token, status, noise) => {
          const credentials = new Credentials({ token });
          const data = { message: `${noise} ${token}\nsecond line`, errors: [{ message: `echo ${token}` }] };
          const error = toForgeError(requestError(status, data, token), {
            operation: 'getPullRequest',
            repo: 'acme/bundle',
            credentials,
            endpoint: 'api.github.com:443',
          });
          assert.equal(error.status, status);
          assert.equal(error.cause, undefined);
          assert.ok(!error.reason.includes('\n'), 'one line');
          for (const text of [error.message, JSON.stringify(error), inspect(error, { depth: 10 }), error.stack ?? '']) {
            assert.ok(!text.includes(token), text);
          }
        },
      ),
    );
  });

  it('gives GraphQL errors the status REST would have used', () => {
    const credentials = new Credentials({ token: 'ghs_graphqlToken012345' });
    const context = {
      operation: 'markReadyForReview',
      repo: 'acme/bundle',
      credentials,
      endpoint: 'api.github.com:443',
    };
    const graphqlError = (type: string) =>
      new GraphqlResponseError(
        { method: 'POST', url: '/graphql', headers: { authorization: 'token ghs_graphqlToken012345' } },
        {},
        {
          data: undefined,
          errors: [
            { type, message: `failed: ${type}`, locations: [{ line: 1, column: 1 }], path: ['x'], extensions: {} },
          ],
        },
      );
    const notFound = toForgeError(graphqlError('NOT_FOUND'), context);
    assert.deepEqual([notFound.status, notFound.reason], [404, 'failed: NOT_FOUND']);
    assert.equal(toForgeError(graphqlError('FORBIDDEN'), context).status, 403);
    assert.equal(toForgeError(graphqlError('SOMETHING_ELSE'), context).status, 422);
  });

  it('reads the wait a rate limit asks for, and nothing else', () => {
    const error = (status: number, headers: Record<string, string>, message = '') =>
      Object.assign(requestError(status, {}, 'ghs_t0000000000000000', headers), { message });
    assert.equal(rateLimitDelay(error(429, { 'retry-after': '5' }), 0), 5000);
    assert.equal(
      rateLimitDelay(error(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '100' }), 40_000),
      60_000,
    );
    assert.equal(rateLimitDelay(error(403, {}, 'You have exceeded a secondary rate limit'), 0), 60_000);
    assert.equal(rateLimitDelay(error(403, {}, 'Resource not accessible by integration'), 0), undefined);
    assert.equal(rateLimitDelay(error(404, { 'retry-after': '5' }), 0), undefined);
    assert.equal(rateLimitDelay(new Error('network'), 0), undefined);
  });

  it('derives the GraphQL endpoint from the REST root', () => {
    assert.equal(deriveGraphqlUrl('https://api.github.com'), 'https://api.github.com/graphql');
    assert.equal(deriveGraphqlUrl('https://ghe.example.com/api/v3/'), 'https://ghe.example.com/api/graphql');
    assert.equal(deriveGraphqlUrl('https://api.acme.ghe.com'), 'https://api.acme.ghe.com/graphql');
  });

  it('maps closed + merged_at to merged, closed otherwise, and a null body to empty', () => {
    assert.deepEqual(toPullRequest(parsePullRequest(pullResponse)), {
      number: 3,
      url: 'https://github.com/acme/bundle/pull/3',
      state: 'merged',
      draft: false,
      title: 'Update',
      body: '',
      headBranch: 'feature',
      headSha: 'abc',
      baseBranch: 'main',
    });
    assert.equal(toPullRequest(parsePullRequest({ ...pullResponse, merged_at: null })).state, 'closed');
    assert.equal(toPullRequest(parsePullRequest({ ...pullResponse, state: 'open', draft: undefined })).draft, false);
  });

  it('names the field of a malformed response', () => {
    const problem = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        if (error instanceof ResponseShapeError) return error.problem;
        throw error;
      }
      return 'no error';
    };
    assert.equal(
      problem(() => parsePullRequest({ ...pullResponse, head: { ref: 'x', sha: 7 } })),
      'head.sha must be string',
    );
    assert.equal(
      problem(() => parsePullRequest({ ...pullResponse, base: {} })),
      'base.ref is missing',
    );
    assert.equal(
      problem(() => parseCommitList([{ sha: 'a', commit: {} }])),
      '[0].commit.message is missing',
    );
    assert.deepEqual(parseCommitList([{ sha: 'a', commit: { message: 'm', author: null } }]), [
      { sha: 'a', message: 'm', authorName: '', authorEmail: '' },
    ]);
  });
});
