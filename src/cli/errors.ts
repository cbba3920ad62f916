// Exit codes are a contract (docs/cli.md): 0 fine, 1 the input has errors, 2 usage or I/O problems.
export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;

/** The command line itself is wrong: an unknown option value, a missing argument, an ambiguous name. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Errors whose message is already a complete one-line explanation for a human. */
export function isUserFacingError(error: unknown): error is Error {
  return error instanceof Error && USER_FACING.has(error.name);
}

const USER_FACING = new Set([
  'UsageError',
  'InputError',
  'ManifestSyntaxError',
  'MigrationError',
  'PlanError',
  'WriteError',
  'ScenarioError',
  'ControlPlaneBinariesError',
  'ControlPlaneStartError',
]);

/** One line, never a stack trace: the first line of the message of an error we do not know. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n', 1)[0] ?? 'unknown error';
}
