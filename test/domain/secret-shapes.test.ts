// Text from someone else (a Tekton message quoting a Renovate log) loses whatever is shaped like a
// secret (docs/decisions.md N24), and keeps the rest readable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactSecretShapes } from '../../src/domain/secret-shapes.ts';

const GITHUB = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';
const GITLAB = 'glpat-xxxxxxxxxxxxxxxxxxxx';
const OPAQUE = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

describe('redactSecretShapes', () => {
  it('removes forge tokens, credentials in URLs, Authorization values and secret-named values', () => {
    const cases: readonly (readonly [string, string])[] = [
      [`https://x-access-token:${OPAQUE}@github.com/acme/x`, 'https://***@github.com/acme/x'],
      [`git fetch ssh://oauth2:${OPAQUE}@gitlab.example:22/a`, 'git fetch ssh://***@gitlab.example:22/a'],
      [`Authorization: Bearer ${OPAQUE}`, 'Authorization: [redacted]'],
      [`"authorization":"token ${OPAQUE}"`, '"authorization":"[redacted]"'],
      [`curl -H bearer ${OPAQUE}`, 'curl -H bearer [redacted]'],
      [`TOKEN_token_0=${OPAQUE} renovate`, 'TOKEN_token_0=[redacted] renovate'],
      [`{"password": "${OPAQUE}"}`, '{"password": "[redacted]"}'],
      [`RENOVATE_TOKEN: ${OPAQUE}`, 'RENOVATE_TOKEN: [redacted]'],
      [`bad credentials for ${GITHUB}.`, 'bad credentials for [redacted].'],
      [`token ${GITLAB} expired`, 'token [redacted] expired'],
      ['github_pat_11ABCDEFG0123456789_abcdefghijklmnop', '[redacted]'],
    ];
    for (const [text, expected] of cases) assert.equal(redactSecretShapes(text), expected, text);
  });

  it('leaves ordinary messages as they are', () => {
    for (const text of [
      'Tasks Completed: 1 (Failed: 1, Cancelled 0), Skipped: 0',
      'PipelineRun "renovate-pipeline-0123456789abcdef" failed to finish within "1h0m0s"',
      'https://github.com/acme/operator-bundle?rev=abc123 not found',
      'global-configuration-file-for-renovate missing',
      'Repository acme/x: the token was refused',
    ]) {
      assert.equal(redactSecretShapes(text), text);
    }
  });
});
