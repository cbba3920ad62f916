// AdmissionReview (admission.k8s.io/v1, and v1beta1 which has the same shape): the request schema
// the API server sends, the decision a handler returns, and the response built from it.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import Type from 'typebox';
import { StringEnum } from '../schema/common.ts';
import { isRecord } from '../domain/records.ts';
import { unescapeJsonPointerToken, type JsonPatchOperation } from '../domain/json-patch.ts';

export const ADMISSION_API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
export type AdmissionApiVersion = (typeof ADMISSION_API_VERSIONS)[number];

export const ADMISSION_OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;
export type AdmissionOperation = (typeof ADMISSION_OPERATIONS)[number];

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  /** The kind before `matchPolicy: Equivalent` converted the object to the registered version. */
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  /** Absent (or null) on DELETE. */
  object?: unknown;
  /** Absent (or null) on CREATE and CONNECT. */
  oldObject?: unknown;
  dryRun?: boolean;
  options?: unknown;
}

/** RFC 6902 operations: the only patch type an admission response may carry. */
export type { JsonPatchOperation } from '../domain/json-patch.ts';

export type AdmissionDecision =
  | { allowed: true; warnings?: string[]; patch?: JsonPatchOperation[] }
  | {
      allowed: false;
      /** HTTP-style code shown to the client; default 403. */
      code?: number;
      /** A metav1.StatusReason such as `Forbidden` or `Invalid`; default `Forbidden` for 403. */
      reason?: string;
      message: string;
      warnings?: string[];
    };

/**
 * Decides one admission request. `signal` aborts when the handler timeout passes or the API server
 * hangs up; a handler doing I/O should pass it on.
 */
export type AdmissionHandler = (
  request: AdmissionRequest,
  signal: AbortSignal,
) => AdmissionDecision | Promise<AdmissionDecision>;

export interface AdmissionReview {
  apiVersion: AdmissionApiVersion;
  request: AdmissionRequest;
}

export interface AdmissionStatus {
  code: number;
  reason?: string;
  message: string;
}

export interface AdmissionResponseBody {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
}

export interface AdmissionReviewResponse {
  apiVersion: AdmissionApiVersion;
  kind: 'AdmissionReview';
  response: AdmissionResponseBody;
}

/** The body is not an AdmissionReview the webhook can answer; the server turns this into HTTP 400. */
export class AdmissionReviewError extends Error {
  /** The offending field, e.g. `request.operation`; `(body)` for the whole body. */
  readonly field: string;
  readonly problem: string;
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = 'AdmissionReviewError';
    this.field = field;
    this.problem = problem;
  }
}

const GroupVersionKindSchema = Type.Object({ group: Type.String(), version: Type.String(), kind: Type.String() });
const GroupVersionResourceSchema = Type.Object({
  group: Type.String(),
  version: Type.String(),
  resource: Type.String(),
});

// Only what the webhook relies on is checked; unknown fields are allowed, so a newer API server
// adding request fields keeps working. `object` and `oldObject` are left to the handler.
const AdmissionRequestSchema = Type.Object({
  uid: Type.String({ minLength: 1 }),
  kind: GroupVersionKindSchema,
  resource: GroupVersionResourceSchema,
  subResource: Type.Optional(Type.String()),
  requestKind: Type.Optional(GroupVersionKindSchema),
  requestResource: Type.Optional(GroupVersionResourceSchema),
  requestSubResource: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  operation: StringEnum(ADMISSION_OPERATIONS),
  userInfo: Type.Object({
    username: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    groups: Type.Optional(Type.Array(Type.String())),
    extra: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  }),
  object: Type.Optional(Type.Unknown()),
  oldObject: Type.Optional(Type.Unknown()),
  dryRun: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Unknown()),
});

let compiledRequestValidator: ValidateFunction | undefined;

