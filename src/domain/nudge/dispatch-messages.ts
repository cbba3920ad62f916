// The words of the dispatcher's Events: one place, so that every path that records the same outcome
// says it the same way. Messages name objects, reasons and times; the failure text they quote is
// the controller's classification of an error, already free of secrets.
/** Why a target, or a whole build, was not fired: the marker's reason tokens. */
export const SKIP_REASONS = {
  notSucceeded: 'not-succeeded',
  deletedUnfinished: 'deleted-unfinished',
  nudgeConfigRemoved: 'nudgeconfig-removed',
  entryRemoved: 'entry-removed',
  targetNotFound: 'target-not-found',
  selfNudge: 'self-nudge',
  superseded: 'superseded',
  integrationService: 'integration-service',
  tooManyTargets: 'too-many-targets',
  preMerge: 'pre-merge',
} as const;

/** The failure reason of an attempt found started but never recorded. */
export const INTERRUPTED = 'interrupted';

export interface MessageContext {
  readonly build: string;
  readonly component: string;
  readonly supersededBy?: string;
}

/** Why `target` was skipped, for a human; unknown tokens (a D3 rejection) are quoted as they are. */
export function skipText(context: MessageContext, target: string, reason: string): string {
  switch (reason) {
    case SKIP_REASONS.entryRemoved:
      return `the NudgeConfig no longer has an immediate entry ${context.component} -> ${target}`;
    case SKIP_REASONS.targetNotFound:
      return `Component ${target} does not exist`;
    case SKIP_REASONS.selfNudge:
      return 'a component never nudges itself';
    case SKIP_REASONS.nudgeConfigRemoved:
      return 'the namespace no longer has a NudgeConfig';
    case SKIP_REASONS.superseded:
      return `the newer build ${context.supersededBy ?? ''} of ${context.component} nudges instead`;
    case SKIP_REASONS.integrationService:
      return 'integration-service already nudged from this build';
    case SKIP_REASONS.preMerge:
      return `this build of a merged pull request is pinned in ${target}'s pre-merge nudge pull request instead`;
    default:
      return reason;
  }
}

export function skippedMessage(context: MessageContext, target: string, reason: string): string {
  return `the nudge of ${target} from build ${context.build} is skipped: ${skipText(context, target, reason)}`;
}

/** The build as a whole is not fired from. */
export function buildSkippedMessage(context: MessageContext, reason: string): string {
  return `build ${context.build} nudges nothing: ${skipText(context, '', reason)}`;
}

export function heldMessage(context: MessageContext, target: string, changeGroup: string, record: string): string {
  return (
    `the nudge of ${target} from build ${context.build} is held by ChangeGroup ${changeGroup}: ` +
    `its digest goes into the ChangeGroup pull request (held-nudge record ${record})`
  );
}

export function nudgedMessage(
  context: MessageContext,
  target: string,
  pullSpec: string,
  executor: string,
  detail: string | undefined,
): string {
  const where = detail === undefined || detail === '' ? '' : `: ${detail}`;
  return `nudged ${target} to ${pullSpec} from build ${context.build} (${executor} executor)${where}`;
}

export interface FailureFacts {
  readonly target: string;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly reason: string;
  readonly message: string;
  /** The next attempt's earliest time (ms); undefined when this was the last. */
  readonly notBefore: number | undefined;
}

export function failedMessage(context: MessageContext, facts: FailureFacts): string {
  const next =
    facts.notBefore === undefined
      ? 'giving up'
      : `next attempt not before ${new Date(facts.notBefore).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
  return (
    `attempt ${String(facts.attempt)}/${String(facts.maxAttempts)} to nudge ${facts.target} from build ` +
    `${context.build} failed (${facts.reason}): ${facts.message}; ${next}`
  );
}

export const INTERRUPTED_TEXT =
  'nudger stopped or lost its lease before recording the result; the nudge may have been made';

export function tooManyTargetsMessage(context: MessageContext, targets: number, limit: number): string {
  return (
    `build ${context.build} of ${context.component} has ${String(targets)} immediate targets, more than its ` +
    `marker annotation can record (${String(limit)} characters); nothing is nudged from it`
  );
}
