// Cycle detection for nudge graphs. A cycle is an infinite nudge loop (ADR 29 and ADR 67 both
// demand a DAG). Namespaces can hold tens of thousands of edges, so nothing here recurses: a
// recursive DFS would overflow the call stack on a long chain.
import { compareStrings } from './compare.ts';

interface Condensation {
  /** Node names by dense id; ids are what the hot loops work on. */
  readonly names: readonly string[];
  /** Successor ids by node id (distinct only if the caller's successors are). */
  readonly adjacency: readonly (readonly number[] | undefined)[];
  /** Strongly connected components as node ids, in the order Tarjan completes them. */
  readonly components: readonly (readonly number[])[];
}

/**
 * Tarjan's algorithm with an explicit call stack and typed-array state. Successors that are not
 * in `nodes` are visited too, so a sloppy node list cannot hide a cycle.
 */
function condense(nodes: readonly string[], successors: (n: string) => readonly string[]): Condensation {
  const ids = new Map<string, number>();
  const names: string[] = [];
  const adjacency: (readonly number[] | undefined)[] = [];
  let capacity = Math.max(nodes.length, 1);
  let index = new Int32Array(capacity).fill(-1);
  let low = new Int32Array(capacity);
  let nextSuccessor = new Int32Array(capacity);
  let onStack = new Uint8Array(capacity);
  const grow = (): void => {
    capacity *= 2;
    const widen = <T extends Int32Array | Uint8Array>(old: T, wider: T): T => {
      wider.set(old);
      return wider;
    };
    index = widen(index, new Int32Array(capacity).fill(-1));
    low = widen(low, new Int32Array(capacity));
    nextSuccessor = widen(nextSuccessor, new Int32Array(capacity));
    onStack = widen(onStack, new Uint8Array(capacity));
  };
  const idOf = (name: string): number => {
    let id = ids.get(name);
    if (id === undefined) {
      id = names.length;
      ids.set(name, id);
      names.push(name);
      if (id >= capacity) grow();
    }
    return id;
  };
  for (const name of nodes) idOf(name);

  const stack: number[] = [];
  const callStack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  const enter = (v: number): void => {
    index[v] = counter;
    low[v] = counter;
    counter += 1;
    nextSuccessor[v] = 0;
    stack.push(v);
    onStack[v] = 1;
    callStack.push(v);
    adjacency[v] = successors(names[v] ?? '').map(idOf);
  };

  // `names` grows while successors are discovered, hence the index loop.
  for (let root = 0; root < names.length; root += 1) {
    if (index[root] !== -1) continue;
    enter(root);
    while (callStack.length > 0) {
      const v = callStack[callStack.length - 1] ?? 0;
      const succ = adjacency[v] ?? [];
      const position = nextSuccessor[v] ?? 0;
      if (position < succ.length) {
        nextSuccessor[v] = position + 1;
        const w = succ[position] ?? 0;
        if (index[w] === -1) enter(w);
        else if (onStack[w] === 1) low[v] = Math.min(low[v] ?? 0, index[w] ?? 0);
        continue;
      }
      callStack.pop();
      const parent = callStack[callStack.length - 1];
      if (parent !== undefined) low[parent] = Math.min(low[parent] ?? 0, low[v] ?? 0);
      if (low[v] !== index[v]) continue;
      const component: number[] = [];
      let w: number;
      do {
        w = stack.pop() ?? v;
        onStack[w] = 0;
        component.push(w);
      } while (w !== v);
      components.push(component);
    }
  }
  return { names, adjacency, components };
}

/** Strongly connected components as sorted name lists, in no particular order. */
export function stronglyConnectedComponents(
  nodes: readonly string[],
  successors: (n: string) => readonly string[],
): string[][] {
  const { names, components } = condense(nodes, successors);
  return components.map((component) => component.map((v) => names[v] ?? '').sort(compareStrings));
}

/** Shortest cycle of at least two nodes through `start`, by BFS that never leaves `members`. */
function shortestCycleThrough(
  start: string,
  members: ReadonlySet<string>,
  successors: (n: string) => readonly string[],
): string[] {
  const parent = new Map<string, string>([[start, start]]);
  const queue = [start];
  // The queue grows while it is walked; an array iterator sees the pushed items.
  for (const u of queue) {
    // Sorted so that among equally short cycles the same one is always chosen.
    for (const w of [...successors(u)].sort(compareStrings)) {
      if (!members.has(w) || (w === start && u === start)) continue;
      if (w === start) {
        const path = [start];
        for (let at = u; at !== start; at = parent.get(at) ?? start) path.push(at);
        path.push(start);
        return path.reverse();
      }
      if (!parent.has(w)) {
        parent.set(w, u);
        queue.push(w);
      }
    }
    /* node:coverage disable */
  }
  // Unreachable for a true strongly connected component of two or more nodes.
  return [start, start];
}
/* node:coverage enable */

function compareCycles(a: readonly string[], b: readonly string[]): number {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i += 1) {
    const order = compareStrings(a[i] ?? '', b[i] ?? '');
    if (order !== 0) return order;
    /* node:coverage disable */
  }
  // Only equal cycles get here: two distinct shortest cycles never share a prefix.
  return a.length - b.length;
}
/* node:coverage enable */

/**
 * At least one cycle per strongly connected component, plus every self-loop, each as a path with
 * its first node repeated last (`['a', 'b', 'a']`). Each component's cycle starts at its smallest
 * name and is the shortest one through it, so the output is stable and easy to read. Sorted.
 */
export function findCycles(nodes: readonly string[], successors: (n: string) => readonly string[]): string[][] {
  const { names, adjacency, components } = condense(nodes, successors);
  const nameOf = (v: number): string => names[v] ?? '';
  const cycles: string[][] = [];
  for (const component of components) {
    for (const v of component) {
      if (adjacency[v]?.includes(v) === true) cycles.push([nameOf(v), nameOf(v)]);
    }
    if (component.length > 1) {
      const members = component.map(nameOf).sort(compareStrings);
      cycles.push(shortestCycleThrough(members[0] ?? '', new Set(members), successors));
    }
  }
  return cycles.sort(compareCycles);
}
