/**
 * The API process: connects to PostgreSQL and Temporal, serves the app on HOST:PORT, and closes
 * cleanly on SIGINT/SIGTERM. Started by `npm start` as its own process.
 */
import http from 'node:http';
import { createApp } from './api/app';
import { loadConfigOrExit } from './config';
import { createDb, dbTimeoutsOf } from './db/knex';
import { purgeExpiredRows } from './db/maintenance';
import { createProviderRequestLog } from './db/provider-requests';
import { createSandboxLedger } from './db/sandbox-ledger';
import { createLogger, getProcessLogger } from './logger';
import { providerRegistryFromConfig } from './providers/registry';
import { connectClient } from './temporal';

/** How often the API purges expired rate-limit counters, idempotency keys and old outcomes, in milliseconds. */
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('api', config.LOG_LEVEL);
  const db = createDb(config.DATABASE_URL, config.DATABASE_POOL_MAX, logger, dbTimeoutsOf(config));
  const temporal = await connectClient(config);
  const providers = providerRegistryFromConfig(createSandboxLedger(db), config, createProviderRequestLog(db));
  const server = http.createServer(createApp({ config, db, temporal, providers, logger }).callback());
  server.listen(config.PORT, config.HOST, () => {
    logger.info({ address: `http://${config.HOST}:${config.PORT}` }, 'api listening');
  });
  // Expired rate-limit counters, idempotency keys and operator-health outcomes are purged every 10 minutes
  // (docs/payments.md#idempotency, docs/limits.md#rate-limits, docs/availability.md#recording).
  const purge = () =>
    purgeExpiredRows(db, new Date()).then(
      (deleted) => logger.debug(deleted, 'expired rows purged'),
      (error: unknown) => logger.warn({ err: error }, 'expired rows could not be purged'),
    );
  void purge();
  const purging = setInterval(purge, PURGE_INTERVAL_MS);
  purging.unref();
  const stop = () => {
    clearInterval(purging);
    logger.info('api stopping');
    server.close(async () => {
      await db.destroy();
      await temporal.connection.close();
      process.exit(0);
    });
    server.closeAllConnections();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  getProcessLogger().fatal({ err: error }, 'api failed');
  process.exit(1);
});