function requestValidator(): ValidateFunction {
  // Stop at the first error: the answer is one line, and a hostile body should not cost more.
  // `verbose` keeps the offending value on the error, to say what type was found.
  compiledRequestValidator ??= new Ajv({ allErrors: false, verbose: true, strict: true, logger: false }).compile(
    AdmissionRequestSchema,
  );
  return compiledRequestValidator;
}

/** Checks an already JSON-parsed body and returns the request with the version to answer in. */
export function readAdmissionReview(body: unknown): AdmissionReview {
  if (!isRecord(body)) throw new AdmissionReviewError('(body)', `must be a JSON object, found ${describe(body)}`);
  const { apiVersion, kind, request } = body;
  if (!ADMISSION_API_VERSIONS.includes(apiVersion as AdmissionApiVersion)) {
    throw new AdmissionReviewError('apiVersion', `must be one of ${ADMISSION_API_VERSIONS.join(', ')}`);
  }
  if (kind !== 'AdmissionReview') throw new AdmissionReviewError('kind', 'must be AdmissionReview');
  if (request === undefined) throw new AdmissionReviewError('request', 'required field is missing');
  const validate = requestValidator();
  if (!validate(request)) throw firstProblem(validate.errors);
  return { apiVersion: apiVersion as AdmissionApiVersion, request: request as AdmissionRequest };
}

export function parseAdmissionReview(body: unknown): AdmissionRequest {
  return readAdmissionReview(body).request;
}

function firstProblem(errors: ErrorObject[] | null | undefined): AdmissionReviewError {
  const error = errors?.[0];
  if (error === undefined) return new AdmissionReviewError('request', 'is not a valid admission request');
  const path = ['request', ...error.instancePath.split('/').slice(1).map(unescapeJsonPointerToken)];
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return new AdmissionReviewError(
        fieldName([...path, String(params.missingProperty)]),
        'required field is missing',
      );
    case 'type':
      return new AdmissionReviewError(fieldName(path), `must be ${String(params.type)}, found ${describe(error.data)}`);
    case 'enum':
      return new AdmissionReviewError(
        fieldName(path),
        `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`,
      );
    default:
      return new AdmissionReviewError(fieldName(path), error.message ?? `fails ${error.keyword}`);
  }
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

// Keys come from the request; they are quoted and cut so a hostile key cannot forge a log or
// response line.
function fieldName(path: readonly string[]): string {
  return path
    .map((segment, index) => {
      if (/^\d+$/.test(segment)) return `[${segment}]`;
      if (PLAIN_KEY.test(segment)) return index === 0 ? segment : `.${segment}`;
      return `[${JSON.stringify(segment.length > 64 ? `${segment.slice(0, 64)}…` : segment)}]`;
    })
    .join('');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

// Warnings become HTTP `Warning` headers on the API server's reply; control characters there
// would make it drop the warning.
function headerSafe(warnings: readonly string[] | undefined): string[] | undefined {
  if (warnings === undefined || warnings.length === 0) return undefined;
  // eslint-disable-next-line no-control-regex
  return warnings.map((warning) => warning.replace(/[\u0000-\u001f\u007f]+/g, ' '));
}

/** The AdmissionReview the API server expects back: same version, the request's uid. */
export function admissionResponse(
  apiVersion: AdmissionApiVersion,
  uid: string,
  decision: AdmissionDecision,
): AdmissionReviewResponse {
  const response: AdmissionResponseBody = { uid, allowed: decision.allowed };
  if (decision.allowed) {
    if (decision.patch !== undefined && decision.patch.length > 0) {
      response.patch = Buffer.from(JSON.stringify(decision.patch)).toString('base64');
      response.patchType = 'JSONPatch';
    }
  } else {
    const code = decision.code ?? 403;
    const reason = decision.reason ?? (code === 403 ? 'Forbidden' : undefined);
    response.status =
      reason === undefined ? { code, message: decision.message } : { code, reason, message: decision.message };
  }
  const warnings = headerSafe(decision.warnings);
  if (warnings !== undefined) response.warnings = warnings;
  return { apiVersion, kind: 'AdmissionReview', response };
}
