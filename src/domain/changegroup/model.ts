// The vocabulary of ChangeGroup (ADR 59, docs/decisions.md D2-D5): phases, component states, condition
// types and reasons. Plain constants so the schema (src/schema/changegroup.ts), the state machine
// and the webhooks all spell them the same way.
// The values the API accepts are defined with the schema (src/schema sits innermost); the
// domain derives its types from them and adds what they mean.
import type { CHANGE_GROUP_PHASES, COMPONENT_STATES, SKIP_CI_MODES } from '../../schema/changegroup.ts';

export {
  CHANGE_GROUP_PHASES,
  COMPONENT_STATES,
  DEFAULT_SKIP_CI_MODE,
  MAX_NUDGING_COMPONENTS,
  SKIP_CI_MODES,
} from '../../schema/changegroup.ts';

export type ChangeGroupPhase = (typeof CHANGE_GROUP_PHASES)[number];

/** Phases a ChangeGroup never leaves: the pull request is merged, closed, or given up on. */
export const TERMINAL_PHASES: ReadonlySet<ChangeGroupPhase> = new Set(['Completed', 'Cancelled', 'Failed']);

/**
 * Phases in which a ChangeGroup holds nudges and collects builds. `Ready` is deliberately not one:
 * once Ready, the final build of the nudged component has been started (or a human asked for it
 * with "build now"), so a nudge arriving afterwards carries a change that build does not contain.
 * Swallowing it would lose that change; letting it through gives it the ordinary ADR 29 nudge PR.
 */
export const COLLECTING_PHASES: ReadonlySet<ChangeGroupPhase> = new Set(['Initialized', 'Waiting']);

export function isTerminalPhase(phase: ChangeGroupPhase): boolean {
  return TERMINAL_PHASES.has(phase);
}

export function isCollectingPhase(phase: ChangeGroupPhase): boolean {
  return COLLECTING_PHASES.has(phase);
}

/**
 * Per-component state. The ADR shows Waiting and Ready only. A component removed from the spec is
 * dropped from status altogether rather than kept as "Removed": the status is what the pull request
 * is rebuilt from (D5), so a lingering entry would risk its digest finding its way back in.
 * `NotReferenced`: its build was collected, but no file of the pull request references any of its
 * repositories by digest, so the PR changes nothing for it. Like Ready, it waits for nothing more.
 */
export type ComponentState = (typeof COMPONENT_STATES)[number];

/** States whose build is collected: nothing more to wait for. */
export function hasCollectedBuild(state: ComponentState): boolean {
  return state === 'Ready' || state === 'NotReferenced';
}

/** docs/decisions.md D4: where `[skip ci]` lives while components are still missing. */
export type SkipCiMode = (typeof SKIP_CI_MODES)[number];

export const CONDITION_ALL_COMPONENTS_READY = 'AllComponentsReady';
export const CONDITION_MANUAL_CHANGES_DETECTED = 'ManualChangesDetected';
/** D3: a held nudge whose build PipelineRun could not be verified is reported here. */
export const CONDITION_BUILDS_VERIFIED = 'BuildsVerified';

/** Reasons of `AllComponentsReady`; `WaitingForComponents` is the ADR's own. */
export const ALL_COMPONENTS_READY_REASONS = {
  ready: 'AllComponentsReady',
  /** Every build is collected, but the nudged repository references some of them nowhere. */
  readyNotReferenced: 'ComponentsNotReferenced',
  waiting: 'WaitingForComponents',
  /** A human ticked "build now" (or removed `[skip ci]` in description mode) before all were ready. */
  releasedEarly: 'BuildRequestedEarly',
  timedOut: 'TimedOut',
  noNudgingComponents: 'NoNudgingComponents',
} as const;

export const MANUAL_CHANGES_REASONS = {
  detected: 'ManualChanges',
  none: 'NoManualChanges',
} as const;

export const BUILDS_VERIFIED_REASONS = {
  verified: 'AllBuildsVerified',
  rejected: 'UnverifiedBuild',
} as const;

/**
 * Whether the forge of the nudged repository could be read and written with the namespace's
 * credentials, on the last attempt. Its message names the host and what went wrong, never a token.
 */
export const CONDITION_FORGE_AVAILABLE = 'ForgeAvailable';

export const FORGE_AVAILABLE_REASONS = {
  available: 'ForgeAvailable',
  /** No answer: connection refused, DNS, TLS, reset, timeout. */
  unreachable: 'ForgeUnreachable',
  /** No forge is configured for the host, or the repository URL names none. */
  notConfigured: 'ForgeNotConfigured',
  /** The namespace has no usable SCM Secret for the host and repository. */
  credentialsMissing: 'CredentialsMissing',
  /** The forge answered 401 or 403 to the credentials given. */
  credentialsRejected: 'CredentialsRejected',
  /** Any other failure the forge reported (5xx, a malformed answer, a git failure). */
  failed: 'ForgeRequestFailed',
} as const;
export type ForgeAvailableReason = (typeof FORGE_AVAILABLE_REASONS)[keyof typeof FORGE_AVAILABLE_REASONS];

/** The branch every ChangeGroup's single commit lives on (D5). */
export function changeGroupBranch(changeGroupName: string): string {
  return `konflux/change-groups/${changeGroupName}`;
}
