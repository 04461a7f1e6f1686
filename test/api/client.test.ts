/**
 * The typed client in clients/typescript/: its generated types match what the served OpenAPI
 * document generates (no drift), and it drives the payment operations end to end over real HTTP,
 * each answer checked against the document (test/helpers/client.ts). A webhook delivery is checked
 * against the document's `webhooks` section the same way.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { PaycollectClient, WebhookPayload } from '../../clients/typescript';
import { WEBHOOK_EVENTS, webhookPayloadSchema } from '../../src/api/schemas/webhook-events';
import { CLIENT_DIR, generateClientSchema, SCHEMA_FILE, servedDocument } from '../../scripts/generate-client';
import { conformanceProblems, testClient } from '../helpers/client';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { startReceiver, type Receiver } from '../helpers/receiver';

/** Polls the payment through the client until `status`, for at most `timeoutMs`. */
async function waitForStatus(
  client: PaycollectClient,
  id: string,
  status: string,
  timeoutMs = 15_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data } = await client.GET('/v1/payments/{id}', { params: { path: { id } } });
    if (data?.data.status === status || Date.now() > deadline) return data?.data.status ?? 'unknown';
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('typed client (clients/typescript)', function () {
  this.timeout(90_000);

  it('is what the served document generates: npm run client:generate leaves no drift', async () => {
    const served = await call('/v1/openapi.json');
    expect(served.status).to.equal(200);
    const committed = fs.readFileSync(path.join(CLIENT_DIR, SCHEMA_FILE), 'utf8');
    const fromServed = await generateClientSchema(served.body);
    expect(fromServed, 'clients/typescript/schema.d.ts is stale: run npm run client:generate').to.equal(committed);
    // The generator's in-process document is the served one but for the server address.
    expect({ ...JSON.parse(JSON.stringify(servedDocument())), servers: undefined }).to.deep.equal({
      ...served.body,
      servers: undefined,
    });
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'paycollect-client-'));
    try {
      const generated = path.join(out, SCHEMA_FILE);
      fs.writeFileSync(generated, await generateClientSchema(servedDocument()));
      expect(fs.readFileSync(generated, 'utf8')).to.equal(committed);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  describe('payments end to end', () => {
    let developer: TestDeveloper;
    let client: PaycollectClient;

    before(async () => {
      developer = await registerDeveloper();
      client = await testClient(developer.key);
    });

    it('creates (replayed for the same Idempotency-Key), retrieves and lists a payment', async () => {
      const body = {
        amount: 1500,
        currency: 'RWF' as const,
        payment_method: 'mobile_money' as const,
        phone_number: '+250788000003',
        metadata: { order_id: '1042' },
      };
      const created = await client.POST('/v1/payments', { body, headers: { 'Idempotency-Key': 'client-create-1' } });
      expect(created.response.status).to.equal(201);
      const payment = created.data?.data;
      expect(payment).to.include({ status: 'pending', amount: 1500, currency: 'RWF', object: 'payment' });
      expect(payment?.next_action?.type).to.equal('mobile_money_approval');

      const replay = await client.POST('/v1/payments', { body, headers: { 'Idempotency-Key': 'client-create-1' } });
      expect(replay.response.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.data?.data.id).to.equal(payment?.id);

      const reused = await client.POST('/v1/payments', {
        body: { ...body, amount: 1600 },
        headers: { 'Idempotency-Key': 'client-create-1' },
      });
      expect(reused.response.status).to.equal(409);
      expect(reused.error?.error.code).to.equal('idempotency_key_reused');

      const shown = await client.GET('/v1/payments/{id}', { params: { path: { id: payment?.id as string } } });
      expect(shown.data?.data).to.deep.include({ id: payment?.id, metadata: { order_id: '1042' } });
      const listed = await client.GET('/v1/payments', { params: { query: { limit: 1 } } });
      expect(listed.data?.data.payments.map((p) => p.id)).to.deep.equal([payment?.id]);

      const missing = await client.GET('/v1/payments/{id}', {
        params: { path: { id: 'pay_000000000000000000000000' } },
      });
      expect(missing.response.status).to.equal(404);
      expect(missing.error?.error.code).to.equal('not_found');
    });

    it('cancels a pending payment; a second cancel is 409 payment_not_cancellable', async () => {
      // A bank transfer: its provider can withdraw the request (a mobile-money prompt cannot, docs/payments.md).
      const created = await client.POST('/v1/payments', {
        body: { amount: 2000, currency: 'RWF', payment_method: 'bank_transfer' },
      });
      const id = created.data?.data.id as string;
      const cancelled = await client.POST('/v1/payments/{id}/cancel', {
        params: { path: { id } },
        body: { reason: 'customer left' },
      });
      expect(cancelled.data?.data).to.include({ status: 'cancelled', cancellation_reason: 'customer left' });
      const again = await client.POST('/v1/payments/{id}/cancel', { params: { path: { id } }, body: {} });
      expect(again.response.status).to.equal(409);
      expect(again.error?.error.code).to.equal('payment_not_cancellable');
    });

    it('refunds part of a completed payment, then refuses more than the rest', async () => {
      const created = await client.POST('/v1/payments', {
        body: { amount: 3000, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
      });
      const id = created.data?.data.id as string;
      expect(await waitForStatus(client, id, 'completed')).to.equal('completed');
      const refund = await client.POST('/v1/payments/{id}/refund', {
        params: { path: { id } },
        body: { amount: 1000, reason: 'one item returned' },
        headers: { 'Idempotency-Key': 'client-refund-1' },
      });
      expect(refund.response.status).to.equal(201);
      expect(refund.data?.data).to.include({ object: 'refund', payment_id: id, amount: 1000, status: 'completed' });
      const tooMuch = await client.POST('/v1/payments/{id}/refund', {
        params: { path: { id } },
        body: { amount: 2001 },
      });
      expect(tooMuch.response.status).to.equal(400);
      expect(tooMuch.error?.error.code).to.equal('amount_exceeds_refundable');
      const after = await client.GET('/v1/payments/{id}', { params: { path: { id } } });
      expect(after.data?.data).to.include({ status: 'completed', amount_refunded: 1000 });
    });

    it('answers validation errors with every bad field in details', async () => {
      const { error, response } = await client.POST('/v1/payments', {
        body: { currency: 'RWF', payment_method: 'mobile_money', colour: 'red' } as never,
      });
      expect(response.status).to.equal(400);
      expect(error?.error.code).to.equal('validation_error');
      expect(error?.error.details?.map((d) => d.field).sort()).to.deep.equal(['amount', 'colour']);
    });

    it('creates and retrieves a merchant-scoped payment with {apiKey}; another merchant id is 403 {error}', async () => {
      const scoped = await testClient({ apiKey: developer.key });
      const created = await scoped.POST('/v1/api/merchants/{merchant_id}/payments', {
        params: { path: { merchant_id: developer.merchantId } },
        body: {
          amount: '1500.00',
          currency: 'RWF',
          payment_method: 'momo',
          payment_method_data: { phone_number: '+250788000003' },
        },
      });
      expect(created.response.status).to.equal(200);
      expect(created.data).to.include({ amount: '1500.00', status: 'pending' });
      const shown = await scoped.GET('/v1/api/merchants/{merchant_id}/payments/{payment_id}', {
        params: { path: { merchant_id: developer.merchantId, payment_id: created.data?.id as string } },
      });
      expect(shown.data?.id).to.equal(created.data?.id);
      const foreign = await scoped.GET('/v1/api/merchants/{merchant_id}/payments/{payment_id}', {
        params: { path: { merchant_id: 'mer_000000000000000000000000', payment_id: created.data?.id as string } },
      });
      expect(foreign.response.status).to.equal(403);
      expect(foreign.error).to.deep.equal({ error: 'merchant_id does not match the API key' });
    });
  });

  describe('webhook deliveries', () => {
    let receiver: Receiver;
    after(async () => receiver?.close());

    it('carry the payload and signature headers the webhooks section describes', async () => {
      receiver = await startReceiver();
      const developer = await registerDeveloper();
      const client = await testClient(developer.key);
      const hook = await client.POST('/v1/developer/webhooks', {
        body: { url: `${receiver.origin}/hooks`, events: ['payment.created', 'payment.completed'] },
      });
      expect(hook.response.status).to.equal(201);
      await client.POST('/v1/payments', {
        body: { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
      });
      const deliveries = await receiver.waitFor(2, 20_000);
      for (const delivery of deliveries) {
        const payload = JSON.parse(delivery.body) as WebhookPayload<'payment.completed'>;
        const doc = WEBHOOK_EVENTS.find((event) => event.name === payload.event);
        expect(doc, payload.event).to.not.equal(undefined);
        expect(
          conformanceProblems(webhookPayloadSchema(doc as (typeof WEBHOOK_EVENTS)[number]), payload),
          payload.event,
        ).to.deep.equal([]);
        for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-webhook-signature'])
          expect(delivery.headers[header], header).to.be.a('string');
        expect(delivery.headers['webhook-id']).to.equal(payload.id);
        expect(delivery.headers['user-agent']).to.equal('paycollect-webhooks/1.0');
      }
      expect(deliveries.map((d) => (JSON.parse(d.body) as { event: string }).event).sort()).to.deep.equal([
        'payment.completed',
        'payment.created',
      ]);
    });
  });
});
