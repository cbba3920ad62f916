// Renders nudge graphs as Mermaid, Graphviz DOT or JSON. Edges that close a cycle are highlighted so
// that a picture of an invalid graph shows where the problem is.
import type { NamespaceGraph } from '../../domain/graph.ts';
import { type NudgeEdge, type NudgeMode, UNSET_NAMESPACE } from '../../domain/model.ts';
import { compareStrings } from '../../domain/compare.ts';

export type GraphFormat = 'mermaid' | 'dot' | 'json';

export interface GraphRenderInput {
  readonly graphs: readonly NamespaceGraph[];
  /** Edge keys (`from->to` within a namespace) that lie on a reported cycle. */
  readonly cycleEdges: ReadonlySet<string>;
}

export function cycleEdgeKey(namespace: string, from: string, to: string): string {
  return `${namespace}\u0000${from}\u0000${to}`;
}

/**
 * One group per (from, to), sorted: the graph may hold the same edge from two sources (a NudgeConfig
 * entry and a build-nudges-ref item). The first declaration represents the group.
 */
function edgeGroups(graph: NamespaceGraph): (readonly [NudgeEdge, ...NudgeEdge[]])[] {
  const groups = new Map<string, [NudgeEdge, ...NudgeEdge[]]>();
  for (const edge of graph.edges) {
    const key = `${edge.from}\u0000${edge.to}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [edge]);
    else group.push(edge);
  }
  return [...groups.values()].sort(([a], [b]) => compareStrings(a.from, b.from) || compareStrings(a.to, b.to));
}

function distinctEdges(graph: NamespaceGraph): NudgeEdge[] {
  return edgeGroups(graph).map(([first]) => first);
}

// Code-point order, not locale order: output must be identical on every machine.

function namespaceLabel(namespace: string): string {
  return namespace === UNSET_NAMESPACE ? '(namespace unset)' : namespace;
}

export function renderMermaid({ graphs, cycleEdges }: GraphRenderInput): string {
  const lines = ['flowchart LR'];
  const ids = new Map<string, string>();
  const idFor = (namespace: string, name: string): string => {
    const key = `${namespace}\u0000${name}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = `n${String(ids.size)}`;
      ids.set(key, id);
    }
    return id;
  };
  let linkIndex = 0;
  const cycleLinks: number[] = [];
  for (const graph of graphs) {
    const indent = graphs.length > 1 ? '    ' : '  ';
    if (graphs.length > 1)
      lines.push(`  subgraph ${idFor(graph.namespace, '')}["${mermaidText(namespaceLabel(graph.namespace))}"]`);
    for (const node of graph.nodes) lines.push(`${indent}${idFor(graph.namespace, node)}["${mermaidText(node)}"]`);
    for (const edge of distinctEdges(graph)) {
      const from = idFor(graph.namespace, edge.from);
      const to = idFor(graph.namespace, edge.to);
      lines.push(
        edge.mode === 'validated'
          ? `${indent}${from} -. "validated: ${mermaidText(edge.gatingGroup ?? '?')}" .-> ${to}`
          : `${indent}${from} --> ${to}`,
      );
      if (cycleEdges.has(cycleEdgeKey(graph.namespace, edge.from, edge.to))) cycleLinks.push(linkIndex);
      linkIndex += 1;
    }
    if (graphs.length > 1) lines.push('  end');
  }
  if (cycleLinks.length > 0) lines.push(`  linkStyle ${cycleLinks.join(',')} stroke:#d00,stroke-width:3px`);
  return `${lines.join('\n')}\n`;
}

/** What may stand in a Mermaid label as itself: nothing that could end the label or the line. */
const MERMAID_PLAIN = /[^A-Za-z0-9 ._/:@+=,-]/gu;

/**
 * Labels are quoted, and every other character is written as a Mermaid entity code (`#35;`), so
 * that a name can neither end its label (`"`, `]`), start a statement (newline, `;`), turn into
 * markdown or HTML (backtick, `<`) nor carry a terminal escape. Node ids are generated (`n0`).
 */
function mermaidText(text: string): string {
  return text.replace(MERMAID_PLAIN, (char) => `#${String(char.codePointAt(0))};`);
}

