import { createConnection, createServer, Server, Socket } from 'node:net';

/**
 * A TCP relay on loopback in front of a real server (PostgreSQL here), which a
 * test can cut (every open connection reset, new ones refused) and restore on
 * the same port: a dependency outage without stopping the shared server.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    const addr = server.address();
    if (addr && typeof addr === 'object') this.port = addr.port;
  }

  /** Resets every relayed connection and stops accepting new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = server ? new Promise((r) => server.close(r)) : Promise.resolve();
    for (const s of this.sockets) s.resetAndDestroy();
    await closed;
  }
}
