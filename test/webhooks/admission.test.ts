import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  AdmissionReviewError,
  admissionResponse,
  parseAdmissionReview,
  readAdmissionReview,
} from '../../src/webhooks/admission.ts';
import { answerAdmission } from '../../src/webhooks/server.ts';
import { admissionReview } from './client.ts';

function problemOf(body: unknown): string {
  try {
    readAdmissionReview(body);
  } catch (error) {
    assert.ok(error instanceof AdmissionReviewError);
    return error.message;
  }
  assert.fail('accepted');
}

describe('readAdmissionReview', () => {
  it('returns the request and the version to answer in', () => {
    const review = readAdmissionReview(admissionReview({}, 'admission.k8s.io/v1beta1'));
    assert.equal(review.apiVersion, 'admission.k8s.io/v1beta1');
    assert.equal(review.request.uid, '705ab4f5-6393-11e8-b7cc-42010a800002');
    assert.equal(parseAdmissionReview(admissionReview()).operation, 'CREATE');
  });

  it('accepts a DELETE without object and fields a newer API server may add', () => {
    const request = parseAdmissionReview(
      admissionReview({ operation: 'DELETE', object: null, oldObject: { kind: 'X' }, futureField: { a: 1 } }),
    );
    assert.equal(request.operation, 'DELETE');
  });

  it('names the offending field in one line', () => {
    assert.equal(problemOf(null), '(body): must be a JSON object, found null');
    assert.equal(
      problemOf({ kind: 'AdmissionReview' }),
      'apiVersion: must be one of admission.k8s.io/v1, admission.k8s.io/v1beta1',
    );
    assert.equal(
      problemOf({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }),
      'request: required field is missing',
    );
    assert.equal(problemOf({ ...admissionReview(), request: [] }), 'request: must be object, found array');
    assert.equal(problemOf(admissionReview({ uid: '' })), 'request.uid: must NOT have fewer than 1 characters');
    assert.equal(
      problemOf(admissionReview({ kind: { group: '', version: 'v1' } })),
      'request.kind.kind: required field is missing',
    );
    assert.equal(problemOf(admissionReview({ dryRun: 'yes' })), 'request.dryRun: must be boolean, found string');
    assert.equal(
      problemOf(admissionReview({ userInfo: { extra: { 'a/b': 'c' } } })),
      'request.userInfo.extra["a/b"]: must be array, found string',
    );
    const { userInfo: _dropped, ...withoutUser } = admissionReview().request;
    assert.equal(
      problemOf({ ...admissionReview(), request: withoutUser }),
      'request.userInfo: required field is missing',
    );
  });

  it('throws nothing but AdmissionReviewError, whatever the input', () => {
    const mutated = fc
      .tuple(
        fc.constantFrom(
          'uid',
          'kind',
          'resource',
          'operation',
          'userInfo',
          'name',
          'namespace',
          'dryRun',
          'requestKind',
        ),
        fc.jsonValue(),
      )
      .map(([field, value]) => admissionReview({ [field]: value }));
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.jsonValue(), mutated), (body) => {
        try {
          readAdmissionReview(body);
        } catch (error) {
          assert.ok(error instanceof AdmissionReviewError, String(error));
          assert.doesNotMatch(error.message, /\n/);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('admissionResponse', () => {
  it('builds allowed, patched and denied responses', () => {
    assert.deepEqual(admissionResponse('admission.k8s.io/v1', 'u1', { allowed: true }), {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'u1', allowed: true },
    });
    const patched = admissionResponse('admission.k8s.io/v1', 'u2', {
      allowed: true,
      patch: [{ op: 'add', path: '/spec/status', value: 'Cancelled' }],
    });
    assert.equal(patched.response.patchType, 'JSONPatch');
    assert.equal(
      Buffer.from(patched.response.patch ?? '', 'base64').toString(),
      '[{"op":"add","path":"/spec/status","value":"Cancelled"}]',
    );
    assert.equal(
      admissionResponse('admission.k8s.io/v1', 'u3', { allowed: true, patch: [] }).response.patch,
      undefined,
    );
    assert.deepEqual(
      admissionResponse('admission.k8s.io/v1beta1', 'u4', { allowed: false, code: 500, message: 'x', warnings: ['w'] }),
      {
        apiVersion: 'admission.k8s.io/v1beta1',
        kind: 'AdmissionReview',
        response: { uid: 'u4', allowed: false, status: { code: 500, message: 'x' }, warnings: ['w'] },
      },
    );
  });
});

describe('answerAdmission', () => {
  it('runs bytes through decoding, the handler and the response without a server', async () => {
    const outcome = await answerAdmission(
      (request) => ({ allowed: false, message: `no ${request.name ?? ''}` }),
      Buffer.from(JSON.stringify(admissionReview())),
      { timeoutMs: 1000 },
    );
    assert.equal(outcome.kind, 'decided');
    assert.equal(outcome.status, 200);
    assert.deepEqual(JSON.parse(outcome.body), {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
        allowed: false,
        status: { code: 403, reason: 'Forbidden', message: 'no nudge-config' },
      },
    });
  });

  it('treats a handler returning nonsense as a handler error', async () => {
    const outcome = await answerAdmission(() => undefined as never, Buffer.from(JSON.stringify(admissionReview())), {
      timeoutMs: 1000,
    });
    assert.equal(outcome.kind, 'handler-error');
    assert.equal(outcome.status, 500);
    assert.deepEqual(
      [
        (JSON.parse(outcome.body) as { kind: string; code: number }).kind,
        (JSON.parse(outcome.body) as { code: number }).code,
      ],
      ['Status', 500],
    );
  });
});
