// A fast path for JSON manifests (`kubectl get -o json`): a strict JSON reader that records where
// each value, key and item starts. JSON is YAML, and the `yaml` library would read it the same
// way, only many times slower. Anything this reader does not accept (a syntax error, a duplicate
// key, YAML flow syntax that is not JSON) makes it decline, and `yaml` reads the file instead, so
// errors are reported in one voice. Shared by validate's reader (src/manifest/documents.ts) and
// migrate's (migrate.ts), which reads with it what JSON.parse accepts but validate would not.
import { MAX_FAST_NESTING, type PositionField, type PositionNode } from './simple-yaml.ts';

class Unsupported extends Error {}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** True when `text` looks like JSON (its first non-blank character opens an object or array). */
export function looksLikeJson(text: string): boolean {
  const first = /\S/.exec(text)?.[0];
  return first === '{' || first === '[';
}

/** The single document of a JSON text, or undefined when it is not strict JSON. */
export function simpleJsonDocument(text: string): { value: unknown; position: PositionNode } | undefined {
  try {
    const reader = new JsonReader(text);
    const [value, position] = reader.document();
    return { value, position };
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

type Parsed = readonly [value: unknown, position: PositionNode];

class JsonReader {
  readonly #text: string;
  #offset = 0;
  #depth = 0;
  #line = 1;
  #lineStart = 0;

  constructor(text: string) {
    this.#text = text;
  }

  document(): Parsed {
    this.#skipSpace();
    const parsed = this.#value();
    this.#skipSpace();
    if (this.#offset !== this.#text.length) throw new Unsupported(); // more than one document
    return parsed;
  }

  #position(): { line: number; column: number } {
    return { line: this.#line, column: this.#offset - this.#lineStart + 1 };
  }

  #skipSpace(): void {
    const text = this.#text;
    for (;;) {
      const char = text.charCodeAt(this.#offset);
      if (char === 0x0a) {
        this.#offset++;
        this.#line++;
        this.#lineStart = this.#offset;
      } else if (char === 0x20 || char === 0x09 || char === 0x0d) {
        this.#offset++;
      } else {
        return;
      }
    }
  }

  #value(): Parsed {
    const position = this.#position();
    const char = this.#text[this.#offset];
    switch (char) {
      case '{':
        return this.#nested(() => this.#object(position));
      case '[':
        return this.#nested(() => this.#array(position));
      case '"':
        return [this.#string(), position];
      default:
        break;
    }
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.#text.startsWith(word, this.#offset)) {
        this.#offset += word.length;
        return [value, position];
      }
    }
    NUMBER.lastIndex = this.#offset;
    const match = NUMBER.exec(this.#text);
    if (match === null) throw new Unsupported();
    this.#offset += match[0].length;
    return [Number(match[0]), position];
  }

  /** Deep nesting is declined (see MAX_FAST_NESTING) rather than allowed to overflow the stack. */
  #nested(read: () => Parsed): Parsed {
    if (this.#depth >= MAX_FAST_NESTING) throw new Unsupported();
    this.#depth++;
    const parsed = read();
    this.#depth--;
    return parsed;
  }

  #object(position: { line: number; column: number }): Parsed {
    this.#offset++; // {
    const value: Record<string, unknown> = {};
    const fields = new Map<string, PositionField>();
    this.#skipSpace();
    if (this.#text[this.#offset] === '}') {
      this.#offset++;
      return [value, { ...position, fields }];
    }
    for (;;) {
      if (this.#text[this.#offset] !== '"') throw new Unsupported();
      const keyPosition = this.#position();
      const key = this.#string();
      if (fields.has(key) || key === '__proto__') throw new Unsupported();
      this.#skipSpace();
      if (this.#text[this.#offset] !== ':') throw new Unsupported();
      this.#offset++;
      this.#skipSpace();
      const [fieldValue, valuePosition] = this.#value();
      value[key] = fieldValue;
      fields.set(key, { ...keyPosition, value: valuePosition });
      this.#skipSpace();
      const next = this.#text[this.#offset++];
      if (next === '}') return [value, { ...position, fields }];
      if (next !== ',') throw new Unsupported();
      this.#skipSpace();
    }
  }

  #array(position: { line: number; column: number }): Parsed {
    this.#offset++; // [
    const value: unknown[] = [];
    const items: PositionNode[] = [];
    this.#skipSpace();
    if (this.#text[this.#offset] === ']') {
      this.#offset++;
      return [value, { ...position, items }];
    }
    for (;;) {
      const [itemValue, itemPosition] = this.#value();
      value.push(itemValue);
      items.push(itemPosition);
      this.#skipSpace();
      const next = this.#text[this.#offset++];
      if (next === ']') return [value, { ...position, items }];
      if (next !== ',') throw new Unsupported();
      this.#skipSpace();
    }
  }

  #string(): string {
    const text = this.#text;
    const start = this.#offset + 1;
    const end = text.indexOf('"', start);
    if (end === -1) throw new Unsupported();
    const raw = text.slice(start, end);
    if (!raw.includes('\\')) {
      if (hasControlCharacter(raw)) throw new Unsupported();
      this.#offset = end + 1;
      return raw;
    }
    let value = '';
    let index = start;
    for (;;) {
      const char = text[index];
      if (char === undefined) throw new Unsupported();
      if (char === '"') break;
      if (char === '\\') {
        const escape = text[index + 1] ?? '';
        if (escape === 'u') {
          const hex = text.slice(index + 2, index + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Unsupported();
          value += String.fromCharCode(parseInt(hex, 16));
          index += 6;
          continue;
        }
        const escaped = ESCAPES[escape];
        if (escaped === undefined) throw new Unsupported();
        value += escaped;
        index += 2;
        continue;
      }
      if (char.charCodeAt(0) < 0x20) throw new Unsupported();
      value += char;
      index++;
    }
    this.#offset = index + 1;
    return value;
  }
}

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) < 0x20) return true;
  }
  return false;
}
