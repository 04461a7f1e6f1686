/**
 * A live merchant takes a card payment end to end through Stripe PaymentIntents (card_gateway,
 * docs/providers.md#stripe): the whole service (API and worker processes) in live mode pointed at the stateful
 * Stripe fake in front of stripe-mock. The client secret is Stripe's; the customer's confirmation
 * (Stripe.js) is played by the fake; the payment settles by the signed webhook, and with webhooks
 * switched off by polling; a decline carries its reason; cancel and partial refunds go through;
 * a webhook with a wrong signature changes nothing. The hosted page's live card form mounts Stripe's Payment Element on
 * the card attempt's client secret in a real browser, with Stripe.js played by a stub that keeps to Stripe.js's
 * documented calls (`Stripe(key)`, `elements({clientSecret})`, `create('payment').mount()`, `confirmPayment()`).
 */
import { expect } from 'chai';
import { resolveStripeMock, startStripeMock, type StripeMock } from '../../scripts/lib/stripe-mock';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe';
import {
  approvedLiveMerchant,
  callService,
  providerReferenceOf,
  startLiveService,
  waitForLivePayment,
  type LiveService,
} from '../helpers/live-providers';
import { PROVIDER_ANSWER_WAIT_MS } from '../../src/workflows/messages';
import { closeBrowser, getBrowser } from '../dashboard/browser';

const WEBHOOK_SECRET = 'whsec_end_to_end_secret';
const PUBLISHABLE_KEY = 'pk_test_HostedPage';

/**
 * Stripe.js as the hosted page uses it, kept to its documented calls: `Stripe(key)`, `stripe.elements({clientSecret})`,
 * `elements.create('payment').mount(selector)` and `stripe.confirmPayment({elements, confirmParams: {return_url}})`.
 * It records every call in `window.stripeCalls`; `confirmPayment` waits for the test's `window.finishConfirm()` (the
 * card confirmed at Stripe meanwhile) and then goes to `return_url` with the query Stripe adds, as Stripe.js does.
 */
const STRIPE_JS_STUB = `
window.stripeCalls = [];
window.Stripe = function (key) {
  window.stripeCalls.push({ call: 'Stripe', key: key });
  return {
    elements: function (options) {
      window.stripeCalls.push({ call: 'elements', clientSecret: options.clientSecret });
      return {
        create: function (type) {
          window.stripeCalls.push({ call: 'create', type: type });
          return {
            mount: function (selector) {
              var frame = document.createElement('div');
              frame.setAttribute('data-stub-payment-element', type);
              frame.textContent = 'Card number';
              document.querySelector(selector).appendChild(frame);
            },
          };
        },
      };
    },
    confirmPayment: function (options) {
      var url = options.confirmParams.return_url;
      window.stripeCalls.push({ call: 'confirmPayment', returnUrl: url, elements: !!options.elements });
      return new Promise(function () {
        window.finishConfirm = function (intent) {
          var sep = url.indexOf('?') < 0 ? '?' : '&';
          location.assign(url + sep + 'payment_intent=' + intent + '&redirect_status=succeeded');
        };
      });
    },
  };
};
`;

