// Free loopback ports. All requested ports are held open together before any is released, so one
// call never hands out the same port twice; another process can still take one before our server
// binds it, which shows up as a start error naming the port in the server's log.
import { createServer, type Server } from 'node:net';

export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            if (address === null || typeof address === 'string') reject(new Error('no TCP address'));
            else resolve(address.port);
          });
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => {
              resolve();
            });
          }),
      ),
    );
  }
}
