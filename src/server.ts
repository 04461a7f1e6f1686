/**
 * The API process: connects to PostgreSQL and Temporal, serves the app on HOST:PORT, and closes
 * cleanly on SIGINT/SIGTERM. Started by `npm start` as its own process.
 */
import http from 'node:http';
import { createApp } from './api/app';
import { loadConfigOrExit } from './config';
import { createDb } from './db/knex';
import { createLogger } from './logger';
import { providerRegistryFromConfig } from './providers/registry';
import { connectClient } from './temporal';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('api', config.LOG_LEVEL);
  const db = createDb(config.DATABASE_URL, config.DATABASE_POOL_MAX);
  const temporal = await connectClient(config);
  const providers = providerRegistryFromConfig(db, config);
  const server = http.createServer(createApp({ config, db, temporal, providers, logger }).callback());
  server.listen(config.PORT, config.HOST, () => {
    logger.info({ address: `http://${config.HOST}:${config.PORT}` }, 'api listening');
  });
  const stop = () => {
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
  process.stderr.write(`api failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
