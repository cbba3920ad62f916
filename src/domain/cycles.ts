// Cycle detection for nudge graphs. A cycle is an infinite nudge loop (ADR 29 and ADR 67 both
// demand a DAG). Namespaces can hold tens of thousands of edges, so nothing here recurses: a
// recursive DFS would overflow the call stack on a long chain.
import { compareStrings } from './graph.ts';

/** Names interned as dense integers, so the hot loops work on arrays instead of string maps. */
class Interner {
  readonly names: string[] = [];
  readonly #ids = new Map<string, number>();

  idOf(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.#ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }
}

/**
 * Strongly connected components by Tarjan's algorithm, with an explicit call stack. Successors
 * that are not in `nodes` are visited too, so a sloppy node list cannot hide a cycle.
 */
export function stronglyConnectedComponents(
  nodes: readonly string[],
  successors: (n: string) => readonly string[],
): string[][] {
  const interner = new Interner();
  for (const name of nodes) interner.idOf(name);
  const adjacency: (readonly number[] | undefined)[] = [];
  const succOf = (v: number): readonly number[] => {
    let ids = adjacency[v];
    if (ids === undefined) {
      ids = successors(interner.names[v] ?? '').map((w) => interner.idOf(w));
      adjacency[v] = ids;
    }
    return ids;
  };

  const index: number[] = [];
  const low: number[] = [];
  const onStack: boolean[] = [];
  const nextSuccessor: number[] = [];
  const stack: number[] = [];
  const components: string[][] = [];
  let counter = 0;

  const enter = (v: number, callStack: number[]): void => {
    index[v] = counter;
    low[v] = counter;
    counter += 1;
    nextSuccessor[v] = 0;
    stack.push(v);
    onStack[v] = true;
    callStack.push(v);
  };

  // `names` grows while successors are discovered, hence the index loop.
  for (let root = 0; root < interner.names.length; root += 1) {
    if (index[root] !== undefined) continue;
    const callStack: number[] = [];
    enter(root, callStack);
    while (callStack.length > 0) {
      const v = callStack[callStack.length - 1] ?? 0;
      const succ = succOf(v);
      const position = nextSuccessor[v] ?? 0;
      if (position < succ.length) {
        nextSuccessor[v] = position + 1;
        const w = succ[position] ?? 0;
        if (index[w] === undefined) enter(w, callStack);
        else if (onStack[w] === true) low[v] = Math.min(low[v] ?? 0, index[w]);
        continue;
      }
      callStack.pop();
      const parent = callStack[callStack.length - 1];
      if (parent !== undefined) low[parent] = Math.min(low[parent] ?? 0, low[v] ?? 0);
      if (low[v] !== index[v]) continue;
      const component: string[] = [];
      let w: number | undefined;
      do {
        w = stack.pop() ?? v;
        onStack[w] = false;
        component.push(interner.names[w] ?? '');
      } while (w !== v);
      components.push(component.sort(compareStrings));
    }
  }
  return components;
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
  const cycles: string[][] = [];
  for (const component of stronglyConnectedComponents(nodes, successors)) {
    for (const name of component) {
      if (successors(name).includes(name)) cycles.push([name, name]);
    }
    const [start] = component;
    if (start !== undefined && component.length > 1) {
      cycles.push(shortestCycleThrough(start, new Set(component), successors));
    }
  }
  return cycles.sort(compareCycles);
}
