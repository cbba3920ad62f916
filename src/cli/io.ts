// The CLI writes through this seam so that tests can run commands in-process and read their output.
import type { Readable, Writable } from 'node:stream';
import { terminalSafe } from './format/terminal-text.ts';

export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly cwd: string;
}

/**
 * Exactly one line of text output: every control character in it, newline and carriage return
 * included, is made visible (format/terminal-text.ts), so a name from the input can neither carry
 * a terminal escape nor start a line of its own (`b\n::error file=x::` would be a CI annotation).
 * A command that prints several lines calls this once per line.
 */
export function writeLine(stream: Writable, text = ''): void {
  stream.write(`${terminalSafe(text)}\n`);
}

export function writeJson(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

export type OutputFormat = 'text' | 'json';
