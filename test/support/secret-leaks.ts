// Looking for a credential where it must never be (docs/decisions.md D9: no token reaches a log,
// Event, status, marker or PipelineRun parameter): every form a credential travels in, the manager's
// log captured line by line, and an assertion that names the place and only the first characters of
// what leaked, so that a failing test does not print the secret whole.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { basicAuthValue } from '../../src/adapters/credentials/credentials.ts';

export interface CapturedLog {
  /** Every chunk written, in order: pino writes one JSON line per chunk. */
  readonly lines: string[];
  /** A manager's `logDestination`. */
  readonly destination: Writable;
}

export function captureLog(): CapturedLog {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, destination };
}

/**
 * A token as it may travel: itself, base64 (as a Secret stores it) and git's HTTP Basic credential
 * `user:token`, plain and base64, for each user name (`x-access-token` is GitHub's).
 */
export function tokenForms(token: string, usernames: readonly string[] = []): string[] {
  const forms = [token, Buffer.from(token).toString('base64')];
  for (const username of ['x-access-token', ...usernames]) {
    forms.push(`${username}:${token}`, basicAuthValue(username, token));
  }
  return forms;
}

/** A PEM private key: each line long enough to be its own, and the start of its base64. */
export function privateKeyForms(pem: string): string[] {
  return [...pem.split('\n').filter((line) => line.length >= 16), Buffer.from(pem).toString('base64').slice(0, 64)];
}

/** `header.payload.signature` of a JWT (an App's, signed with its key): base64url JSON objects. */
export const JWT_SHAPE = /eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}/;

/** Fails on the first secret found in a place, naming the place and the secret's first characters. */
export function assertNoSecrets(places: Readonly<Record<string, string>>, secrets: readonly string[]): void {
  assert.ok(secrets.length > 0, 'something to look for');
  for (const [place, text] of Object.entries(places)) {
    for (const secret of secrets) assert.ok(!text.includes(secret), `leaked into ${place}: ${secret.slice(0, 12)}…`);
    assert.ok(!JWT_SHAPE.test(text), `a JWT leaked into ${place}`);
  }
}
