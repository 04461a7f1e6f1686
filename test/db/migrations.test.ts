/** Every migration is reversible: up, down to nothing, and up again, on a database of its own. */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createDb, migrateLatest, migrateRollbackAll } from '../../src/db/knex';
import { testConfig } from '../helpers/stack';

describe('migrations', function () {
  this.timeout(60_000);
  const name = `migration_check_${randomBytes(4).toString('hex')}`;
  const adminUrl = testConfig().DATABASE_URL;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;

  before(async () => {
    const admin = createDb(adminUrl, 1);
    await admin.raw(`CREATE DATABASE ${name}`);
    await admin.destroy();
  });

  after(async () => {
    const admin = createDb(adminUrl, 1);
    await admin.raw(`DROP DATABASE IF EXISTS ${name}`);
    await admin.destroy();
  });

  async function tables(db: ReturnType<typeof createDb>): Promise<string[]> {
    const rows = await db('information_schema.tables')
      .where({ table_schema: 'public' })
      .whereNot('table_name', 'like', 'knex_%')
      .pluck('table_name');
    return (rows as string[]).sort();
  }

  it('migrates up, rolls back to an empty schema, and migrates up again', async () => {
    const db = createDb(url.toString(), 1);
    try {
      await migrateLatest(db);
      expect(await tables(db)).to.include.members([
        'api_keys',
        'developers',
        'events',
        'payments',
        'sandbox_provider_transactions',
      ]);
      expect(await tables(db)).to.include.members([
        'activity_log',
        'documents',
        'live_access_messages',
        'live_access_requests',
        'live_key_reveals',
      ]);
      expect(await tables(db)).to.include.members(['webhooks', 'webhook_deliveries', 'webhook_attempts']);
      await migrateRollbackAll(db);
      expect(await tables(db)).to.deep.equal([]);
      await migrateLatest(db);
      expect(await tables(db)).to.include('payments');
    } finally {
      await db.destroy();
    }
  });
});
