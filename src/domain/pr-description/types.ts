// What the PR description shows. Plain data mirrored from the ChangeGroup status (ADR 59): the
// controller builds it, this module only renders and reads it back.

// One vocabulary for phases, component states and skip-CI modes: the ChangeGroup model's.
import type { ChangeGroupPhase, ComponentState, SkipCiMode } from '../changegroup/model.ts';

export {
  CHANGE_GROUP_PHASES,
  COMPONENT_STATES,
  SKIP_CI_MODES,
  type ChangeGroupPhase,
  type ComponentState,
  type SkipCiMode,
} from '../changegroup/model.ts';

/** One row of the status table. Every text field is shown as given ('' for "none yet"). */
export interface ComponentRow {
  readonly name: string;
  readonly state: ComponentState;
  /** Usually `shortDigest(status.components[].originalBuild)`. */
  readonly originalBuild: string;
  /** Usually `shortDigest(status.components[].newBuild)`. */
  readonly newBuild: string;
  readonly newBuildPullSpec: string;
  readonly buildPipelineRun: string;
  /** Already formatted for humans, e.g. `10:30:00 UTC`. */
  readonly lastUpdate: string;
}

/** How a reader finds the ChangeGroup: a console page, or a kubectl command to run. */
export type ChangeGroupLink =
  | {
      readonly kind: 'console';
      /** `http(s)` URL; `{namespace}` and `{name}` are replaced with URL-encoded values. */
      readonly urlTemplate: string;
    }
  | { readonly kind: 'kubectl' };

export interface Checkboxes {
  /** "build now with the components ready so far" */
  readonly buildNow: boolean;
  /** "rebase: discard manual changes" */
  readonly rebase: boolean;
}

export interface DescriptionInput {
  readonly changeGroup: { readonly name: string; readonly namespace: string };
  readonly link: ChangeGroupLink;
  readonly nudgedComponent: string;
  readonly components: readonly ComponentRow[];
  readonly phase: ChangeGroupPhase;
  readonly mode: SkipCiMode;
  /**
   * Whether the description must carry `[skip ci]`: description mode, until the final push (see
   * `skipCiPlacement`). Ignored in commitMessage mode, where the description never carries it.
   */
  readonly skipCi: boolean;
  readonly checkboxes: Checkboxes;
  /** A one-paragraph notice shown prominently, e.g. why the ChangeGroup timed out or failed. */
  readonly note?: string;
}

/** The managed block's content as read back from a description. */
export interface ManagedContent {
  readonly changeGroup: { readonly name: string; readonly namespace: string };
  readonly nudgedComponent: string;
  readonly phase: ChangeGroupPhase;
  readonly components: readonly ComponentRow[];
  /** Whether nudger rendered `[skip ci]` into the block (from the end marker). */
  readonly skipCiRendered: boolean;
  readonly note?: string;
}

export interface ParsedDescription {
  /** The managed block, or undefined when none is found intact enough to locate. */
  readonly managed: ManagedContent | undefined;
  /** Ticked boxes inside the managed block (`- [x]` or `- [X]`). */
  readonly checkboxes: Checkboxes;
  /** Any of PaC's four skip markers anywhere in the description. */
  readonly skipCiPresent: boolean;
  /** nudger rendered `[skip ci]` and no skip marker is left: D4's "build now" signal. */
  readonly skipCiRemoved: boolean;
  /** `checkboxes.buildNow || skipCiRemoved`. */
  readonly buildNowRequested: boolean;
  /** Text outside the managed block, byte for byte (all of it when there is no block). */
  readonly humanText: { readonly before: string; readonly after: string };
  /** The text outside the block differs from what nudger saw when it last wrote the block. */
  readonly humanTextEdited: boolean;
  /**
   * Someone changed the block other than by ticking its boxes or removing `[skip ci]`, or broke a
   * marker. False when the description simply has no block at all.
   */
  readonly tamperedManagedBlock: boolean;
}

/** `sha256:` plus the first `hexChars` hex digits, as the ADR's table shows digests. */
export function shortDigest(digest: string, hexChars = 12): string {
  const match = /^(sha256:)([0-9a-f]+)$/.exec(digest);
  return match ? `${match[1] ?? ''}${(match[2] ?? '').slice(0, hexChars)}` : digest;
}

/** D4: where the skip marker goes for a given mode and whether this is the final push. */
export function skipCiPlacement(
  mode: SkipCiMode,
  final: boolean,
): { readonly inCommitMessage: boolean; readonly inDescription: boolean } {
  return {
    inCommitMessage: mode === 'commitMessage' && !final,
    inDescription: mode === 'description' && !final,
  };
}
