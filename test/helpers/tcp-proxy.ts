/**
 * A TCP proxy in front of the test PostgreSQL, for outages: a knex pool pointed at it works as
 * usual until `down()`, which cuts every open connection and hangs up on new ones at once (as a
 * database that went away), until `up()`.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** The database URL `databaseUrl` with its host and port replaced by the proxy's. */
  url: string;
  /** Cuts every connection through the proxy and refuses new ones (accepted, then closed at once). */
  down(): void;
  /** Forwards new connections again. */
  up(): void;
  /** How many connections were refused while down. */
  refused(): number;
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 (free port) forwarding to the host and port of `databaseUrl`.
 * @param databaseUrl a `postgres://` URL
 */
export async function startTcpProxy(databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl);
  const open = new Set<net.Socket>();
  let isDown = false;
  let refusedCount = 0;
  const server = net.createServer((client) => {
    if (isDown) {
      refusedCount += 1;
      client.destroy();
      return;
    }
    const upstream = net.connect({ host: target.hostname, port: Number(target.port || 5432) });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    down() {
      isDown = true;
      for (const socket of open) socket.destroy();
    },
    up() {
      isDown = false;
    },
    refused: () => refusedCount,
    close() {
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
