// The dashboard's layout worker thread (docs/decisions.md N47): runs dagre on prepared graph
// inputs, one at a time, so the manager's event loop (which also answers admission webhooks) never
// waits for a layout. Started by layout-worker.ts; each message is `{ id, prepared }`, each answer
// `{ id, layout }` or `{ id, error }`.
import { parentPort } from 'node:worker_threads';
import { layoutPrepared, type PreparedLayout } from '../domain/dashboard/graph-layout.ts';

/** A request from the dashboard server. */
export interface LayoutRequest {
  readonly id: number;
  readonly prepared: PreparedLayout;
}

const port = parentPort;
if (port === null) throw new Error('layout-worker-entry runs as a worker thread of the dashboard server');

port.on('message', ({ id, prepared }: LayoutRequest) => {
  try {
    port.postMessage({ id, layout: layoutPrepared(prepared) });
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
