// Which controllers `nudger manager` runs, by group (docs/decisions.md N39): `konflux` (the
// default: ChangeGroups, stale references, nudge runs, the dispatcher) and `korifi` (the Korifi
// builder controllers, D13). A group that is off sets nothing up, so the manager never asks for
// its kinds. Kept apart from the modules themselves so that the CLI can parse the flag without
// loading any controller.

export const CONTROLLER_GROUPS = ['konflux', 'korifi'] as const;
export type ControllerGroup = (typeof CONTROLLER_GROUPS)[number];

/** What runs without `--controllers`: the Konflux controllers only. */
export const DEFAULT_CONTROLLER_GROUPS: readonly ControllerGroup[] = ['konflux'];

/** `--controllers` names what it does not know. The message names the value, never more. */
export class ControllerGroupsError extends Error {
  override readonly name = 'ControllerGroupsError';
  readonly value: string;
  constructor(value: string, problem: string) {
    super(problem);
    this.value = value;
  }
}

function isGroup(name: string): name is ControllerGroup {
  return (CONTROLLER_GROUPS as readonly string[]).includes(name);
}

/**
 * `konflux`, `korifi`, `all`, or a comma-separated list of them (spaces around commas allowed),
 * as the groups it names in CONTROLLER_GROUPS order, each once.
 */
export function parseControllerGroups(value: string): readonly ControllerGroup[] {
  const names = value.split(',').map((name) => name.trim());
  const chosen = new Set<ControllerGroup>();
  for (const name of names) {
    if (name === 'all') CONTROLLER_GROUPS.forEach((group) => chosen.add(group));
    else if (isGroup(name)) chosen.add(name);
    else {
      const shown = name === '' ? 'an empty name' : `"${name}"`;
      throw new ControllerGroupsError(
        value,
        `${shown} is not a controller group (one or more of ${CONTROLLER_GROUPS.join(', ')}, comma-separated, or all)`,
      );
    }
  }
  return CONTROLLER_GROUPS.filter((group) => chosen.has(group));
}
