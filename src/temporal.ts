/**
 * Connections to the Temporal service from configuration: address, namespace, TLS and API key, so the
 * same code points at the dev server, a self-hosted cluster or Temporal Cloud.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Config } from './config';

type TemporalSettings = Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TLS' | 'TEMPORAL_API_KEY'>;

function connectionOptions(config: TemporalSettings) {
  return {
    address: config.TEMPORAL_ADDRESS,
    tls: config.TEMPORAL_TLS || config.TEMPORAL_API_KEY !== undefined ? {} : undefined,
    apiKey: config.TEMPORAL_API_KEY,
  };
}

/** A client for starting, signalling and updating workflows (API and admin command). */
export async function connectClient(config: TemporalSettings): Promise<Client> {
  const connection = await Connection.connect(connectionOptions(config));
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

/** The native connection a worker polls with. */
export async function connectWorker(config: TemporalSettings): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptions(config));
}
