// Pull-request records of the local forge: one JSON file per PR beside the bare repository
// (`<root>/<owner>/<name>.prs/<number>.json`), each replaced atomically. Every change happens under
// a per-repository lock file created with `wx`, so two processes (the sandbox's manager and a
// human stand-in) never lose an update or hand out one number twice.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { writeFileAtomic } from '../../fs/write-atomic.ts';
import type { PullRequestState } from '../types.ts';

export interface PullRequestRecord {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly draft: boolean;
  readonly state: PullRequestState;
  readonly headBranch: string;
  readonly baseBranch: string;
  /** The head when the PR was closed or merged; open PRs read the live branch instead. */
  readonly headSha: string;
  /** The base's new tip when merged (the fast-forwarded head, or the merge commit). */
  readonly mergeCommitSha?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Labels in the order they were first added; absent in records written before labels existed. */
  readonly labels?: readonly string[];
  /** Set once auto-merge was asked for; `method` null means the forge's default. */
  readonly autoMerge?: { readonly method: string | null; readonly enabledAt: string };
  /** Comments in the order added; absent in records written before comments existed. */
  readonly comments?: readonly { readonly body: string; readonly createdAt: string }[];
}

export class PullRequestRecordError extends Error {
  override readonly name = 'PullRequestRecordError';
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }
}

/** A lock older than this belongs to a process that died holding it. */
const STALE_LOCK_MS = 30_000;
const LOCK_WAIT_MS = 20_000;

export class PullRequestStore {
  /** `<root>/<owner>/<name>.prs` */
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  async read(number: number): Promise<PullRequestRecord | undefined> {
    const path = this.#path(number);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
      throw error;
    }
    return parseRecord(path, text);
  }

  async list(): Promise<PullRequestRecord[]> {
    const names = await readdir(this.directory).catch(() => [] as string[]);
    const numbers = names.flatMap((name) => (/^[1-9][0-9]*\.json$/.test(name) ? [Number.parseInt(name, 10)] : []));
    const records = await Promise.all(numbers.map((number) => this.read(number)));
    return records.filter((record) => record !== undefined).sort((a, b) => a.number - b.number);
  }

  /** Writes a record; call only inside withLock. */
  async write(record: PullRequestRecord): Promise<void> {
    await writeFileAtomic(this.#path(record.number), `${JSON.stringify(record, null, 2)}\n`);
  }

  /** The next number: one above the highest ever written (records are never deleted). */
  async nextNumber(): Promise<number> {
    const records = await this.list();
    return (records.at(-1)?.number ?? 0) + 1;
  }

  /** Runs `work` holding the repository's lock file. */
  async withLock<T>(work: () => Promise<T>): Promise<T> {
    await mkdir(this.directory, { recursive: true });
    const lock = join(this.directory, '.lock');
    const token = `${String(process.pid)} ${randomBytes(6).toString('hex')}`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const handle = await open(lock, 'wx');
        await handle.writeFile(token);
        await handle.close();
        break;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
        const age = await stat(lock).then(
          (stats) => Date.now() - stats.mtimeMs,
          () => 0,
        );
        if (age > STALE_LOCK_MS) await unlink(lock).catch(() => undefined);
        if (Date.now() > deadline) throw new PullRequestRecordError(lock, 'still locked after 20 s');
        await delay(Math.min(5 * 2 ** Math.min(attempt, 4), 50) + Math.random() * 5);
      }
    }
    try {
      return await work();
    } finally {
      // Remove only our own lock: a stale-lock breaker may have replaced it.
      const holder = await readFile(lock, 'utf8').catch(() => undefined);
      if (holder === token) await unlink(lock).catch(() => undefined);
    }
  }

  #path(number: number): string {
    return join(this.directory, `${String(number)}.json`);
  }
}

const STATES: readonly string[] = ['open', 'closed', 'merged'] satisfies PullRequestState[];

function parseRecord(path: string, text: string): PullRequestRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PullRequestRecordError(path, 'is not JSON');
  }
  if (typeof value !== 'object' || value === null) throw new PullRequestRecordError(path, 'is not an object');
  const record = value as Record<string, unknown>;
  const field = (name: string, type: 'string' | 'number' | 'boolean'): void => {
    if (typeof record[name] !== type) throw new PullRequestRecordError(path, `field ${name} must be a ${type}`);
  };
  field('number', 'number');
  for (const name of ['title', 'body', 'state', 'headBranch', 'baseBranch', 'headSha', 'createdAt', 'updatedAt']) {
    field(name, 'string');
  }
  field('draft', 'boolean');
  if (record.mergeCommitSha !== undefined && typeof record.mergeCommitSha !== 'string') {
    throw new PullRequestRecordError(path, 'field mergeCommitSha must be a string');
  }
  if (record.labels !== undefined) {
    if (!Array.isArray(record.labels) || record.labels.some((label) => typeof label !== 'string')) {
      throw new PullRequestRecordError(path, 'field labels must be a list of strings');
    }
  }
  if (record.autoMerge !== undefined) {
    const autoMerge = record.autoMerge as Record<string, unknown> | null;
    if (
      typeof autoMerge !== 'object' ||
      autoMerge === null ||
      (autoMerge.method !== null && typeof autoMerge.method !== 'string') ||
      typeof autoMerge.enabledAt !== 'string'
    ) {
      throw new PullRequestRecordError(path, 'field autoMerge must be {method: string|null, enabledAt: string}');
    }
  }
  if (record.comments !== undefined) {
    const comments = record.comments;
    const valid = (comment: unknown): boolean => {
      const c = comment as Record<string, unknown> | null;
      return typeof c === 'object' && c !== null && typeof c.body === 'string' && typeof c.createdAt === 'string';
    };
    if (!Array.isArray(comments) || !comments.every(valid)) {
      throw new PullRequestRecordError(path, 'field comments must be a list of {body: string, createdAt: string}');
    }
  }
  if (!STATES.includes(record.state as string)) {
    throw new PullRequestRecordError(path, `field state must be one of ${STATES.join(', ')}`);
  }
  return value as PullRequestRecord;
}
