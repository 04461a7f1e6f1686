/**
 * A TCP proxy in front of the test PostgreSQL or Temporal server, for outages and stalls: a client
 * pointed at it works as usual until `down()`, which cuts every open connection and hangs up on
 * new ones at once (as a server that went away), or `stall()`, which keeps every connection open
 * and accepts new ones but forwards nothing either way (as a server stopped with SIGSTOP, or a
 * network that drops packets), until `up()`.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** The database URL `databaseUrl` with its host and port replaced by the proxy's (for a proxy made from a URL). */
  url: string;
  /** `127.0.0.1:{port}` of the proxy (e.g. a Temporal address). */
  address: string;
  /** Cuts every connection through the proxy and refuses new ones (accepted, then closed at once). */
  down(): void;
  /** Forwards nothing, either way, on open or new connections, and closes none. */
  stall(): void;
  /** Forwards again: what a stall held back flows on, new connections reach the server. */
  up(): void;
  /** How many connections were refused while down. */
  refused(): number;
  close(): Promise<void>;
}

/** One client connection and its upstream, once connected. */
interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
}

/** Starts a proxy on 127.0.0.1 (free port) forwarding to `host`:`port`. */
export async function startTcpProxyTo(host: string, port: number, url = ''): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let state: 'up' | 'down' | 'stalled' = 'up';
  let refusedCount = 0;
  const destroy = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };
  const forward = (pair: Pair) => {
    pair.upstream ??= net.connect({ host, port });
    const { client, upstream } = pair;
    for (const socket of [client, upstream]) {
      socket.removeAllListeners('error').removeAllListeners('close');
      socket.on('error', () => destroy(pair));
      socket.on('close', () => destroy(pair));
    }
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const hold = (pair: Pair) => {
    pair.client.unpipe();
    pair.upstream?.unpipe();
    pair.client.pause();
    pair.upstream?.pause();
    pair.client.on('error', () => destroy(pair));
  };
  const server = net.createServer((client) => {
    if (state === 'down') {
      refusedCount += 1;
      client.destroy();
      return;
    }
    const pair: Pair = { client };
    pairs.add(pair);
    if (state === 'stalled') hold(pair);
    else forward(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxyPort = (server.address() as AddressInfo).port;
  return {
    url,
    address: `127.0.0.1:${proxyPort}`,
    down() {
      state = 'down';
      for (const pair of pairs) destroy(pair);
    },
    stall() {
      state = 'stalled';
      for (const pair of pairs) hold(pair);
    },
    up() {
      const wasStalled = state === 'stalled';
      state = 'up';
      if (wasStalled) for (const pair of pairs) forward(pair);
    },
    refused: () => refusedCount,
    close() {
      for (const pair of pairs) destroy(pair);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Starts a proxy on 127.0.0.1 (free port) forwarding to the host and port of `databaseUrl`.
 * @param databaseUrl a `postgres://` URL
 */
export async function startTcpProxy(databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl);
  const proxy = await startTcpProxyTo(target.hostname, Number(target.port || 5432));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = proxy.address.split(':')[1] as string;
  return { ...proxy, url: url.toString() };
}
