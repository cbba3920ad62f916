// Structured JSON logs. Secrets are masked by key name at any depth before a line is written:
// pino's own `redact` needs every path spelled out in advance, and the objects nudger logs (API
// errors carrying request headers, client configs, Kubernetes objects) nest secrets anywhere.
import { pino, type DestinationStream, type LevelWithSilentOrString } from 'pino';
import { redactSecretShapes } from '../domain/secret-shapes.ts';

export type Logger = pino.Logger;

/** Keys whose values are never written, wherever they appear. Over-masks names like `secretName`. */
export const SECRET_KEY = /token|password|secret|authorization|cookie|private.?key/i;
export const REDACTED = '[REDACTED]';

/** Deeper than this a value is cut: log fields are small, and a hostile object must not stall logging. */
const MAX_DEPTH = 24;

export interface LoggerOptions {
  readonly level: LevelWithSilentOrString;
  /** Where lines go; stdout when absent. Tests pass an in-memory stream. */
  readonly destination?: DestinationStream;
}

export function createLogger({ level, destination }: LoggerOptions): Logger {
  const logger = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (bindings) => redactSecrets(bindings) as Record<string, unknown>,
        log: (fields) => redactSecrets(fields) as Record<string, unknown>,
      },
      // redactSecrets already turned errors into plain records; pino's default err serializer
      // would rename them to type "Object".
      serializers: { err: (value: unknown) => value },
    },
    destination,
  );
  // pino applies `formatters.bindings` to the root logger only; children would write their
  // bindings unmasked. Children inherit this override through their prototype chain.
  type ChildFn = (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => unknown;
  // Unbound on purpose: maskedChild calls it with the logger it is invoked on.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const pinoChild = logger.child as unknown as ChildFn;
  function maskedChild(this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions): unknown {
    return pinoChild.call(this, redactSecrets(bindings) as pino.Bindings, options);
  }
  logger.child = maskedChild as unknown as Logger['child'];
  return logger;
}

/**
 * A copy of `value` with every secret-named key masked. Plain data is copied, errors become
 * `{type, message, stack, ...fields}`, values with their own `toJSON` (Date, Buffer) pass as is.
 */
export function redactSecrets(value: unknown): unknown {
  return mask(value, 0, new WeakSet());
}

function mask(value: unknown, depth: number, ancestors: WeakSet<object>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  if (!(value instanceof Error) && typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item: unknown) => mask(item, depth + 1, ancestors));
    const copy: Record<string, unknown> = {};
    if (value instanceof Error) {
      copy.type = value.name;
      // An error's text may quote a credential (a URL with user information, an echoed header):
      // masked by shape, as describeError masks it (docs/decisions.md D9).
      copy.message = redactSecretShapes(value.message);
      copy.stack = value.stack === undefined ? undefined : redactSecretShapes(value.stack);
      if (value.cause !== undefined) copy.cause = mask(value.cause, depth + 1, ancestors);
    }
    for (const [key, field] of Object.entries(value)) {
      // defineProperty, so a `__proto__` key from parsed JSON stays a field instead of a prototype.
      Object.defineProperty(copy, key, {
        value: SECRET_KEY.test(key) ? REDACTED : mask(field, depth + 1, ancestors),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  } finally {
    // Only ancestors count as cycles: the same object twice side by side is logged twice.
    ancestors.delete(value);
  }
}

export interface ObjectRef {
  kind?: string;
  namespace?: string;
  name?: string;
}

/** `{kind, namespace, name}` of a Kubernetes object for log fields; never its contents. */
export function ref(object: unknown): ObjectRef {
  const result: ObjectRef = {};
  if (typeof object !== 'object' || object === null) return result;
  const { kind, metadata } = object as { kind?: unknown; metadata?: unknown };
  if (typeof kind === 'string') result.kind = kind;
  if (typeof metadata === 'object' && metadata !== null) {
    const { namespace, name } = metadata as { namespace?: unknown; name?: unknown };
    if (typeof namespace === 'string') result.namespace = namespace;
    if (typeof name === 'string') result.name = name;
  }
  return result;
}
