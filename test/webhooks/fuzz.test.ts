// Malformed and mutated AdmissionReviews POSTed to the real server: every reply is a well-formed
// AdmissionReview or a 4xx, never a 5xx from the server itself, never a crash or a hang.
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createLogger } from '../../src/runtime/logger.ts';
import type { AdmissionHandler } from '../../src/webhooks/admission.ts';
import { WebhookServer } from '../../src/webhooks/server.ts';
import { admissionReview, send, type Reply } from './client.ts';
import { certDirWith, removeDir, selfSignedCertificate } from './tls-fixture.ts';

const PATH = '/validate-konflux-ci-dev-v1alpha1-nudgeconfig';
const MAX_BODY = 1024 * 1024;

// A handler that reads the object the way real ones do, trusting nothing about its shape.
const handler: AdmissionHandler = (request) => {
  const object = request.object as { metadata?: { name?: unknown }; spec?: { nudges?: unknown } } | null | undefined;
  const nudges = object?.spec?.nudges;
  if (nudges !== undefined && !Array.isArray(nudges))
    return { allowed: false, code: 422, message: 'spec.nudges: must be a list' };
  if (object?.metadata?.name !== 'nudge-config')
    return { allowed: false, message: 'metadata.name must be nudge-config' };
  return { allowed: true };
};

const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const validText = JSON.stringify(admissionReview());

/** A JSON text with `raw` spliced in as the value of request[field]. */
function withRawField(field: string, raw: string): string {
  const review = admissionReview({ [field]: '\u0000PLACEHOLDER\u0000' });
  return JSON.stringify(review).replace('"\\u0000PLACEHOLDER\\u0000"', raw);
}

const REQUEST_FIELDS = [
  'uid',
  'kind',
  'resource',
  'subResource',
  'requestKind',
  'requestResource',
  'name',
  'namespace',
  'operation',
  'userInfo',
  'object',
  'oldObject',
  'dryRun',
  'options',
] as const;

const hostileValue = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.constantFrom(
    deepArray(10_000),
    deepObject(10_000),
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"username":"a","extra":{"__proto__":["x"]}}',
    '{"group":"","version":"v1","kind":"Pod","__proto__":{"kind":1}}',
    `"${'x'.repeat(600_000)}"`,
    '"\\ud800"',
    '1e999',
    '-0',
    'null',
  ),
);

const bodies: fc.Arbitrary<Buffer> = fc.oneof(
  // random JSON, and random JSON in the envelope
  fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value))),
  fc
    .record({ apiVersion: fc.jsonValue(), kind: fc.jsonValue(), request: fc.jsonValue() }, { requiredKeys: [] })
    .map((value) => Buffer.from(JSON.stringify(value))),
  // one field of a valid review replaced by something hostile, or removed
  fc
    .tuple(fc.constantFrom(...REQUEST_FIELDS), hostileValue)
    .map(([field, raw]) => Buffer.from(withRawField(field, raw))),
  fc.constantFrom(...REQUEST_FIELDS).map((field) => {
    const review = admissionReview();
    const request = Object.fromEntries(Object.entries(review.request).filter(([key]) => key !== field));
    return Buffer.from(JSON.stringify({ ...review, request }));
  }),
  // envelope-level prototype keys
  fc
    .constantFrom(
      `{"__proto__":{"apiVersion":"admission.k8s.io/v1"},${validText.slice(1)}`,
      `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"__proto__":${JSON.stringify(admissionReview().request)}}}`,
      deepArray(10_000),
      deepObject(10_000),
    )
    .map((text) => Buffer.from(text)),
  // truncated
  fc.nat({ max: validText.length - 1 }).map((cut) => Buffer.from(validText.slice(0, cut))),
  // random bytes, and a valid body with invalid UTF-8 spliced in
  fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
  fc
    .tuple(
      fc.nat({ max: validText.length }),
      fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => b.map((x) => x | 0x80)),
    )
    .map(([at, bytes]) =>
      Buffer.concat([Buffer.from(validText.slice(0, at)), Buffer.from(bytes), Buffer.from(validText.slice(at))]),
    ),
  // larger than the cap
  fc.constant(Buffer.from(`{"apiVersion":"${'x'.repeat(MAX_BODY)}"}`)),
);

function isWellFormedReview(reply: Reply): boolean {
  const parsed = JSON.parse(reply.text) as {
    apiVersion?: unknown;
    kind?: unknown;
    response?: { uid?: unknown; allowed?: unknown };
  };
  return (
    (parsed.apiVersion === 'admission.k8s.io/v1' || parsed.apiVersion === 'admission.k8s.io/v1beta1') &&
    parsed.kind === 'AdmissionReview' &&
    typeof parsed.response?.uid === 'string' &&
    typeof parsed.response.allowed === 'boolean'
  );
}

describe('WebhookServer under fuzzing', () => {
  let server: WebhookServer;
  let port: number;
  let certDir: string;
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });

  before(async () => {
    certDir = await certDirWith(await selfSignedCertificate());
    server = new WebhookServer({
      port: 0,
      host: '127.0.0.1',
      certDir,
      handlers: new Map([[PATH, handler]]),
      maxBodyBytes: MAX_BODY,
      logger: createLogger({ level: 'silent' }),
    });
    ({ port } = await server.start());
  });

  after(async () => {
    agent.destroy();
    await server.stop();
    await removeDir(certDir);
  });

  it('answers every body with a well-formed AdmissionReview or a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (bytes) => {
        const reply = await send(port, PATH, bytes, { agent, timeoutMs: 10_000 }).catch((error: unknown) => {
          // Over the cap the server may close before the client finishes writing.
          if (bytes.length > MAX_BODY) return undefined;
          throw error;
        });
        if (reply === undefined) return;
        assert.ok(reply.status < 500, `status ${String(reply.status)}: ${reply.text.slice(0, 200)}`);
        if (reply.status === 200) assert.ok(isWellFormedReview(reply), reply.text.slice(0, 200));
        else assert.ok([400, 413].includes(reply.status), `status ${String(reply.status)}`);
        assert.doesNotMatch(reply.text, /\n|at .*\.ts:\d+/);
      }),
      { numRuns: 300 },
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });

  it('still answers a valid request afterwards', async () => {
    const reply = await send(port, PATH, validText, { timeoutMs: 10_000 });
    assert.equal(reply.status, 200);
    assert.ok(isWellFormedReview(reply));
    assert.equal(server.ready, true);
  });
});
