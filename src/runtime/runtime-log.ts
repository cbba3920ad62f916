// The logger shape the runtime writes to: pino's `(object, message)` call style, so a pino logger
// (or a child of one) can be passed as is. Objects carry references (`{ controller, key }`), never
// object bodies or credentials.
import { redactSecretShapes } from '../domain/secret-shapes.ts';

export interface RuntimeLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

const ignore = (): void => undefined;

export const silentLogger: RuntimeLogger = { debug: ignore, info: ignore, warn: ignore, error: ignore };

/**
 * A one-line description of a thrown value for log fields (no stack: logs are user-facing too),
 * redacted by shape: an error nudger did not classify (an executor's programming error, a library's
 * failure) may quote a URL with credentials or an echoed Authorization header, and no secret
 * reaches a log (docs/decisions.md D9). The logger masks secret-named keys, not text.
 */
export function describeError(error: unknown): string {
  return redactSecretShapes(unredacted(error));
}

function unredacted(error: unknown): string {
  if (error instanceof Error) return error.message === '' ? error.name : error.message;
  if (typeof error === 'string') return error;
  try {
    return `non-Error thrown: ${JSON.stringify(error)}`;
  } catch {
    return 'non-Error thrown';
  }
}
