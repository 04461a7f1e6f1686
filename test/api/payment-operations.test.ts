/**
 * Card and bank transfer payments, cancel and refund, idempotency keys, provider callbacks and the
 * events API over real HTTP (docs/payments.md), including the races the issue names.
 */
import { expect } from 'chai';
import { decideSandboxTransaction } from '../../src/db/sandbox-ledger';
import { signCallback } from '../../src/providers/sandbox/callback';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { insertLiveKey } from '../helpers/live-key';
import { getStack } from '../helpers/stack';

const CARD = { amount: 2500, currency: 'USD', payment_method: 'card', description: 'Hoodie' };
const BANK = { amount: 50_000, currency: 'RWF', payment_method: 'bank_transfer', description: 'Invoice 7' };
const NO_ANSWER = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000003' };
const INSTANT = { ...NO_ANSWER, phone_number: '+250788000001' };

async function create(developer: TestDeveloper, body: object, headers: Record<string, string> = {}) {
  const response = await call('/v1/payments', { key: developer.key, body, headers });
  expect(response.status, JSON.stringify(response.body)).to.equal(201);
  return response.body.data;
}

async function confirmCard(clientSecret: string, cardNumber: string) {
  return call('/v1/sandbox/card-gateway/confirm', {
    body: {
      client_secret: clientSecret,
      card_number: cardNumber,
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 2,
      cvc: '123',
    },
  });
}

/** The `next_action` column of payment `id` as stored. */
async function storedNextAction(id: string): Promise<unknown> {
  const { db } = await getStack();
  return (await db('payments').where({ id }).first('next_action'))?.next_action;
}

async function paymentCount(merchantId: string): Promise<number> {
  const { db } = await getStack();
  const [{ count }] = await db('payments').where({ merchant_id: merchantId }).count<{ count: number }[]>('id as count');
  return count;
}