export function renderDot({ graphs, cycleEdges }: GraphRenderInput): string {
  const lines = ['digraph nudges {', '  rankdir=LR;', '  node [shape=box, style=rounded];'];
  for (const graph of graphs) {
    const prefix = graphs.length > 1 ? `${graph.namespace}/` : '';
    lines.push(
      `  subgraph ${dotId(`cluster_${graph.namespace}`)} {`,
      `    label=${dotId(namespaceLabel(graph.namespace))};`,
    );
    for (const node of graph.nodes) lines.push(`    ${dotId(prefix + node)} [label=${dotId(node)}];`);
    for (const edge of distinctEdges(graph)) {
      const attrs: string[] = [];
      if (edge.mode === 'validated')
        attrs.push('style=dashed', `label=${dotId(`validated: ${edge.gatingGroup ?? '?'}`)}`);
      if (cycleEdges.has(cycleEdgeKey(graph.namespace, edge.from, edge.to))) attrs.push('color=red', 'penwidth=2');
      const suffix = attrs.length > 0 ? ` [${attrs.join(', ')}]` : '';
      lines.push(`    ${dotId(prefix + edge.from)} -> ${dotId(prefix + edge.to)}${suffix};`);
    }
    lines.push('  }');
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

// eslint-disable-next-line no-control-regex -- control characters are what is escaped here
const DOT_ENTITY = /[&\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A DOT quoted string: `"` and `\` escaped (so it ends only where it should and carries no escString
 * such as `\N`); control characters, which would also reach a terminal, and `&` as HTML entities,
 * which Graphviz renders.
 */
function dotId(text: string): string {
  const escaped = text
    .replaceAll('\\', '\\\\')
    .replaceAll('"', '\\"')
    .replace(DOT_ENTITY, (char) => `&#${String(char.charCodeAt(0))};`);
  return `"${escaped}"`;
}

/** ADR 67's words for where a component stands in the graph: what it nudges and what nudges it. */
export type NodeRole = 'nudging' | 'nudged' | 'both' | 'none';

export interface NodeRoleJson {
  role: NodeRole;
  /** The modes of the declarations of its outgoing edges, sorted; `[]` when it nudges nothing. */
  nudgesVia: NudgeMode[];
  /**
   * The modes of the declarations of its incoming edges, sorted. `["validated"]` alone means every
   * digest it is nudged with has passed a gating group's tests first (ADR 67 validated mode).
   */
  nudgedVia: NudgeMode[];
}

export interface GraphJson {
  namespaces: {
    namespace: string;
    nodes: string[];
    /** Keyed by every name of `nodes`. */
    roles: Record<string, NodeRoleJson>;
    edges: {
      from: string;
      to: string;
      mode: string;
      /** Always present on a validated edge: `null` when its entry names no group (it never fires). */
      gatingGroup?: string | null;
      declaredBy: { via: string; object: string; file: string; line?: number }[];
      onCycle: boolean;
    }[];
  }[];
}

/** Each node's role and the modes of its edges, from every declaration (a pair may be declared twice). */
export function nodeRoles(graph: NamespaceGraph): Record<string, NodeRoleJson> {
  const outgoing = new Map<string, Set<NudgeMode>>();
  const incoming = new Map<string, Set<NudgeMode>>();
  const add = (modes: Map<string, Set<NudgeMode>>, name: string, mode: NudgeMode): void => {
    const set = modes.get(name);
    if (set === undefined) modes.set(name, new Set([mode]));
    else set.add(mode);
  };
  for (const edge of graph.edges) {
    add(outgoing, edge.from, edge.mode);
    add(incoming, edge.to, edge.mode);
  }
  const sorted = (modes: Set<NudgeMode> | undefined): NudgeMode[] => [...(modes ?? [])].sort(compareStrings);
  const roles: Record<string, NodeRoleJson> = {};
  for (const node of graph.nodes) {
    const nudgesVia = sorted(outgoing.get(node));
    const nudgedVia = sorted(incoming.get(node));
    const role: NodeRole =
      nudgesVia.length > 0 ? (nudgedVia.length > 0 ? 'both' : 'nudging') : nudgedVia.length > 0 ? 'nudged' : 'none';
    // defineProperty: a name such as `__proto__` is a key like any other, not the prototype.
    Object.defineProperty(roles, node, {
      value: { role, nudgesVia, nudgedVia },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return roles;
}

export function renderJson({ graphs, cycleEdges }: GraphRenderInput): GraphJson {
  return {
    namespaces: graphs.map((graph) => ({
      namespace: graph.namespace,
      nodes: [...graph.nodes],
      roles: nodeRoles(graph),
      edges: edgeGroups(graph).map((declarations) => {
        const [edge] = declarations;
        return {
          from: edge.from,
          to: edge.to,
          mode: edge.mode,
          ...(edge.gatingGroup !== undefined
            ? { gatingGroup: edge.gatingGroup }
            : edge.mode === 'validated'
              ? { gatingGroup: null }
              : {}),
          declaredBy: declarations.map((e) => ({
            via: e.origin.via,
            object: e.origin.object.name,
            file: e.origin.location.file,
            ...(e.origin.location.line === undefined ? {} : { line: e.origin.location.line }),
          })),
          onCycle: cycleEdges.has(cycleEdgeKey(graph.namespace, edge.from, edge.to)),
        };
      }),
    })),
  };
}
