// Positions recorded by the fast parsers while they read, in the shape SourceTree needs.
import type { SourceLocation } from '../domain/model.ts';
import type { PositionNode } from '../domain/simple-yaml.ts';
import type { FieldPath, SourceTree } from './source-tree.ts';

export class PositionTree implements SourceTree {
  readonly #file: string;
  readonly #node: PositionNode;

  constructor(file: string, node: PositionNode) {
    this.#file = file;
    this.#node = node;
  }

  location(): SourceLocation {
    return { file: this.#file, line: this.#node.line, column: this.#node.column };
  }

  isMapping(): boolean {
    return this.#node.fields !== undefined;
  }

  fieldLocation(path: FieldPath): SourceLocation {
    let node = this.#node;
    let marker: { line: number; column: number } = node;
    for (const segment of path) {
      const next = step(node, segment);
      if (next === undefined) break;
      node = next.value;
      marker = next.marker;
    }
    return { file: this.#file, line: marker.line, column: marker.column };
  }

  child(path: FieldPath): SourceTree | undefined {
    let node: PositionNode | undefined = this.#node;
    for (const segment of path) {
      if (node === undefined) return undefined;
      node = step(node, segment)?.value;
    }
    return node === undefined ? undefined : new PositionTree(this.#file, node);
  }

  items(): readonly (SourceTree | undefined)[] {
    return (this.#node.items ?? []).map((item) => new PositionTree(this.#file, item));
  }
}

function step(
  node: PositionNode,
  segment: string | number,
): { value: PositionNode; marker: { line: number; column: number } } | undefined {
  if (node.items !== undefined) {
    const item = typeof segment === 'number' ? node.items[segment] : undefined;
    return item === undefined ? undefined : { value: item, marker: item };
  }
  const field = node.fields?.get(String(segment));
  return field === undefined ? undefined : { value: field.value, marker: field };
}
