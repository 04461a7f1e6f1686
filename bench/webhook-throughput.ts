/**
 * Webhook delivery throughput: how many deliveries per second the service makes to a local receiver
 * answering 204, through the production path (event rows written, one `webhookDeliveryWorkflow`
 * started per event by `startWebhookDeliveries`, the attempt and its record as activities).
 *
 *   npx tsx bench/webhook-throughput.ts [events=200] [rounds=3]
 *
 * Starts its own embedded PostgreSQL and in-memory Temporal dev server on free ports, a worker as
 * its own process (`src/worker.ts`, as `npm start` runs it), and the receiver on 127.0.0.1; stops
 * them all at the end. Prints one line per round and the median. Not a test: the figure depends on
 * the machine.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { newId } from '../src/lib/ids';
import { startWebhookDeliveries } from '../src/services/webhook-dispatch';
import { startEmbeddedPostgres } from '../scripts/lib/postgres';
import { resolveTemporalCli } from '../scripts/lib/temporal-cli';
import { startDevServer, stopChild } from '../scripts/lib/temporal-dev-server';
import { insertMerchant } from '../test/helpers/fixtures';
import { startReceiver } from '../test/helpers/receiver';
import { insertEvent, insertWebhook } from '../test/helpers/webhooks';

const root = path.resolve(__dirname, '..');
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const TASK_QUEUE = 'payments';

async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function succeeded(db: Db, webhookId: string): Promise<number> {
  const [{ count }] = (await db('webhook_deliveries').where({ webhook_id: webhookId, status: 'succeeded' }).count('id as count')) as unknown as [{ count: number }];
  return Number(count);
}

async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 200);
  const rounds = Number(process.argv[3] ?? 3);
  const runDir = path.join(root, 'var', `bench-${process.pid}-${randomBytes(3).toString('hex')}`);
  fs.mkdirSync(runDir, { recursive: true });

  const cli = await resolveTemporalCli(say);
  say('starting PostgreSQL and a Temporal dev server');
  const database = await startEmbeddedPostgres(path.join(runDir, 'pgdata'), undefined, false);
  const temporal = await startDevServer({ cliPath: cli, ui: false, logFile: path.join(runDir, 'temporal.log') });
  const db = createDb(database.url, 10);
  await migrateLatest(db);
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    JWT_SECRET: randomBytes(48).toString('base64url'),
    PROVIDER_CALLBACK_SECRET: randomBytes(48).toString('base64url'),
    LOG_LEVEL: 'warn',
  };
  const worker = spawn(path.join(root, 'node_modules/.bin/tsx'), ['src/worker.ts'], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const client = new Client({ connection: await Connection.connect({ address: temporal.address }) });
  const receiver = await startReceiver(() => ({ status: 204 }));

  try {
    await waitUntil('the worker to poll', async () => {
      const answer = await client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: TASK_QUEUE }, taskQueueType: 1 });
      return (answer.pollers ?? []).length > 0;
    });
    const dispatch = { db, temporal: client, taskQueue: TASK_QUEUE };

    /**
     * One round, for a merchant of its own with one webhook: write `count` events, start their
     * deliveries, wait until all arrived and were recorded.
     */
    async function round(count: number): Promise<{ arrivedPerSecond: number; recordedPerSecond: number }> {
      const merchantId = await insertMerchant(db);
      const webhook = await insertWebhook(db, merchantId, `${receiver.origin}/${newId('r_')}`);
      const written = await Promise.all(Array.from({ length: count }, () => insertEvent(db, merchantId)));
      const before = receiver.requests.length;
      const startedAt = performance.now();
      await Promise.all(written.map((event) => startWebhookDeliveries(dispatch, event)));
      await waitUntil('the deliveries to arrive', () => receiver.requests.length - before >= count);
      const arrivedMs = performance.now() - startedAt;
      await waitUntil('the deliveries to be recorded', async () => (await succeeded(db, webhook.id)) >= count);
      const recordedMs = performance.now() - startedAt;
      return { arrivedPerSecond: (count * 1000) / arrivedMs, recordedPerSecond: (count * 1000) / recordedMs };
    }

    await round(Math.min(20, events)); // warm-up: workflow bundle, connection pools
    const results: { arrivedPerSecond: number; recordedPerSecond: number }[] = [];
    for (let i = 1; i <= rounds; i += 1) {
      const result = await round(events);
      results.push(result);
      say(`round ${i}: ${events} deliveries, ${result.arrivedPerSecond.toFixed(1)}/s received, ${result.recordedPerSecond.toFixed(1)}/s received and recorded as succeeded`);
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    say(`median: ${median(results.map((r) => r.arrivedPerSecond)).toFixed(1)} deliveries/s received, ${median(results.map((r) => r.recordedPerSecond)).toFixed(1)}/s recorded`);
  } finally {
    await receiver.close();
    await stopChild(worker);
    await client.connection.close();
    await db.destroy();
    await temporal.stop();
    await database.stop();
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench] ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
