// What a document parsed by `yaml` must not be before it is turned into plain data: nested deeper
// than anything real (converting it, validating it and walking it are recursive and would overflow
// the stack with no file or line), or keyed by a collection (`{a: b}: c`, usually an unrendered
// Go template such as `{{ .Values.name }}`), which kubectl refuses and yaml would stringify with a
// warning on stderr. Checked without recursion, so that the check itself cannot overflow.
import { isMap, isNode, isSeq, type Node } from 'yaml';

/** Kubernetes objects, CRD schemas included, nest a few dozen levels; this is far beyond. */
export const MAX_NESTING_DEPTH = 256;

export interface ShapeProblem {
  /** Where to point: the first node past the limit, or the offending key. */
  readonly node: Node;
  readonly reason: string;
}

export function shapeProblem(root: Node): ShapeProblem | undefined {
  const pending: [Node, number][] = [[root, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (depth > MAX_NESTING_DEPTH) {
      return { node, reason: `nested more than ${String(MAX_NESTING_DEPTH)} levels deep` };
    }
    // Children are pushed last first, so that problems are found in document order.
    if (isSeq(node)) {
      for (const item of node.items.toReversed()) if (isNode(item)) pending.push([item, depth + 1]);
    } else if (isMap(node)) {
      const key = node.items.find((pair) => isMap(pair.key) || isSeq(pair.key))?.key;
      if (isNode(key)) {
        return {
          node: key,
          reason: 'a mapping key is itself a mapping or sequence (an unrendered template?); kubectl cannot read it',
        };
      }
      for (const { value } of node.items.toReversed()) if (isNode(value)) pending.push([value, depth + 1]);
    }
  }
  return undefined;
}
