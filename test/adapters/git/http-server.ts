// Real git smart HTTP for tests: `git http-backend` behind a Node HTTP server that records the
// Authorization header of every request and can refuse pushes, so that a push fails the way a
// forge refuses one (HTTP 403).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveGitHttp } from '../../../src/sandbox/forges/github-emulator/git-backend.ts';

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
    serveGitHttp(projectRoot, request, response, url);
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
