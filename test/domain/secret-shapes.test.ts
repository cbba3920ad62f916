// Text from someone else (a Tekton message quoting a Renovate log) loses whatever is shaped like a
// secret (docs/decisions.md N24), and keeps the rest readable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactSecretShapes } from '../../src/domain/secret-shapes.ts';

const GITHUB = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';
const GITLAB = 'glpat-xxxxxxxxxxxxxxxxxxxx';
const OPAQUE = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
/** A GitHub App's JWT: RS256 header, `iat`/`exp`/`iss` payload, signature. */
const JWT =
  'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3OTU2OTI5NTgsImV4cCI6MTc5NTY5MzU1OCwiaXNzIjoxMDAwfQ.bl-yi0tKX7JeUKIoOBC4Oc0Sx-7rN_31619kBWlB290n3gCy';

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
      [`Authorization: bearer ${JWT}`, 'Authorization: [redacted]'],
      // A JWT quoted without its scheme, and one a message cut short in its signature.
      [`jwt ${JWT} refused`, 'jwt [redacted] refused'],
      [`cut: ${JWT.slice(0, JWT.lastIndexOf('.') + 4)}…`, 'cut: [redacted]…'],
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
