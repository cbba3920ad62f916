// The CLI writes through this seam so that tests can run commands in-process and read their output.
import type { Readable, Writable } from 'node:stream';
import { terminalSafe } from './format/terminal-text.ts';

export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly cwd: string;
}

/** A line (or lines) of text output, with control characters from the input made visible. */
export function writeLine(stream: Writable, text = ''): void {
  stream.write(`${text.split('\n').map(terminalSafe).join('\n')}\n`);
}

export function writeJson(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

export type OutputFormat = 'text' | 'json';
