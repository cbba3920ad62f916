// The local forge's webhook deliveries, as a file: one JSON object per line in
// `<root>/<owner>/<name>.events.jsonl`, appended in the order things happened. Pull-request events
// are written by the forge methods (under the repository's PR lock, so their order is the order of
// the state changes); pushes by a `post-receive` hook installed in every bare repository, because
// pushes arrive through git itself (file:// transport runs receive-pack, which runs the hook), not
// through the forge. Each line goes out in one O_APPEND write, so concurrent writers never
// interleave inside a line; a reader still stops at the last newline in case a write is underway.
import { appendFile, chmod, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** GitHub's pull_request actions the local forge produces. */
export const PULL_REQUEST_ACTIONS = [
  'opened',
  'edited',
  'ready_for_review',
  'converted_to_draft',
  'closed',
  'merged',
] as const;
export type PullRequestAction = (typeof PULL_REQUEST_ACTIONS)[number];

export interface PullRequestEvent {
  readonly type: PullRequestAction;
  readonly number: number;
  readonly headBranch: string;
  readonly baseBranch: string;
  /** The head when the event happened. */
  readonly headSha: string;
  readonly draft: boolean;
  readonly at: string;
}

/** A ref update, as `post-receive` sees it: `before`/`after` are all zeros for a create/delete. */
export interface PushEvent {
  readonly type: 'push';
  /** `refs/heads/<branch>` */
  readonly ref: string;
  readonly before: string;
  readonly after: string;
  readonly at: string;
}

export type ForgeEvent = PullRequestEvent | PushEvent;

/** An event and where its line starts, so a consumer can name it or resume after it. */
export type LoggedForgeEvent = ForgeEvent & { readonly offset: number };

export interface ForgeEventBatch {
  readonly events: readonly LoggedForgeEvent[];
  /** Where the next read starts: just past the last complete line. */
  readonly nextOffset: number;
}

export const ZERO_SHA = '0000000000000000000000000000000000000000';

export class ForgeEventLogError extends Error {
  override readonly name = 'ForgeEventLogError';
  readonly path: string;
  /** Byte offset of the offending line. */
  readonly offset: number;
  readonly reason: string;

  constructor(path: string, offset: number, reason: string) {
    super(`${path} at byte ${String(offset)}: ${reason}`);
    this.path = path;
    this.offset = offset;
    this.reason = reason;
  }
}

export async function appendForgeEvent(path: string, event: ForgeEvent): Promise<void> {
  await appendFile(path, `${JSON.stringify(event)}\n`, { encoding: 'utf8', flag: 'a' });
}

/**
 * The `post-receive` hook: one `push` line per updated ref. Plain sh, so a push costs no runtime
 * start-up; a ref name may hold `"` (git allows it, never `\` or control characters), hence the
 * escaping. The log path is fixed at install time and single-quoted.
 */
function postReceiveHook(logPath: string): string {
  const quoted = `'${logPath.replaceAll("'", `'\\''`)}'`;
  return [
    '#!/bin/sh',
    "# Installed by nudger's local forge: records pushes in the repository's event log.",
    `log=${quoted}`,
    'while read -r before after ref; do',
    '  escaped=$(printf \'%s\' "$ref" | sed \'s/\\\\/\\\\\\\\/g; s/"/\\\\"/g\')',
    '  at=$(date -u +%Y-%m-%dT%H:%M:%SZ)',
    '  line=$(printf \'{"type":"push","ref":"%s","before":"%s","after":"%s","at":"%s"}\' "$escaped" "$before" "$after" "$at")',
    '  printf \'%s\\n\' "$line" >>"$log"',
    'done',
    '',
  ].join('\n');
}

export async function installPostReceiveHook(gitDir: string, logPath: string): Promise<void> {
  const hook = join(gitDir, 'hooks', 'post-receive');
  await writeFile(hook, postReceiveHook(logPath), 'utf8');
  await chmod(hook, 0o755);
}

/** Events from byte `fromOffset` (0 or a previous `nextOffset`) to the last complete line. */
export async function readForgeEventLog(path: string, fromOffset: number): Promise<ForgeEventBatch> {
  if (!Number.isSafeInteger(fromOffset) || fromOffset < 0) {
    throw new ForgeEventLogError(path, fromOffset, 'the offset must be a non-negative integer');
  }
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return { events: [], nextOffset: fromOffset };
    throw error;
  }
  let bytes: Buffer;
  try {
    const { size } = await handle.stat();
    if (size < fromOffset) throw new ForgeEventLogError(path, fromOffset, `the log is only ${String(size)} bytes long`);
    bytes = Buffer.alloc(size - fromOffset);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, fromOffset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    bytes = bytes.subarray(0, filled);
  } finally {
    await handle.close();
  }
  const events: LoggedForgeEvent[] = [];
  let start = 0;
  for (let newline = bytes.indexOf(0x0a); newline >= 0; newline = bytes.indexOf(0x0a, start)) {
    const offset = fromOffset + start;
    const line = bytes.subarray(start, newline).toString('utf8');
    start = newline + 1;
    if (line.trim() === '') continue;
    events.push({ ...parseForgeEvent(path, offset, line), offset });
  }
  return { events, nextOffset: fromOffset + start };
}

function parseForgeEvent(path: string, offset: number, line: string): ForgeEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new ForgeEventLogError(path, offset, 'the line is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ForgeEventLogError(path, offset, 'the line is not a JSON object');
  }
  const record = value as Record<string, unknown>;
  const text = (field: string): string => {
    const v = record[field];
    if (typeof v !== 'string') throw new ForgeEventLogError(path, offset, `field ${field} must be a string`);
    return v;
  };
  const type = record.type;
  if (type === 'push') {
    return { type, ref: text('ref'), before: text('before'), after: text('after'), at: text('at') };
  }
  const action = PULL_REQUEST_ACTIONS.find((known) => known === type);
  if (action === undefined) {
    throw new ForgeEventLogError(path, offset, `field type ${JSON.stringify(type)} is not a known event`);
  }
  const number = record.number;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) {
    throw new ForgeEventLogError(path, offset, 'field number must be a positive integer');
  }
  if (typeof record.draft !== 'boolean') throw new ForgeEventLogError(path, offset, 'field draft must be a boolean');
  return {
    type: action,
    number,
    headBranch: text('headBranch'),
    baseBranch: text('baseBranch'),
    headSha: text('headSha'),
    draft: record.draft,
    at: text('at'),
  };
}
