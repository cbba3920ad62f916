// Real git smart HTTP for tests: `git http-backend` behind a Node HTTP server that records the
// Authorization header of every request and can refuse pushes, so that a push fails the way a
// forge refuses one (HTTP 403).
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  readonly baseUrl: string;
  readonly authorizations: (string | undefined)[];
  close(): Promise<void>;
}

export async function startGitHttpServer(
  projectRoot: string,
  options: { refusePush: boolean },
): Promise<GitHttpServer> {
  const authorizations: (string | undefined)[] = [];
  const server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    const url = new URL(request.url ?? '/', 'http://localhost');
    const isPush = url.searchParams.get('service') === 'git-receive-pack' || url.pathname.endsWith('/git-receive-pack');
    if (options.refusePush && isPush) {
      response.writeHead(403, { 'content-type': 'text/plain' }).end('push refused\n');
      return;
    }
    serveCgi(projectRoot, request, response, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${String(port)}`,
    authorizations,
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

function serveCgi(projectRoot: string, request: IncomingMessage, response: ServerResponse, url: URL): void {
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '',
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      REMOTE_USER: 'tester',
      REMOTE_ADDR: '127.0.0.1',
    },
  });
  request.pipe(child.stdin);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.on('close', () => {
    const output = Buffer.concat(chunks);
    const end = output.indexOf('\r\n\r\n');
    const headerText = output.subarray(0, end < 0 ? 0 : end).toString('latin1');
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of headerText.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    response.writeHead(status, headers).end(output.subarray(end < 0 ? 0 : end + 4));
  });
}
