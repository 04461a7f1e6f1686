/**
 * On-call finds a payment, a payout and a webhook delivery in the Temporal UI by the ids a merchant quotes
 * (docs/operations.md#find-in-temporal-ui): the workflows carry the search attributes `PaymentId`, `PayoutId`,
 * `DeliveryId` and `EventId`, and the queries README and docs/operations.md give find each one. Real app, worker,
 * Temporal dev server (its visibility store, which may lag: each query is polled with a deadline) and PostgreSQL.
 */
import { expect } from 'chai';
import { call, waitForPayment } from '../helpers/http';
import { fundedMerchant, waitForPayout, wallet } from '../helpers/payouts';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack } from '../helpers/stack';

/** One execution a visibility query lists. */
interface Listed {
  workflowId: string;
  type: string;
}

/**
 * The executions `query` lists once `done` holds for them, or what it lists at the deadline (visibility is eventually
 * consistent: a workflow started a moment ago may not be listed yet).
 */
async function listed(query: string, done: (found: Listed[]) => boolean, timeoutMs = 20_000): Promise<Listed[]> {
  const { client } = await getStack();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found: Listed[] = [];
    for await (const execution of client.workflow.list({ query }))
      found.push({ workflowId: execution.workflowId, type: execution.type });
    if (done(found) || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('finding a payment, a payout and a delivery in the Temporal UI (docs/operations.md#find-in-temporal-ui)', function () {
  this.timeout(120_000);
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
    receiver.respond(() => ({ status: 200, body: 'ok' }));
  });

  after(async () => {
    await receiver.close();
  });

  it("lists each workflow by PaymentId, PayoutId, DeliveryId and EventId, and a payment's deliveries by its PaymentId", async () => {
    const merchant = await fundedMerchant(50_000);
    const key = merchant.key;
    const hook = await call('/v1/developer/webhooks', {
      key,
      body: { url: `${receiver.origin}/hooks`, events: ['payment.completed', 'payout.created'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    const webhookId = hook.body.data.id as string;

    const created = await call('/v1/payments', {
      key,
      body: { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const paymentId = created.body.data.id as string;
    await waitForPayment(key, paymentId, (p) => p.status === 'completed', 15_000);
    const payout = await call('/v1/payouts', {
      key,
      headers: { 'idempotency-key': `find-${paymentId}` },
      body: { amount: 1_000, currency: 'RWF', destination: await wallet(key, '0001') },
    });
    expect(payout.status, JSON.stringify(payout.body)).to.equal(201);
    const payoutId = payout.body.data.id as string;
    await waitForPayout(key, payoutId, (p) => p.status === 'paid');

    // The exact queries of README and docs/operations.md.
    const payments = await listed(`PaymentId="${paymentId}"`, (found) =>
      found.some((e) => e.type === 'paymentWorkflow'),
    );
    expect(payments.filter((e) => e.type === 'paymentWorkflow')).to.deep.equal([
      { workflowId: `payment:${paymentId}`, type: 'paymentWorkflow' },
    ]);
    const payouts = await listed(`PayoutId="${payoutId}"`, (found) => found.some((e) => e.type === 'payoutWorkflow'));
    expect(payouts.filter((e) => e.type === 'payoutWorkflow')).to.deep.equal([
      { workflowId: `payout:${payoutId}`, type: 'payoutWorkflow' },
    ]);

    // The deliveries the merchant's delivery log names, by their delivery id and by their event id.
    let deliveries: { id: string; event_id: string; event: string }[] = [];
    const until = Date.now() + 20_000;
    while (deliveries.length < 2 && Date.now() < until) {
      const log = await call(`/v1/developer/webhooks/${webhookId}/deliveries?limit=100`, { key });
      deliveries = log.body.data.deliveries;
      if (deliveries.length < 2) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const ofPayment = deliveries.find((d) => d.event === 'payment.completed');
    const ofPayout = deliveries.find((d) => d.event === 'payout.created');
    expect(ofPayment, JSON.stringify(deliveries)).to.not.equal(undefined);
    expect(ofPayout, JSON.stringify(deliveries)).to.not.equal(undefined);
    for (const delivery of [ofPayment!, ofPayout!]) {
      const byId = await listed(`DeliveryId="${delivery.id}"`, (found) => found.length > 0);
      expect(byId.map((e) => e.type)).to.deep.equal(['webhookDeliveryWorkflow']);
      const byEvent = await listed(`EventId="${delivery.event_id}"`, (found) => found.length > 0);
      expect(byEvent.map((e) => e.workflowId)).to.deep.equal(byId.map((e) => e.workflowId));
    }
    const paymentDeliveries = await listed(
      `PaymentId="${paymentId}" AND WorkflowType="webhookDeliveryWorkflow"`,
      (found) => found.length > 0,
    );
    expect(paymentDeliveries).to.have.length(1);
    const payoutDeliveries = await listed(
      `PayoutId="${payoutId}" AND WorkflowType="webhookDeliveryWorkflow"`,
      (found) => found.length > 0,
    );
    expect(payoutDeliveries).to.have.length(1);
    // Nothing of another payment or payout answers these ids.
    expect(
      (await listed(`PaymentId="${paymentId}" AND MerchantId="${merchant.merchantId}"`, (found) => found.length >= 2))
        .map((e) => e.type)
        .sort(),
    ).to.deep.equal(['paymentWorkflow', 'webhookDeliveryWorkflow']);
  });
});
