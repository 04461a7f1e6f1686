/**
 * The fair baseline's API process (figure a, docs/capacity.md#the-fair-baseline): the least a durable create that
 * waits for its provider costs with this stack. `POST /v1/payments` parses the JSON body (koa-body, as the service),
 * authenticates the bearer key with one indexed SELECT of its SHA-256 in the service's `api_keys`, claims the
 * `Idempotency-Key` with one `INSERT … ON CONFLICT` in the service's `idempotency_keys`, and does Update-with-Start
 * of `fairCreateWorkflow` (bench/baseline/workflows.ts) on the baseline task queue of the same Temporal server,
 * answering 201 with the recorded payment. A missing or unknown key is 401, a key claimed before 409, a body without
 * a positive integer `amount` 400. Nothing else: see the fair baseline's section of docs/capacity.md for what it
 * leaves out.
 *
 * Environment: DATABASE_URL, TEMPORAL_ADDRESS, HOST, PORT. Stops on SIGTERM.
 */
import { createHash, randomBytes } from 'node:crypto';
import Router from '@koa/router';
import { Client, Connection, WithStartWorkflowOperation, WorkflowIdConflictPolicy } from '@temporalio/client';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { createDb } from '../../src/db/knex';
import { hashSecretKey } from '../../src/lib/secret-keys';
import { BASELINE_TASK_QUEUE, fairCreateUpdate, type FairPayment } from './shared';

/** How long the fair payment stays open, in seconds (the service's mobile money default is not needed here). */
const EXPIRES_IN_SECONDS = 600;

async function main(): Promise<void> {
  const { DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: address, HOST: host, PORT: port } = process.env;
  if (!databaseUrl || !address || !port) throw new Error('DATABASE_URL, TEMPORAL_ADDRESS and PORT must be set');
  const db = createDb(databaseUrl, 10);
  const client = new Client({ connection: await Connection.connect({ address }), namespace: 'default' });
  const router = new Router();

  router.post('/v1/payments', async (ctx) => {
    const secret = /^Bearer ([^\s]+)$/.exec(ctx.get('authorization'))?.[1];
    const owner = secret
      ? ((await db('api_keys')
          .where({ key_hash: hashSecretKey(secret) })
          .whereNull('revoked_at')
          .first('merchant_id', 'environment')) as { merchant_id: string; environment: 'sandbox' | 'live' } | undefined)
      : undefined;
    if (!owner) {
      ctx.status = 401;
      return;
    }
    const body = ctx.request.body as {
      amount?: unknown;
      currency?: string;
      payment_method?: string;
      phone_number?: string;
    };
    if (typeof body.amount !== 'number' || !Number.isInteger(body.amount) || body.amount < 1) {
      ctx.status = 400;
      return;
    }
    const key = ctx.get('idempotency-key');
    const claimed = await db('idempotency_keys')
      .insert({
        merchant_id: owner.merchant_id,
        environment: owner.environment,
        key,
        request_hash: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
      })
      .onConflict(['merchant_id', 'environment', 'key'])
      .ignore()
      .returning('key');
    if (claimed.length === 0) {
      ctx.status = 409;
      return;
    }
    const now = Date.now();
    const payment: FairPayment = {
      id: `pay_${randomBytes(12).toString('hex')}`,
      merchantId: owner.merchant_id,
      environment: owner.environment,
      amount: body.amount,
      currency: body.currency ?? 'RWF',
      paymentMethod: body.payment_method ?? 'mobile_money',
      provider: 'momo',
      customerPhone: body.phone_number ?? null,
      status: 'pending',
      providerReference: null,
      expiresAt: new Date(now + EXPIRES_IN_SECONDS * 1000).toISOString(),
      createdAt: new Date(now).toISOString(),
    };
    const recorded = await client.workflow.executeUpdateWithStart(fairCreateUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation('fairCreateWorkflow', {
        taskQueue: BASELINE_TASK_QUEUE,
        workflowId: `bench-fair:${payment.id}`,
        args: [payment],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      }),
    });
    ctx.status = 201;
    ctx.body = { data: recorded };
  });

  const app = new Koa();
  app.use(koaBody({ json: true, urlencoded: false, text: false, multipart: false, jsonStrict: true }));
  app.use(router.routes());
  const server = app.listen(Number(port), host ?? '127.0.0.1');
  process.on('SIGTERM', () => {
    server.close();
    void Promise.all([db.destroy(), client.connection.close()]).finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`fair baseline API failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