describe('live card payments end to end through Stripe, against stripe-mock and its stateful fake (docs/providers.md#stripe)', function () {
  this.timeout(180_000);
  let mock: StripeMock;
  let fake: FakeStripe;
  let service: LiveService;
  let liveKey: string;

  before(async function () {
    this.timeout(900_000);
    mock = await startStripeMock(
      process.env.STRIPE_MOCK_PATH ??
        (await resolveStripeMock((line) => process.stdout.write(`[stripe-mock] ${line}\n`))),
    );
    fake = await startFakeStripe({ upstreamUrl: mock.url, webhookSecret: WEBHOOK_SECRET, callbacks: 'once' });
    service = await startLiveService({
      STRIPE_SECRET_KEY: 'sk_test_123',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE_URL: fake.url,
      STRIPE_TIMEOUT_MS: '3000',
      CHECKOUT_STRIPE_PUBLISHABLE_KEY: PUBLISHABLE_KEY,
    });
    fake.setWebhookUrl(`${service.baseUrl}/v1/provider-callbacks/card_gateway`);
    ({ liveKey } = await approvedLiveMerchant());
  });

  after(async () => {
    await closeBrowser();
    await service?.stop();
    await fake?.close();
    await mock?.stop();
  });

  /** Creates a live USD card payment and returns it with its PaymentIntent id. */
  async function createPayment(amount = 2500): Promise<{ payment: any; intent: string }> {
    const created = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: { amount, currency: 'USD', payment_method: 'card', description: 'Hoodie' },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return { payment: created.body.data, intent: (await providerReferenceOf(created.body.data.id)) as string };
  }

  it("answers Stripe's client secret, created once with an idempotency key from the payment id, and settles by the signed webhook", async () => {
    const { payment, intent } = await createPayment();
    expect(intent).to.match(/^pi_/);
    expect(payment.status).to.equal('pending');
    expect(payment.next_action).to.deep.equal({
      type: 'card_confirm',
      client_secret: fake.paymentIntent(intent)?.client_secret,
    });
    const creates = fake.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/payment_intents' && r.params['metadata[payment_id]'] === payment.id,
    );
    expect(creates.length).to.be.at.least(1);
    expect(new Set(creates.map((r) => r.idempotencyKey)).size).to.equal(1);
    const deliveries = await fake.confirm(intent, 'succeeded');
    expect(deliveries).to.deep.equal([200]);
    const paid = await waitForLivePayment(service.baseUrl, liveKey, payment.id, (p) => p.status === 'completed');
    expect(paid.amount).to.equal(2500);
    // The PaymentIntent's latest_charge is the receipt number (docs/payments.md#payment-record).
    const charge = fake.paymentIntent(intent)?.latest_charge;
    expect(charge).to.match(/^ch_/);
    expect(paid.provider_receipt_number).to.equal(charge);
  });

  it("settles by polling when Stripe's webhooks never arrive", async () => {
    fake.setCallbacks('off');
    try {
      const { payment, intent } = await createPayment();
      await fake.confirm(intent, 'succeeded');
      const paid = await waitForLivePayment(
        service.baseUrl,
        liveKey,
        payment.id,
        (p) => p.status === 'completed',
        90_000,
      );
      expect(paid.status).to.equal('completed');
    } finally {
      fake.setCallbacks('once');
    }
  });

  it('drops the client secret once the customer confirmed and Stripe is still settling (processing), then completes', async () => {
    const { payment, intent } = await createPayment();
    expect(payment.next_action).to.include({ type: 'card_confirm' });
    fake.setPaymentIntent(intent, { status: 'processing' });
    const event = fake.signedEvent('payment_intent.processing', fake.paymentIntent(intent) ?? {});
    const answer = await fetch(`${service.baseUrl}/v1/provider-callbacks/card_gateway`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      body: event.rawBody,
    });
    expect(answer.status).to.equal(200);
    const processing = await waitForLivePayment(service.baseUrl, liveKey, payment.id, (p) => p.status !== 'pending');
    expect(processing).to.include({ status: 'processing', next_action: null });
    expect(processing).to.not.have.property('client_secret');
    fake.setPaymentIntent(intent, { status: 'succeeded' });
    const paid = await waitForLivePayment(
      service.baseUrl,
      liveKey,
      payment.id,
      (p) => p.status === 'completed',
      90_000,
    );
    expect(paid).to.include({ status: 'completed', next_action: null });
  });

  it('fails a declined card with failure_code insufficient_funds', async () => {
    const { payment, intent } = await createPayment();
    await fake.confirm(intent, 'insufficient_funds');
    const failed = await waitForLivePayment(service.baseUrl, liveKey, payment.id, (p) => p.status === 'failed');
    expect(failed.failure_code).to.equal('insufficient_funds');
  });

  it('cancels a payment the customer has not confirmed: the PaymentIntent is canceled at Stripe', async () => {
    const { payment, intent } = await createPayment();
    const cancelled = await callService(service.baseUrl, `/v1/payments/${payment.id}/cancel`, liveKey, { body: {} });
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    expect(cancelled.body.data.status).to.equal('cancelled');
    expect(fake.paymentIntent(intent)?.status).to.equal('canceled');
  });

  it('answers a cancel Stripe is slow to answer by PROVIDER_ANSWER_WAIT_MS with the payment as it stands; payment.cancelled follows (docs/payments.md#cancel-and-refund)', async () => {
    const { payment, intent } = await createPayment();
    // Stripe holds the first cancel until the adapter's 3 s time-out; the workflow's retry goes through.
    fake.beforeNext('POST', `/v1/payment_intents/${intent}/cancel`, () => fake.fail(1, 'hang'));
    const sent = Date.now();
    const answer = await callService(service.baseUrl, `/v1/payments/${payment.id}/cancel`, liveKey, { body: {} });
    expect(Date.now() - sent).to.be.below(PROVIDER_ANSWER_WAIT_MS + 3_000);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body.data.status).to.equal('pending');
    expect(answer.body.message).to.equal('Payment cancel requested');
    const cancelled = await waitForLivePayment(service.baseUrl, liveKey, payment.id, (p) => p.status === 'cancelled');
    expect(cancelled.status).to.equal('cancelled');
    expect(fake.paymentIntent(intent)?.status).to.equal('canceled');
    const events = await callService(service.baseUrl, '/v1/developer/events?limit=100', liveKey);
    const types = (events.body.data.events as { event: string; data: { id: string } }[])
      .filter((e) => e.data.id === payment.id)
      .map((e) => e.event);
    expect(types.filter((t) => t === 'payment.cancelled')).to.have.length(1);
  });

  it('refunds in parts, each refund once at Stripe, until the payment is refunded', async () => {
    const { payment, intent } = await createPayment();
    await fake.confirm(intent, 'succeeded');
    await waitForLivePayment(service.baseUrl, liveKey, payment.id, (p) => p.status === 'completed');
    const first = await callService(service.baseUrl, `/v1/payments/${payment.id}/refund`, liveKey, {
      body: { amount: 1000 },
      headers: { 'idempotency-key': `r1-${payment.id}` },
    });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const again = await callService(service.baseUrl, `/v1/payments/${payment.id}/refund`, liveKey, {
      body: { amount: 1000 },
      headers: { 'idempotency-key': `r1-${payment.id}` },
    });
    expect(again.body.data.id).to.equal(first.body.data.id);
    const rest = await callService(service.baseUrl, `/v1/payments/${payment.id}/refund`, liveKey, {
      body: { amount: 1500 },
    });
    expect(rest.status, JSON.stringify(rest.body)).to.equal(201);
    const refunded = await waitForLivePayment(service.baseUrl, liveKey, payment.id, (p) => p.status === 'refunded');
    expect(refunded.amount_refunded).to.equal(2500);
    expect(fake.refunds(intent).map((r) => r.amount)).to.deep.equal([1000, 1500]);
  });

  it('answers 401 to a webhook with a wrong signature and changes nothing', async () => {
    const { payment, intent } = await createPayment();
    const forged = fake.signedEvent(
      'payment_intent.succeeded',
      { ...fake.paymentIntent(intent), status: 'succeeded' },
      { secret: 'whsec_wrong' },
    );
    const answer = await fetch(`${service.baseUrl}/v1/provider-callbacks/card_gateway`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': forged.signature },
      body: forged.rawBody,
    });
    expect(answer.status).to.equal(401);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await callService(service.baseUrl, `/v1/payments/${payment.id}`, liveKey)).body.data.status).to.equal(
      'pending',
    );
  });

  it("mounts Stripe's Payment Element on the hosted page's card attempt in a browser, and lands on the receipt once Stripe confirmed (docs/hosted-page.md#card)", async () => {
    const successUrl = 'https://shop.example/paid';
    const created = await callService(service.baseUrl, '/v1/checkout/sessions', liveKey, {
      body: { amount: 2500, currency: 'USD', description: 'Hoodie', success_url: successUrl },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const session = created.body.data;
    const context = await (
      await getBrowser()
    ).newContext({ baseURL: service.baseUrl, viewport: { width: 390, height: 844 }, locale: 'en-US' });
    context.setDefaultTimeout(30_000);
    await context.route('https://js.stripe.com/v3/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body: STRIPE_JS_STUB }),
    );
    await context.route(`${successUrl}**`, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><title>Paid</title><h1>Thanks</h1>',
      }),
    );
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.location().url.endsWith('/events'))
        problems.push(`console: ${message.text()}`);
    });
    try {
      await page.goto(`/pay/${session.id}`);
      const card = page.locator('form[data-card="live"]');
      await card.waitFor();
      // The first press starts the card attempt and mounts the Element on its client secret.
      await card.getByRole('button').click();
      await page.locator('#payment-element [data-stub-payment-element="payment"]').waitFor();
      const calls = (await page.evaluate('window.stripeCalls')) as { call: string; [k: string]: unknown }[];
      expect(calls.find((c) => c.call === 'Stripe')).to.deep.include({ key: PUBLISHABLE_KEY });
      const clientSecret = calls.find((c) => c.call === 'elements')?.clientSecret as string;
      const opened = await callService(service.baseUrl, `/v1/checkout/sessions/${session.id}`, liveKey);
      expect(opened.body.data.attempts_count).to.equal(1);
      const attempts = await callService(service.baseUrl, `/v1/payments?checkout_session=${session.id}`, liveKey);
      const paymentId = (attempts.body.data.payments as { id: string }[])[0]?.id as string;
      const intent = (await providerReferenceOf(paymentId)) as string;
      expect(clientSecret).to.equal(fake.paymentIntent(intent)?.client_secret);

      // The second press confirms: Stripe confirms the card and sends the payer to the attempt's page, and its receipt.
      await card.getByRole('button').click();
      await page.waitForFunction('typeof window.finishConfirm === "function"');
      const confirm = ((await page.evaluate('window.stripeCalls')) as { call: string; returnUrl?: string }[]).find(
        (c) => c.call === 'confirmPayment',
      );
      expect(confirm?.returnUrl).to.equal(`${service.baseUrl}/pay/${session.id}/attempts/${paymentId}`);
      expect(await fake.confirm(intent, 'succeeded')).to.deep.equal([200]);
      await page.evaluate(`window.finishConfirm(${JSON.stringify(intent)})`);
      await page.waitForURL(`${successUrl}**`, { timeout: 60_000 });
      const paid = await callService(service.baseUrl, `/v1/checkout/sessions/${session.id}`, liveKey);
      expect(paid.body.data).to.include({ status: 'complete', payment: paymentId });
      expect(problems).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
