// Live views over server-sent events (docs/decisions.md D14, N46): the informers say when a cached
// object changed; changes within `coalesceMs` (250 ms) make one re-render of every connected
// client's view, and a client is sent its view's `<main>` fragment only when the HTML differs from
// what it last got (the views are deterministic, so equal state renders equal strings). Nothing
// here asks the API server: a render reads the caches, and its authorization is the page's,
// remembered ~30 s (auth.ts). A comment line every 15 s keeps proxies from closing an idle
// stream; the views are re-rendered then too, so ages ("5 min ago") stay current.
import type { ServerResponse } from 'node:http';
import type { SafeHtml } from '../domain/dashboard/html.ts';
import type { Logger } from '../runtime/logger.ts';
import type { ChangeSource } from './snapshots.ts';

/** What one render of a client's view came to. */
export type LiveRender =
  /** The view's `<main>` inner HTML. */
  | { readonly kind: 'view'; readonly html: string }
  /** The client may no longer see it (token expired, access revoked) or the server cannot say: end the stream. */
  | { readonly kind: 'end' };

/**
 * Renders one client's view. `memo` lives for one round of re-renders: renders of the same view
 * path may share their HTML through it (authorization stays per client).
 */
export type LiveRenderer = (memo: Map<string, SafeHtml>) => Promise<LiveRender>;

export interface LiveUpdatesOptions {
  readonly sources: readonly ChangeSource[];
  readonly logger: Logger;
  /** Changes within this window make one re-render; default 250 ms. */
  readonly coalesceMs?: number;
  /** A comment line (and a re-render) this often; default 15 s. */
  readonly heartbeatMs?: number;
  /** Streams open at once; past it `open` refuses. Default 100. */
  readonly maxClients?: number;
}

export const DEFAULT_MAX_LIVE_CLIENTS = 100;

/** One server-sent event; every line of `data` becomes its own `data:` line (SSE framing). */
export function sseMessage(event: string, data: string): string {
  const lines = data.split(/\r\n|\r|\n/);
  return `event: ${event}\n${lines.map((line) => `data: ${line}\n`).join('')}\n`;
}

interface Client {
  readonly response: ServerResponse;
  readonly render: LiveRenderer;
  last: string | undefined;
  /** A render came while the socket was full: send again on 'drain'. */
  behind: boolean;
}

export class LiveUpdates {
  readonly #sources: readonly ChangeSource[];
  readonly #logger: Logger;
  readonly #coalesceMs: number;
  readonly #heartbeatMs: number;
  readonly #maxClients: number;
  readonly #clients = new Set<Client>();
  readonly #unsubscribe: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(options: LiveUpdatesOptions) {
    this.#sources = options.sources;
    this.#logger = options.logger;
    this.#coalesceMs = options.coalesceMs ?? 250;
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    this.#maxClients = options.maxClients ?? DEFAULT_MAX_LIVE_CLIENTS;
  }

  /** Streams open now. */
  get clients(): number {
    return this.#clients.size;
  }

  /** True when another stream would be refused. */
  get full(): boolean {
    return this.#clients.size >= this.#maxClients;
  }

  start(): void {
    this.#stopped = false;
    const changed = (): void => {
      this.#schedule();
    };
    for (const source of this.#sources) {
      this.#unsubscribe.push(source.addHandlers({ add: changed, update: changed, delete: changed }));
    }
    this.#heartbeat = setInterval(() => {
      for (const client of this.#clients) client.response.write(': heartbeat\n\n');
      this.#schedule();
    }, this.#heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Ends every stream and stops following the caches. */
  stop(): void {
    this.#stopped = true;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearInterval(this.#heartbeat);
    for (const client of this.#clients) client.response.end();
    this.#clients.clear();
  }

  /**
   * Starts an event stream on `response` (its headers are the caller's, already set) and sends
   * the view at once: `initial` when the caller has just rendered it, else a render. False, with
   * nothing written, when `maxClients` streams are open.
   */
  open(response: ServerResponse, render: LiveRenderer, initial?: string): boolean {
    if (this.#stopped || this.full) return false;
    const client: Client = { response, render, last: undefined, behind: false };
    this.#clients.add(client);
    response.once('close', () => {
      this.#clients.delete(client);
    });
    response.on('drain', () => {
      if (client.behind) void this.#refresh(client, new Map());
    });
    // Tells EventSource how long to wait before reconnecting after the stream ends.
    response.write('retry: 2000\n\n');
    if (initial === undefined) {
      void this.#refresh(client, new Map());
    } else {
      client.last = initial;
      response.write(sseMessage('view', initial));
    }
    return true;
  }

  #schedule(): void {
    if (this.#stopped || this.#timer !== undefined || this.#clients.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#flush();
    }, this.#coalesceMs);
    this.#timer.unref();
  }

  /** Re-renders every client; a change arriving meanwhile makes one more round afterwards. */
  async #flush(): Promise<void> {
    if (this.#flushing !== undefined) {
      this.#again = true;
      return this.#flushing;
    }
    this.#flushing = (async () => {
      let again = true;
      while (again && !this.#stopped) {
        this.#again = false;
        const memo = new Map<string, SafeHtml>();
        for (const client of [...this.#clients]) await this.#refresh(client, memo);
        // Set by a change that arrived during this round (the await above lets it in).
        again = this.#again;
      }
    })();
    try {
      await this.#flushing;
    } finally {
      this.#flushing = undefined;
    }
  }

  async #refresh(client: Client, memo: Map<string, SafeHtml>): Promise<void> {
    if (!this.#clients.has(client)) return;
    let rendered: LiveRender;
    try {
      rendered = await client.render(memo);
    } catch (error) {
      this.#logger.error({ err: error }, 'dashboard live view failed to render; ending its stream');
      rendered = { kind: 'end' };
    }
    if (!this.#clients.has(client)) return;
    if (rendered.kind === 'end') {
      this.#clients.delete(client);
      client.response.end();
      return;
    }
    if (rendered.html === client.last) return;
    if (client.response.writableNeedDrain) {
      client.behind = true;
      return;
    }
    client.behind = false;
    client.last = rendered.html;
    client.response.write(sseMessage('view', rendered.html));
  }
}
