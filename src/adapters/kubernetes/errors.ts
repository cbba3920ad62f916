// Typed Kubernetes API failures. Messages are one line, name the verb and the object, and carry the
// server's own reason; they never include request headers, tokens or response bodies beyond
// `Status.message`.
import type { KubeStatus } from './types.ts';

/** What the failed request was about, for messages and for callers that branch on it. */
export interface RequestTarget {
  /** `get`, `list`, `watch`, `create`, `replace`, `patch`, `delete`, `replaceStatus`, ... */
  readonly verb: string;
  /** `configmaps`, `components.appstudio.redhat.com`, ... */
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
}

export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  /** The HTTP status code; 0 when no response arrived (connection refused, reset, timeout). */
  readonly statusCode: number;
  /** `Status.reason` (`NotFound`, `Conflict`, `Expired`, ...) or a transport reason (`ECONNREFUSED`). */
  readonly reason: string;
  readonly target: RequestTarget;
  /** From `Status.details.retryAfterSeconds` or a `Retry-After` header, when the server gave one. */
  readonly retryAfterSeconds?: number;

  constructor(
    target: RequestTarget,
    statusCode: number,
    reason: string,
    detail: string,
    options: { retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(
      `${describeTarget(target)}: ${statusCode === 0 ? reason : `${String(statusCode)} ${reason}`}: ${oneLine(detail)}`,
      {
        cause: options.cause,
      },
    );
    this.statusCode = statusCode;
    this.reason = reason;
    this.target = target;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function describeTarget(target: RequestTarget): string {
  const object =
    target.name === undefined
      ? target.namespace === undefined
        ? target.resource
        : `${target.resource} in namespace ${target.namespace}`
      : target.namespace === undefined || target.namespace === ''
        ? `${target.resource}/${target.name}`
        : `${target.resource} ${target.namespace}/${target.name}`;
  return `${target.verb} ${object}`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 512 ? `${line.slice(0, 509)}...` : line;
}

const REASON_BY_CODE: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function isKubeStatus(value: unknown): value is KubeStatus {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

/** Builds the error for an HTTP failure from the (possibly unparseable) response body. */
export function errorFromResponse(
  target: RequestTarget,
  statusCode: number,
  body: unknown,
  retryAfterHeader?: string,
): KubeApiError {
  const status = isKubeStatus(body) ? body : undefined;
  const reason = nonEmpty(status?.reason) ?? REASON_BY_CODE[statusCode] ?? 'Unknown';
  const detail = nonEmpty(status?.message) ?? `the server responded with HTTP ${String(statusCode)}`;
  const retryAfterSeconds = status?.details?.retryAfterSeconds ?? parseRetryAfter(retryAfterHeader);
  return new KubeApiError(
    target,
    statusCode,
    reason,
    detail,
    retryAfterSeconds === undefined ? {} : { retryAfterSeconds },
  );
}

/** Builds the error for a watch `ERROR` event. */
export function errorFromStatus(target: RequestTarget, status: KubeStatus): KubeApiError {
  const code = typeof status.code === 'number' ? status.code : 500;
  return errorFromResponse(target, code, { ...status, kind: 'Status' });
}

/** Builds the error for a request that got no HTTP response at all. */
export function errorFromTransport(target: RequestTarget, cause: unknown): KubeApiError {
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  const name = cause instanceof Error ? cause.name : undefined;
  const reason =
    typeof code === 'string' ? code : name === 'TimeoutError' || name === 'AbortError' ? name : 'TransportError';
  const message = cause instanceof Error ? cause.message : String(cause);
  return new KubeApiError(target, 0, reason, message, { cause });
}

/**
 * Maps anything a Kubernetes call can throw (our own errors, client-node's `ApiException` with
 * `code`/`body`, the `statusCode` errors of client-node's `Watch`, or a socket error) to a
 * `KubeApiError`. Headers are never copied: they may hold credentials.
 */
export function toKubeApiError(target: RequestTarget, error: unknown): KubeApiError {
  if (error instanceof KubeApiError) return error;
  if (typeof error === 'object' && error !== null) {
    const fields = error as { code?: unknown; statusCode?: unknown; body?: unknown };
    const statusCode =
      typeof fields.code === 'number' ? fields.code : typeof fields.statusCode === 'number' ? fields.statusCode : 0;
    if (statusCode > 0) return errorFromResponse(target, statusCode, parseMaybeJson(fields.body));
  }
  return errorFromTransport(target, error);
}

function parseMaybeJson(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

function parseRetryAfter(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text === '' ? undefined : text;
}

function statusOf(error: unknown): number | undefined {
  return error instanceof KubeApiError ? error.statusCode : undefined;
}

export function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404;
}

/** A resourceVersion precondition failed (optimistic concurrency): read again and retry. */
export function isConflict(error: unknown): boolean {
  return statusOf(error) === 409 && (error as KubeApiError).reason !== 'AlreadyExists';
}

export function isAlreadyExists(error: unknown): boolean {
  return statusOf(error) === 409 && (error as KubeApiError).reason === 'AlreadyExists';
}

/** The requested resourceVersion is older than etcd keeps: the caller must list again. */
export function isGone(error: unknown): boolean {
  return statusOf(error) === 410 || (error instanceof KubeApiError && error.reason === 'Expired');
}

export function isTooManyRequests(error: unknown): boolean {
  return statusOf(error) === 429;
}
