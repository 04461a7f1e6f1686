/** `npm run migrate [-- down]`: applies (or rolls back all) knex migrations on DATABASE_URL. */
import { loadConfigOrExit } from '../src/config';
import { createDb, migrateLatest, migrateRollbackAll } from '../src/db/knex';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const db = createDb(config.DATABASE_URL, 2);
  try {
    if (process.argv[2] === 'down') {
      await migrateRollbackAll(db);
      process.stdout.write('rolled back every migration\n');
    } else {
      const applied = await migrateLatest(db);
      process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
    }
  } finally {
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
