// The CLI writes through this seam so that tests can run commands in-process and read their output.
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly cwd: string;
}

export function writeLine(stream: Writable, text = ''): void {
  stream.write(`${text}\n`);
}

export function writeJson(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

export type OutputFormat = 'text' | 'json';
