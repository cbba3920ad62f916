// Test fixtures as an informer hands them over: decoded by their kind, or the test fails naming the
// fields that do not match, so a fixture can never hold what no cache could.
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import type { WatchedKind } from '../../src/runtime/watched-kind.ts';

export function decoded<T extends KubeObject>(kind: WatchedKind<T>, raw: KubeObject): T {
  const result = kind.decode(raw);
  if (result.ok) return result.object;
  const problems = result.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');
  throw new Error(`fixture ${kind.resource.kind} ${raw.metadata?.name ?? ''} does not decode: ${problems}`);
}
