/**
 * What the API added for the merchant dashboard (README.md#dashboard), over real HTTP against the real stack: the
 * payment detail with its timeline (status changes and their sources from the workflow, refunds,
 * events with their deliveries, the next provider check), cancel and refund with a session token,
 * the transaction list's currency and search filters, daily fees in analytics, and `/dashboard`
 * served with a fallback to the app for deep links, without touching the API's own 404s.
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack } from '../helpers/stack';
import { afterEvent, mobileMoneyPayment } from '../helpers/fixtures';
import { insertPaymentWithCreatedEvent, statusWriteOf, updatePaymentStatus } from '../../src/db/payments';
import { paymentEvent } from '../../src/activities/events';

const INSTANT = {
  amount: 1500,
  currency: 'RWF',
  payment_method: 'mobile_money',
  phone_number: '+250788000001',
  description: 'Basket order 17',
};

function session(developer: TestDeveloper): Record<string, string> {
  return { authorization: `Bearer ${developer.token}` };
}

async function completedPayment(developer: TestDeveloper, body: object = INSTANT): Promise<any> {
  const created = await call('/v1/payments', { key: developer.key, body });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
}

async function detailOf(developer: TestDeveloper, id: string): Promise<any> {
  const response = await call(`/v1/developer/payments/${id}`, { headers: session(developer) });
  expect(response.status, JSON.stringify(response.body)).to.equal(200);
  return response.body.data;
}

/** Reads the detail until `predicate` holds (deliveries and events follow the payment within moments). */
async function detailUntil(
  developer: TestDeveloper,
  id: string,
  predicate: (detail: any) => boolean,
  timeoutMs = 20_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await detailOf(developer, id);
    if (predicate(detail) || Date.now() > deadline) return detail;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('dashboard API (README.md#dashboard)', function () {
  this.timeout(90_000);
  let receiver: Receiver;
  before(async () => {
    await getStack();
    receiver = await startReceiver();
  });
  after(async () => receiver.close());

  describe('payment detail', () => {
    it('shows a completed payment with fee, net, its creation and completion with their sources, and no next check', async () => {
      const developer = await registerDeveloper();
      const payment = await completedPayment(developer);
      const detail = await detailUntil(developer, payment.id, (d) => d.status_changes.length >= 2);
      expect(detail.payment).to.include({ id: payment.id, status: 'completed', amount: 1500 });
      expect(detail.fee).to.be.a('number').and.be.greaterThan(0);
      expect(detail.net).to.equal(1500 - detail.fee);
      expect(detail.provider_reference).to.be.a('string').and.not.equal(payment.id);
      // The sandbox's simulated receipt number (docs/payments.md#payment-record).
      expect(detail.payment.provider_receipt_number).to.match(/^SBX[0-9A-F]{7}$/);
      expect(detail.history_available).to.equal(true);
      expect(detail.status_changes[0]).to.include({ from: null, to: 'pending', source: 'create' });
      const completion = detail.status_changes.find((change: any) => change.to === 'completed');
      // The sandbox customer approves straight from pending (docs/payments.md#sandbox-scenarios).
      expect(completion.from).to.equal('pending');
      expect(['provider_callback', 'poll', 'create']).to.include(completion.source);
      expect(detail.events.map((event: any) => event.event)).to.include.members([
        'payment.created',
        'payment.completed',
      ]);
      expect(detail.next_provider_check).to.equal(null);
    });

    it('refunds half with a session token; the refund, its merchant source and the refund.completed delivery with its attempt appear', async () => {
      const developer = await registerDeveloper();
      const hook = await call('/v1/developer/webhooks', {
        headers: session(developer),
        body: { url: `${receiver.origin}/hooks`, events: ['refund.completed'] },
      });
      expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
      const payment = await completedPayment(developer);
      const refund = await call(`/v1/developer/payments/${payment.id}/refund`, {
        headers: session(developer),
        body: { amount: 750, reason: 'half back' },
      });
      expect(refund.status, JSON.stringify(refund.body)).to.equal(201);
      expect(refund.body.data).to.include({ payment_id: payment.id, amount: 750, status: 'completed' });

      const detail = await detailUntil(developer, payment.id, (d) =>
        d.events.some((e: any) => e.event === 'refund.completed' && e.deliveries[0]?.attempts.length > 0),
      );
      expect(detail.payment.amount_refunded).to.equal(750);
      expect(detail.net).to.equal(1500 - detail.fee - 750);
      expect(detail.refunds.map((r: any) => [r.id, r.amount, r.status])).to.deep.equal([
        [refund.body.data.id, 750, 'completed'],
      ]);
      const event = detail.events.find((e: any) => e.event === 'refund.completed');
      expect(event.deliveries).to.have.length(1);
      expect(event.deliveries[0]).to.include({ webhook_id: hook.body.data.id, status: 'succeeded' });
      expect(event.deliveries[0].attempts[0]).to.include({ attempt: 1, status_code: 204 });

      // The rest refunded in full: the payment becomes refunded, by the merchant.
      const rest = await call(`/v1/developer/payments/${payment.id}/refund`, { headers: session(developer), body: {} });
      expect(rest.status).to.equal(201);
      const after = await detailUntil(developer, payment.id, (d) =>
        d.status_changes.some((c: any) => c.to === 'refunded'),
      );
      expect(after.status_changes.at(-1)).to.include({ from: 'completed', to: 'refunded', source: 'merchant' });
    });

    it('shows a refund whose answer is unknown for a while as pending from its request, and completed only from when it completed', async () => {
      const developer = await registerDeveloper();
      const payment = await completedPayment(developer, { ...INSTANT, phone_number: '+250788000007' });
      const refund = await call(`/v1/developer/payments/${payment.id}/refund`, {
        headers: session(developer),
        body: { amount: 600 },
      });
      expect(refund.body.data.status).to.equal('pending');
      const waiting = await detailOf(developer, payment.id);
      expect(waiting.refund_changes).to.deep.equal([
        {
          at: refund.body.data.created_at,
          refund_id: refund.body.data.id,
          amount: 600,
          status: 'pending',
          reason: null,
          failure_message: null,
        },
      ]);
      const settled = await detailUntil(developer, payment.id, (d) => d.refunds[0]?.status === 'completed', 60_000);
      const completedAt = settled.refunds[0].completed_at;
      expect(Date.parse(completedAt)).to.be.greaterThan(Date.parse(refund.body.data.created_at));
      expect(settled.refund_changes.map((c: any) => [c.at, c.status])).to.deep.equal([
        [refund.body.data.created_at, 'pending'],
        [completedAt, 'completed'],
      ]);
    });

    it('refuses a refund above the refundable rest with the API error and changes nothing', async () => {
      const developer = await registerDeveloper();
      const payment = await completedPayment(developer);
      const refused = await call(`/v1/developer/payments/${payment.id}/refund`, {
        headers: session(developer),
        body: { amount: 1501 },
      });
      expect(refused.status).to.equal(400);
      expect(refused.body.error.code).to.equal('amount_exceeds_refundable');
      const detail = await detailOf(developer, payment.id);
      expect(detail.refunds).to.deep.equal([]);
      expect(detail.payment.amount_refunded).to.equal(0);
    });

    it("shows the next provider check of an open payment, and a cancel with the session token as the merchant's change", async () => {
      const developer = await registerDeveloper();
      const created = await call('/v1/payments', {
        key: developer.key,
        body: { amount: 5000, currency: 'RWF', payment_method: 'bank_transfer', customer_email: 'buyer@example.com' },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.data.id;
      const open = await detailUntil(developer, id, (d) => d.next_provider_check !== null, 15_000);
      expect(open.payment.status).to.equal('pending');
      expect(open.payment.next_action).to.include({ type: 'bank_transfer' });
      expect(open.next_provider_check.reason).to.equal('poll');
      expect(Date.parse(open.next_provider_check.at)).to.be.within(
        Date.now() - 5_000,
        Date.parse(open.payment.expires_at),
      );

      const cancelled = await call(`/v1/developer/payments/${id}/cancel`, {
        headers: session(developer),
        body: { reason: 'customer changed their mind' },
      });
      expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
      expect(cancelled.body.data).to.include({
        status: 'cancelled',
        cancellation_reason: 'customer changed their mind',
      });
      const detail = await detailUntil(developer, id, (d) => d.status_changes.some((c: any) => c.to === 'cancelled'));
      const changes = detail.status_changes.map((c: any) => [c.from, c.to, c.source]);
      expect(changes[0]).to.deep.equal([null, 'pending', 'create']);
      expect(changes.at(-1)).to.deep.equal([changes.at(-2)[1], 'cancelled', 'merchant']);
      expect(detail.next_provider_check).to.equal(null);
    });

    it('shows a payment whose workflow history is gone with its events and no status changes', async () => {
      const developer = await registerDeveloper();
      const { db } = await getStack();
      const created = mobileMoneyPayment(developer.merchantId, '+250788123456');
      await insertPaymentWithCreatedEvent(db, created, paymentEvent(created, 'payment.created'));
      const payment = afterEvent(created, { type: 'provider_success' });
      await updatePaymentStatus(db, statusWriteOf(payment, [`payment:${payment.id}:completed`]));
      const detail = await detailOf(developer, payment.id);
      expect(detail).to.include({ history_available: false, next_provider_check: null });
      expect(detail.status_changes).to.deep.equal([]);
      expect(detail.events.map((event: any) => event.event)).to.deep.equal(['payment.created']);
    });

    it("answers 404 for another merchant's payment and 401 without credentials (docs/api.md#merchants-and-environments, docs/api.md#credentials)", async () => {
      const owner = await registerDeveloper();
      const stranger = await registerDeveloper();
      const payment = await completedPayment(owner);
      const foreign = await call(`/v1/developer/payments/${payment.id}`, { headers: session(stranger) });
      expect(foreign.status).to.equal(404);
      const refund = await call(`/v1/developer/payments/${payment.id}/refund`, {
        headers: session(stranger),
        body: {},
      });
      expect(refund.status).to.equal(404);
      expect((await call(`/v1/developer/payments/${payment.id}`)).status).to.equal(401);
      expect((await detailOf(owner, payment.id)).payment.amount_refunded).to.equal(0);
    });
  });

  describe('transactions, analytics and openapi', () => {
    it('filters transactions by currency and finds them by description, customer or id part', async () => {
      const developer = await registerDeveloper();
      const rwf = await completedPayment(developer);
      const kes = await completedPayment(developer, {
        amount: 2500,
        currency: 'KES',
        payment_method: 'mobile_money',
        phone_number: '+254700000001',
        description: 'Tea 100%_pure',
      });
      const list = async (query: string) => {
        const response = await call(`/v1/developer/transactions?${query}`, { headers: session(developer) });
        expect(response.status, JSON.stringify(response.body)).to.equal(200);
        return response.body.data.transactions.map((t: any) => t.id);
      };
      expect(await list('currency=KES')).to.deep.equal([kes.id]);
      expect(await list('q=basket')).to.deep.equal([rwf.id]);
      expect(await list('q=100%25_')).to.deep.equal([kes.id]);
      expect(await list(`q=${rwf.id.slice(4, 14)}`)).to.deep.equal([rwf.id]);
      expect(await list('q=%2B254700')).to.deep.equal([kes.id]);
      expect(await list('q=nothing-like-this')).to.deep.equal([]);
      const bad = await call('/v1/developer/transactions?currency=kes', { headers: session(developer) });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.details[0].field).to.equal('currency');
    });

    it('reports fees per day in analytics', async () => {
      const developer = await registerDeveloper();
      await completedPayment(developer);
      const response = await call('/v1/developer/analytics', { headers: session(developer) });
      expect(response.status).to.equal(200);
      const [day] = response.body.data.daily;
      expect(day.fees).to.equal(response.body.data.volume_by_currency[0].fees).and.be.greaterThan(0);
    });

    it('documents the dashboard endpoints in the OpenAPI document', async () => {
      const document = (await call('/v1/openapi.json')).body;
      expect(document.paths['/v1/developer/payments/{id}'].get.security).to.deep.equal([
        { session: [] },
        { secretKey: [] },
      ]);
      expect(document.paths['/v1/developer/payments/{id}/refund'].post.responses).to.have.property('201');
      expect(document.paths['/v1/developer/payments/{id}/cancel'].post.responses).to.have.property('409');
    });
  });

  describe('/dashboard', () => {
    it('serves the app at /dashboard/ and for every deep link below it, with its security headers', async () => {
      const { baseUrl } = await getStack();
      const redirect = await fetch(`${baseUrl}/dashboard`, { redirect: 'manual' });
      expect(redirect.status).to.equal(302);
      expect(redirect.headers.get('location')).to.equal('/dashboard/');
      for (const path of [
        '/dashboard/',
        '/dashboard/sandbox/payments/pay_123?status=completed',
        '/dashboard/live/webhooks/whk_1',
      ]) {
        const page = await fetch(baseUrl + path);
        expect(page.status, path).to.equal(200);
        expect(page.headers.get('content-type')).to.match(/^text\/html/);
        expect(page.headers.get('content-security-policy')).to.include("frame-ancestors 'none'");
        expect(await page.text()).to.include('<div id="root"></div>');
      }
      const html = await (await fetch(`${baseUrl}/dashboard/`)).text();
      const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).to.be.a('string');
      const asset = await fetch(baseUrl + script);
      expect(asset.status).to.equal(200);
      expect(asset.headers.get('cache-control')).to.include('immutable');
    });

    it("answers a missing asset, a path outside the build and another method in the envelope, and leaves the API's 404 alone", async () => {
      const { baseUrl } = await getStack();
      const missing = await fetch(`${baseUrl}/dashboard/assets/nothing.js`);
      expect(missing.status).to.equal(404);
      expect(((await missing.json()) as any).error.code).to.equal('not_found');
      const outside = await fetch(`${baseUrl}/dashboard/..%2f..%2fpackage.json`);
      expect(outside.status).to.be.oneOf([400, 403, 404]);
      expect(await outside.text()).not.to.include('"dependencies"');
      const post = await fetch(`${baseUrl}/dashboard/sandbox/payments`, { method: 'POST' });
      expect(post.status).to.equal(405);
      const api = await fetch(`${baseUrl}/v1/no-such-thing`);
      expect(api.status).to.equal(404);
      expect(((await api.json()) as any).error.code).to.equal('not_found');
      const root = await fetch(`${baseUrl}/dashboards`);
      expect(root.status).to.equal(404);
    });
  });
});