describe('payment operations over HTTP (docs/payments.md)', function () {
  this.timeout(60_000);
  let developer: TestDeveloper;
  before(async () => {
    developer = await registerDeveloper();
  });

  describe('card payments (docs/payments.md#card-payments)', () => {
    for (const [card, status, failureCode] of [
      ['4242424242424242', 'completed', null],
      ['4000000000000002', 'failed', 'card_declined'],
      ['4000000000009995', 'failed', 'insufficient_funds'],
    ] as const) {
      it(`confirming ${card} right after the create ends ${failureCode ?? status}`, async () => {
        const payment = await create(developer, CARD);
        // The gateway's own client secret (docs/payments.md#card-payments), there in the create's answer: the front end
        // confirms at once.
        expect(payment.client_secret).to.match(/^card_gateway_[0-9A-Za-z_]+_secret_[0-9A-Za-z]{24}$/);
        expect(payment.next_action).to.deep.equal({ type: 'card_confirm', client_secret: payment.client_secret });
        const confirmed = await confirmCard(payment.client_secret, card);
        expect(confirmed.status).to.equal(200);
        const settled = await waitForPayment(developer.key, payment.id, (p) => p.status === status);
        expect(settled).to.include({ status, failure_code: failureCode });
        // Settled, it awaits no confirmation: neither the answer nor the stored row keeps the client secret.
        expect(settled.next_action).to.equal(null);
        expect(settled).to.not.have.property('client_secret');
        expect(await storedNextAction(payment.id)).to.equal(null);
      });
    }

    it('refuses an unknown client secret (404), an expired card and bad card fields (400)', async () => {
      const payment = await create(developer, CARD);
      expect((await confirmCard(`${payment.id}_secret_${'x'.repeat(24)}`, '4242424242424242')).status).to.equal(404);
      const expired = await call('/v1/sandbox/card-gateway/confirm', {
        body: {
          client_secret: payment.client_secret,
          card_number: '4242424242424242',
          exp_month: 1,
          exp_year: 2020,
          cvc: '123',
        },
      });
      expect(expired.status).to.equal(400);
      const badCvc = await call('/v1/sandbox/card-gateway/confirm', {
        body: {
          client_secret: payment.client_secret,
          card_number: '4242424242424242',
          exp_month: 1,
          exp_year: 2099,
          cvc: '12',
        },
      });
      expect(badCvc.body.error).to.include({ code: 'validation_error', message: 'cvc must be 3 or 4 digits' });
    });

    it('refuses RWF for card (400 naming currency)', async () => {
      const response = await call('/v1/payments', { key: developer.key, body: { ...CARD, currency: 'RWF' } });
      expect(response.status).to.equal(400);
      expect(response.body.error.details[0].field).to.equal('currency');
    });
  });

  describe('bank transfers (docs/payments.md#sandbox-scenarios)', () => {
    it('answers next_action with the account and reference, and completes when the transfer is simulated', async () => {
      const payment = await create(developer, BANK);
      expect(payment.next_action).to.include({ type: 'bank_transfer', account_number: '000400012345' });
      expect(payment.next_action.reference).to.match(/^PC[0-9A-Z]{24}$/);
      expect(Date.parse(payment.expires_at) - Date.parse(payment.created_at)).to.equal(72 * 3600 * 1000);
      const simulated = await call(`/v1/sandbox/payments/${payment.id}/simulate`, {
        key: developer.key,
        body: { outcome: 'completed' },
      });
      expect(simulated.status).to.equal(200);
      const completed = await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed');
      expect(completed.next_action, 'no transfer instructions once paid').to.equal(null);
      expect(await storedNextAction(payment.id)).to.equal(null);
      const again = await call(`/v1/sandbox/payments/${payment.id}/simulate`, {
        key: developer.key,
        body: { outcome: 'failed' },
      });
      expect(again.status).to.equal(409);
    });

    it('fails when the simulated transfer is returned, and refuses a bad outcome or a non-bank payment', async () => {
      const payment = await create(developer, BANK);
      expect(
        (await call(`/v1/sandbox/payments/${payment.id}/simulate`, { key: developer.key, body: { outcome: 'maybe' } }))
          .status,
      ).to.equal(400);
      await call(`/v1/sandbox/payments/${payment.id}/simulate`, { key: developer.key, body: { outcome: 'failed' } });
      expect((await waitForPayment(developer.key, payment.id, (p) => p.status === 'failed')).failure_code).to.equal(
        'declined',
      );
      const momo = await create(developer, NO_ANSWER);
      expect(
        (await call(`/v1/sandbox/payments/${momo.id}/simulate`, { key: developer.key, body: { outcome: 'completed' } }))
          .status,
      ).to.equal(404);
    });
  });

  describe('cancel (docs/payments.md#states, docs/payments.md#cancel-and-refund)', () => {
    it('cancels a waiting payment, once; a second cancel is 409', async () => {
      const payment = await create(developer, BANK);
      const cancelled = await call(`/v1/payments/${payment.id}/cancel`, {
        key: developer.key,
        body: { reason: 'out of stock' },
      });
      expect(cancelled.status).to.equal(200);
      expect(cancelled.body.data).to.include({ status: 'cancelled', cancellation_reason: 'out of stock' });
      expect((await call(`/v1/payments/${payment.id}`, { key: developer.key })).body.data.status).to.equal('cancelled');
      const again = await call(`/v1/payments/${payment.id}/cancel`, { key: developer.key, method: 'POST' });
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('payment_not_cancellable');
      const { db } = await getStack();
      const events = await db('events').where({ object_id: payment.id }).orderBy('created_at').pluck('type');
      expect(events).to.deep.equal(['payment.created', 'payment.cancelled']);
    });

    it("drops a payment's next_action once it is settled: a mobile-money payment completed, a bank transfer cancelled", async () => {
      const instant = await create(developer, INSTANT);
      expect(instant.next_action).to.include({ type: 'mobile_money_approval' });
      expect((await waitForPayment(developer.key, instant.id, (p) => p.status === 'completed')).next_action).to.equal(
        null,
      );
      expect(await storedNextAction(instant.id)).to.equal(null);
      const waiting = await create(developer, BANK);
      expect(waiting.next_action).to.include({ type: 'bank_transfer' });
      const cancelled = await call(`/v1/payments/${waiting.id}/cancel`, { key: developer.key, method: 'POST' });
      expect(cancelled.body.data).to.include({ status: 'cancelled', next_action: null });
      expect(await storedNextAction(waiting.id)).to.equal(null);
    });

    it("refuses to cancel a waiting mobile-money payment (409): the operator's prompt cannot be withdrawn; nothing changes", async () => {
      const waiting = await create(developer, NO_ANSWER);
      const { db, client: temporal } = await getStack();
      const refused = await call(`/v1/payments/${waiting.id}/cancel`, { key: developer.key, body: { reason: 'gone' } });
      expect(refused.status).to.equal(409);
      expect(refused.body.error.code).to.equal('payment_not_cancellable');
      expect(refused.body.error.message).to.include('cannot withdraw');
      expect(refused.body.error.message).to.include('expiry');
      const after = (await call(`/v1/payments/${waiting.id}`, { key: developer.key })).body.data;
      expect(after).to.include({ status: 'pending', cancellation_reason: null });
      expect(after.next_action).to.include({ type: 'mobile_money_approval' });
      expect(await db('events').where({ object_id: waiting.id }).pluck('type')).to.deep.equal(['payment.created']);
      // Refused before it reached the workflow: no Update in its history.
      const history = (await temporal.workflow.getHandle(`payment:${waiting.id}`).fetchHistory()).events ?? [];
      const accepted = history.filter(
        (e: { workflowExecutionUpdateAcceptedEventAttributes?: unknown }) =>
          e.workflowExecutionUpdateAcceptedEventAttributes,
      );
      expect(accepted).to.have.length(1); // the create
    });

    it('refuses to cancel a completed payment (409) and an unknown or foreign one (404)', async () => {
      const payment = await create(developer, INSTANT);
      await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed');
      const response = await call(`/v1/payments/${payment.id}/cancel`, { key: developer.key, method: 'POST' });
      expect(response.status).to.equal(409);
      expect(response.body.error.code).to.equal('payment_not_cancellable');
      const other = await registerDeveloper();
      expect((await call(`/v1/payments/${payment.id}/cancel`, { key: other.key, method: 'POST' })).status).to.equal(
        404,
      );
    });

    it('lets a provider success that came first win: the payment ends completed and the cancel gets 409', async () => {
      const payment = await create(developer, CARD);
      await confirmCard(payment.client_secret, '4242424242424242');
      const cancel = await call(`/v1/payments/${payment.id}/cancel`, { key: developer.key, method: 'POST' });
      expect(cancel.status).to.equal(409);
      expect(cancel.body.error.code).to.equal('payment_not_cancellable');
      expect((await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed')).status).to.equal(
        'completed',
      );
    });

    it('settles a true race between a card success and a cancel consistently: one of them wins, never both', async () => {
      const payment = await create(developer, CARD);
      const [confirm, cancel] = await Promise.all([
        confirmCard(payment.client_secret, '4242424242424242'),
        call(`/v1/payments/${payment.id}/cancel`, { key: developer.key, method: 'POST' }),
      ]);
      const final = await waitForPayment(
        developer.key,
        payment.id,
        (p) => p.status === 'completed' || p.status === 'cancelled',
      );
      if (final.status === 'completed') {
        expect(cancel.status).to.equal(409);
        expect(confirm.body.data.outcome.status).to.equal('completed');
      } else {
        expect(cancel.status).to.equal(200);
        expect([200, 409]).to.include(confirm.status);
      }
    });
  });

  describe('refund (docs/payments.md#states, docs/payments.md#cancel-and-refund)', () => {
    it('refunds in parts (201 ref_…), then the rest, and the payment becomes refunded', async () => {
      const payment = await create(developer, INSTANT);
      await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed');
      const part = await call(`/v1/payments/${payment.id}/refund`, {
        key: developer.key,
        body: { amount: 400, reason: 'damaged' },
      });
      expect(part.status).to.equal(201);
      expect(part.body.data).to.include({
        object: 'refund',
        payment_id: payment.id,
        amount: 400,
        currency: 'RWF',
        status: 'completed',
        reason: 'damaged',
      });
      expect(part.body.data.id).to.match(/^ref_[0-9A-Za-z]{24}$/);
      expect((await call(`/v1/payments/${payment.id}`, { key: developer.key })).body.data).to.include({
        status: 'completed',
        amount_refunded: 400,
      });
      const tooMuch = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, body: { amount: 1101 } });
      expect(tooMuch.status).to.equal(400);
      expect(tooMuch.body.error.code).to.equal('amount_exceeds_refundable');
      const rest = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, method: 'POST' });
      expect(rest.status).to.equal(201);
      expect(rest.body.data.amount).to.equal(1100);
      const after = await waitForPayment(developer.key, payment.id, (p) => p.status === 'refunded');
      expect(after).to.include({ status: 'refunded', amount_refunded: 1500 });
      const none = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, method: 'POST' });
      expect(none.status).to.equal(409);
      expect(none.body.error.code).to.equal('payment_not_refundable');
    });

    it('refuses a refund of a pending payment (409) and bad refund bodies (400)', async () => {
      const payment = await create(developer, NO_ANSWER);
      const pending = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, method: 'POST' });
      expect(pending.status).to.equal(409);
      expect(pending.body.error.code).to.equal('payment_not_refundable');
      for (const amount of [0, -5, 1.5, '100']) {
        const bad = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, body: { amount } });
        expect(bad.status, String(amount)).to.equal(400);
        expect(bad.body.error.code).to.equal('validation_error');
      }
    });

    it('lets one of two refunds racing for the last amount win', async () => {
      const payment = await create(developer, INSTANT);
      await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed');
      const answers = await Promise.all(
        [1, 2].map(() => call(`/v1/payments/${payment.id}/refund`, { key: developer.key, body: { amount: 1500 } })),
      );
      expect(answers.map((a) => a.status).sort()).to.satisfy(
        (statuses: number[]) => statuses[0] === 201 && [400, 409].includes(statuses[1] as number),
      );
      const { db } = await getStack();
      expect(await db('refunds').where({ payment_id: payment.id, status: 'completed' }).pluck('amount')).to.deep.equal([
        1500,
      ]);
    });
  });

  describe('what sandbox refunds and cancels: what live does (docs/payments.md#refundable-and-cancellable)', () => {
    const AIRTEL = { ...INSTANT, phone_number: '+250728000001' };
    const MPESA = { amount: 150_000, currency: 'KES', payment_method: 'mobile_money', phone_number: '+254712000001' };

    it('says on the payment whether it can be refunded or cancelled, and why not', async () => {
      const waiting = await create(developer, NO_ANSWER);
      expect(waiting).to.deep.include({
        refundable: {
          allowed: false,
          partial: false,
          reason: 'a pending payment cannot be refunded; only completed payments can',
        },
        cancellable: {
          allowed: false,
          reason: 'momo cannot withdraw a request the customer has not answered: it lapses at expires_at',
        },
      });
      const card = await create(developer, CARD);
      expect(card.cancellable).to.deep.equal({ allowed: true, reason: null });
      const paid = await create(developer, INSTANT);
      const completed = await waitForPayment(developer.key, paid.id, (p) => p.status === 'completed');
      expect(completed.refundable).to.deep.equal({ allowed: true, partial: true, reason: null });
      await call(`/v1/payments/${paid.id}/refund`, { key: developer.key, method: 'POST' });
      const refunded = await waitForPayment(developer.key, paid.id, (p) => p.status === 'refunded');
      expect(refunded.refundable).to.deep.equal({
        allowed: false,
        partial: false,
        reason: 'a refunded payment cannot be refunded; only completed payments can',
      });
      const listed = await call('/v1/payments?limit=3', { key: developer.key });
      expect(listed.body.data.payments.find((p: { id: string }) => p.id === paid.id).refundable).to.deep.equal(
        refunded.refundable,
      );
    });

    for (const [operator, body, amount] of [
      ['Airtel Money (mobile_money_b)', AIRTEL, 1500],
      ['M-Pesa (mpesa)', MPESA, 150_000],
    ] as const) {
      it(`refuses a partial refund of an ${operator} sandbox payment with 409, as live does, and takes the whole`, async () => {
        const payment = await create(developer, body);
        const completed = await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed');
        expect(completed.refundable).to.deep.equal({ allowed: true, partial: false, reason: null });
        const part = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, body: { amount: 100 } });
        expect(part.status, JSON.stringify(part.body)).to.equal(409);
        expect(part.body.error.code).to.equal('payment_not_refundable');
        const { db } = await getStack();
        expect(await db('refunds').where({ payment_id: payment.id }).pluck('id'), 'nothing recorded').to.deep.equal([]);
        const whole = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, method: 'POST' });
        expect(whole.status, JSON.stringify(whole.body)).to.equal(201);
        expect(whole.body.data).to.include({ amount, status: 'completed' });
      });
    }
  });

  describe('idempotency keys (docs/payments.md#idempotency)', () => {
    it('turns 50 concurrent creates with one key into one payment and 50 identical answers', async () => {
      const fresh = await registerDeveloper();
      const headers = { 'idempotency-key': `order-42-${Date.now()}` };
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => call('/v1/payments', { key: fresh.key, body: INSTANT, headers })),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(Array(50).fill(201));
      const bodies = new Set(answers.map((a) => JSON.stringify(a.body)));
      expect(bodies.size).to.equal(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).to.have.length(49);
      expect(await paymentCount(fresh.merchantId)).to.equal(1);
    });

    it('answers 409 idempotency_key_reused for the same key with a different body, creating nothing', async () => {
      const fresh = await registerDeveloper();
      const headers = { 'idempotency-key': 'same-key' };
      await create(fresh, INSTANT, headers);
      const reused = await call('/v1/payments', { key: fresh.key, body: { ...INSTANT, amount: 1501 }, headers });
      expect(reused.status).to.equal(409);
      expect(reused.body.error.code).to.equal('idempotency_key_reused');
      expect(await paymentCount(fresh.merchantId)).to.equal(1);
    });

    it('treats a key older than 24 h as new: a different body then creates a second payment (docs/payments.md#idempotency)', async () => {
      const fresh = await registerDeveloper();
      const headers = { 'idempotency-key': 'old-key' };
      const first = await create(fresh, INSTANT, headers);
      const { db } = await getStack();
      const aged = await db('idempotency_keys')
        .where({ merchant_id: fresh.merchantId, key: 'old-key' })
        .update({ created_at: db.raw("now() - interval '24 hours 1 minute'") });
      expect(aged).to.equal(1);
      const second = await create(fresh, { ...INSTANT, amount: 1501 }, headers);
      expect(second.id).to.not.equal(first.id);
      expect(second.amount).to.equal(1501);
      expect(await paymentCount(fresh.merchantId)).to.equal(2);
      // Inside the new window the key replays the second payment.
      const replayed = await call('/v1/payments', { key: fresh.key, body: { ...INSTANT, amount: 1501 }, headers });
      expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
      expect(replayed.body.data.id).to.equal(second.id);
    });

    it('replays a refund with the same key instead of refunding twice, and refuses a key over 255 characters', async () => {
      const payment = await create(developer, INSTANT);
      await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed');
      const headers = { 'idempotency-key': `refund-${payment.id}` };
      const first = await call(`/v1/payments/${payment.id}/refund`, {
        key: developer.key,
        body: { amount: 100 },
        headers,
      });
      const second = await call(`/v1/payments/${payment.id}/refund`, {
        key: developer.key,
        body: { amount: 100 },
        headers,
      });
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect((await call(`/v1/payments/${payment.id}`, { key: developer.key })).body.data.amount_refunded).to.equal(
        100,
      );
      const long = await call('/v1/payments', {
        key: developer.key,
        body: INSTANT,
        headers: { 'idempotency-key': 'k'.repeat(256) },
      });
      expect(long.status).to.equal(400);
    });
  });

  describe('provider callbacks (docs/payments.md#provider-callbacks)', () => {
    async function waitingPayment() {
      const payment = await create(developer, NO_ANSWER);
      const { db } = await getStack();
      const row = await db('payments').where({ id: payment.id }).first('provider_reference');
      return { id: payment.id as string, reference: row.provider_reference as string };
    }

    async function callback(body: object, secret?: string) {
      const { config } = await getStack();
      const rawBody = JSON.stringify(body);
      return call('/v1/provider-callbacks/momo', {
        rawBody,
        headers: {
          'content-type': 'application/json',
          'x-provider-signature': signCallback(rawBody, secret ?? config.PROVIDER_CALLBACK_SECRET),
        },
      });
    }

    it('completes a payment from a signed callback, confirmed with the provider, without waiting for a poll', async () => {
      const { id, reference } = await waitingPayment();
      // The customer approved: the provider knows it, and says so in its callback.
      const { db } = await getStack();
      await decideSandboxTransaction(db, reference, { status: 'succeeded' }, new Date());
      const response = await callback({ provider_reference: reference, status: 'succeeded' });
      expect(response.status).to.equal(200);
      expect(response.body.data).to.include({ received: true, payment_id: id, action: 'signalled' });
      expect((await waitForPayment(developer.key, id, (p) => p.status === 'completed', 3000)).status).to.equal(
        'completed',
      );
      // A callback about the settled payment answers 200 and changes nothing.
      const late = await callback({ provider_reference: reference, status: 'pending' });
      expect(late.status).to.equal(200);
      expect(late.body.data.action).to.equal('ignored');
      expect((await db('events').where({ object_id: id }).pluck('type')).sort()).to.deep.equal([
        'payment.completed',
        'payment.created',
      ]);
    });

    it('acts on nothing a callback merely claims: a forged success leaves the payment waiting', async () => {
      const { id, reference } = await waitingPayment();
      expect((await callback({ provider_reference: reference, status: 'succeeded' })).status).to.equal(200);
      await new Promise((r) => setTimeout(r, 1000));
      expect((await call(`/v1/payments/${id}`, { key: developer.key })).body.data.status).to.equal('pending');
    });

    it('refuses a bad signature (401, nothing changes), an authenticated unknown reference (404) and an unknown provider (404)', async () => {
      const { id, reference } = await waitingPayment();
      const rawBody = JSON.stringify({ provider_reference: reference, status: 'succeeded' });
      const forged = await callback({ provider_reference: reference, status: 'succeeded' }, 'not-the-secret'.repeat(3));
      expect(forged.status).to.equal(401);
      const unsigned = await call('/v1/provider-callbacks/momo', {
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expect(unsigned.status).to.equal(401);
      const unknown = await callback({ provider_reference: 'momo_nope', status: 'succeeded' });
      expect(unknown.status).to.equal(404);
      expect(
        (await call('/v1/provider-callbacks/paypal', { rawBody, headers: { 'content-type': 'application/json' } }))
          .status,
      ).to.equal(404);
      expect((await call(`/v1/payments/${id}`, { key: developer.key })).body.data.status).to.equal('pending');
    });
  });

  describe('live mode without a live adapter (docs/payments.md#live-mode)', () => {
    it('answers 503 provider_unavailable on both families and creates nothing', async () => {
      const fresh = await registerDeveloper();
      const liveKey = await insertLiveKey(fresh.merchantId);
      const generic = await call('/v1/payments', { key: liveKey, body: INSTANT });
      expect(generic.status).to.equal(503);
      expect(generic.body.error.code).to.equal('provider_unavailable');
      const scoped = await call(`/v1/api/merchants/${fresh.merchantId}/payments`, {
        headers: { 'x-api-key': liveKey },
        body: {
          amount: '10.00',
          currency: 'USD',
          payment_method: 'card_gateway',
          payment_method_data: { payment_method_types: ['card'] },
        },
      });
      expect(scoped.status).to.equal(503);
      expect(scoped.body).to.have.keys(['error']);
      expect(await paymentCount(fresh.merchantId)).to.equal(0);
    });

    it('keeps live and sandbox apart: a live key never sees a sandbox payment (docs/api.md#merchants-and-environments)', async () => {
      const fresh = await registerDeveloper();
      const payment = await create(fresh, INSTANT);
      const liveKey = await insertLiveKey(fresh.merchantId);
      expect((await call(`/v1/payments/${payment.id}`, { key: liveKey })).status).to.equal(404);
    });
  });

  describe('events API (docs/payments.md#events)', () => {
    it("lists the merchant's events newest first, filters by type, pages, and shows one", async () => {
      const fresh = await registerDeveloper();
      for (let i = 0; i < 3; i += 1) {
        const payment = await create(fresh, INSTANT);
        await waitForPayment(fresh.key, payment.id, (p) => p.status === 'completed');
      }
      const all = await call('/v1/developer/events?limit=4', { key: fresh.key });
      expect(all.status).to.equal(200);
      expect(all.body.data.pagination).to.deep.equal({ page: 1, limit: 4, total: 6, total_pages: 2 });
      const times = all.body.data.events.map((e: { created_at: string }) => e.created_at);
      expect([...times].sort().reverse()).to.deep.equal(times);
      const completed = await call('/v1/developer/events?type=payment.completed', {
        headers: { authorization: `Bearer ${fresh.token}` },
      });
      expect(completed.body.data.events.map((e: { event: string }) => e.event)).to.deep.equal([
        'payment.completed',
        'payment.completed',
        'payment.completed',
      ]);
      const one = await call(`/v1/developer/events/${all.body.data.events[0].id}`, { key: fresh.key });
      expect(one.body.data).to.deep.equal(all.body.data.events[0]);
      expect(
        (await call(`/v1/developer/events/${all.body.data.events[0].id}`, { key: developer.key })).status,
      ).to.equal(404);
    });

    it('refuses limit=101, page=0, an unknown type and a missing credential', async () => {
      for (const query of ['limit=101', 'page=0', 'type=payment.exploded', 'limit=abc']) {
        const response = await call(`/v1/developer/events?${query}`, { key: developer.key });
        expect(response.status, query).to.equal(400);
        expect(response.body.error.code).to.equal('validation_error');
      }
      expect((await call('/v1/developer/events')).status).to.equal(401);
    });
  });
});
