/**
 * The live `card_gateway` adapter (docs/providers.md#stripe) against stripe-mock, Stripe's own mock
 * (`go install github.com/stripe/stripe-mock@v0.203.0`, built once into the cache), behind the
 * stateful fake of test/fakes/stripe.ts (stripe-mock is stateless). Every request the adapter sends
 * passes stripe-mock's validation against Stripe's OpenAPI spec. Without Go (and no
 * STRIPE_MOCK_PATH) the `before` hook fails, so the file fails: it never skips.
 */
import { expect } from 'chai';
import { CURRENCY_EXPONENTS, type Currency } from '../../src/domain/money';
import { ProviderUnknownAnswer } from '../../src/providers/http';
import {
  ProviderRefusal,
  type InitiateRequest,
  type PaymentProvider,
  type RefundRequest,
} from '../../src/providers/provider';
import { createStripeClient, createStripeProvider } from '../../src/providers/stripe/adapter';
import { STRIPE_SIGNATURE_HEADER } from '../../src/providers/stripe/callback';
import { stripeSettingsSchema, type StripeSettings } from '../../src/providers/stripe/settings';
import {
  failureCodeOfDecline,
  outcomeOfPaymentIntent,
  refundAnswerOf,
  STRIPE_CURRENCY_EXPONENTS,
  stripeAmountOf,
} from '../../src/providers/stripe/statuses';
import { newId } from '../../src/lib/ids';
import { MAX_STATEMENT_PAGES, stripeStatement } from '../../src/providers/stripe/statement';
import { resolveStripeMock, startStripeMock, type StripeMock } from '../../scripts/lib/stripe-mock';
import { startFakeStripe, type FakeStripe, type StripeJson } from '../fakes/stripe';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { rejectionOf } from '../helpers/adapters';

const WEBHOOK_SECRET = 'whsec_test_secret_for_the_fake';

/** The error a synchronous call threw, or undefined. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** An initiation request for a new payment of `amount` minor units of `currency`. */
function initiation(amount = 1500, currency: Currency = 'USD'): InitiateRequest {
  const paymentId = newId('pay_');
  return {
    paymentId,
    idempotencyKey: `payment:${paymentId}:initiate`,
    amount,
    currency,
    customer: 'ama@example.com',
    description: 'Order 1042',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    callbackUrl: null,
  };
}

function refundRequest(providerReference: string, amount: number, paymentAmount: number): RefundRequest {
  return { providerReference, idempotencyKey: `refund:${newId('ref_')}`, amount, paymentAmount, currency: 'USD' };
}

describe('Stripe card_gateway adapter (docs/providers.md#stripe)', function () {
  this.timeout(30_000);
  let mock: StripeMock;
  let fake: FakeStripe;
  let receiver: Receiver;
  let settings: StripeSettings;
  let stripe: PaymentProvider;

  before(async function () {
    // The first run builds stripe-mock with `go install` (a few minutes); later runs reuse the cache.
    this.timeout(900_000);
    const binary = await resolveStripeMock((line) => process.stdout.write(`[stripe-mock] ${line}\n`));
    mock = await startStripeMock(binary);
    receiver = await startReceiver(() => ({ status: 200 }));
    fake = await startFakeStripe({
      upstreamUrl: mock.url,
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: `${receiver.origin}/v1/provider-callbacks/card_gateway`,
      callbacks: 'once',
    });
    settings = stripeSettingsSchema.parse({
      secretKey: 'sk_test_123',
      webhookSecret: WEBHOOK_SECRET,
      apiBaseUrl: fake.url,
      timeoutMs: 3_000,
    });
    stripe = createStripeProvider(settings);
  });

  after(async () => {
    await fake?.close();
    await receiver?.close();
    await mock?.stop();
  });

  beforeEach(() => {
    fake.setCallbacks('once');
    fake.setRefundStatus('succeeded');
  });

  /** A PaymentIntent created through the adapter and confirmed at the fake with a success. */
  async function collected(amount = 1000): Promise<string> {
    const answer = await stripe.initiate(initiation(amount));
    await fake.confirm(answer.providerReference, 'succeeded');
    return answer.providerReference;
  }

  describe('statuses.ts', () => {
    it('maps every PaymentIntent status onto ours', () => {
      const declined = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      };
      const table: [StripeJson, string][] = [
        [{ status: 'requires_payment_method', last_payment_error: null }, 'pending'],
        [{ status: 'requires_confirmation' }, 'pending'],
        [{ status: 'requires_action' }, 'pending'],
        [{ status: 'processing' }, 'processing'],
        [{ status: 'requires_capture' }, 'processing'],
        [{ status: 'succeeded' }, 'completed'],
        [{ status: 'canceled', cancellation_reason: 'requested_by_customer' }, 'cancelled'],
        [{ status: 'canceled', cancellation_reason: null }, 'cancelled'],
        [{ status: 'canceled', cancellation_reason: 'abandoned', last_payment_error: declined }, 'failed'],
        [{ status: 'requires_payment_method', last_payment_error: declined }, 'failed'],
      ];
      for (const [intent, expected] of table) {
        expect(outcomeOfPaymentIntent(intent as never).status, JSON.stringify(intent)).to.equal(expected);
      }
    });

    it('maps decline reasons onto failure codes, decline_code before code', () => {
      expect(failureCodeOfDecline({ code: 'card_declined', decline_code: 'insufficient_funds' })).to.equal(
        'insufficient_funds',
      );
      expect(failureCodeOfDecline({ code: 'insufficient_funds' })).to.equal('insufficient_funds');
      for (const reason of [
        'generic_decline',
        'do_not_honor',
        'lost_card',
        'stolen_card',
        'fraudulent',
        'expired_card',
        'incorrect_cvc',
        'incorrect_number',
        'card_not_supported',
      ]) {
        expect(failureCodeOfDecline({ code: 'card_declined', decline_code: reason }), reason).to.equal('card_declined');
      }
      for (const code of ['expired_card', 'incorrect_cvc', 'card_declined', 'payment_intent_authentication_failure']) {
        expect(failureCodeOfDecline({ code }), code).to.equal('card_declined');
      }
      for (const reason of ['processing_error', 'issuer_not_available', 'try_again_later', 'reenter_transaction']) {
        expect(failureCodeOfDecline({ code: 'card_declined', decline_code: reason }), reason).to.equal(
          'provider_error',
        );
      }
      expect(failureCodeOfDecline(null)).to.equal('card_declined');
      const outcome = outcomeOfPaymentIntent({
        status: 'requires_payment_method',
        last_payment_error: {
          code: 'card_declined',
          decline_code: 'insufficient_funds',
          message: 'Your card has insufficient funds.',
        },
        cancellation_reason: null,
      });
      expect(outcome).to.deep.equal({
        status: 'failed',
        failureCode: 'insufficient_funds',
        failureMessage: 'Your card has insufficient funds.',
      });
    });

    it('maps every refund status onto a refund answer', () => {
      expect(refundAnswerOf({ id: 're_1', status: 'succeeded' })).to.deep.equal({
        status: 'succeeded',
        refundReference: 're_1',
      });
      expect(refundAnswerOf({ id: 're_1', status: 'pending' })).to.deep.equal({ status: 'pending' });
      expect(refundAnswerOf({ id: 're_1', status: 'requires_action' })).to.deep.equal({ status: 'pending' });
      expect(refundAnswerOf({ id: 're_1', status: null })).to.deep.equal({ status: 'pending' });
      const failed = refundAnswerOf({ id: 're_1', status: 'failed', failure_reason: 'expired_or_canceled_card' });
      expect(failed).to.deep.include({ status: 'failed' });
      expect((failed as { failureMessage: string }).failureMessage).to.contain('expired_or_canceled_card');
      expect(refundAnswerOf({ id: 're_1', status: 'canceled' }).status).to.equal('failed');
    });

    it("sends our minor units unchanged where Stripe's unit has the same exponent (RWF, UGX, XOF, XAF zero-decimal)", () => {
      for (const currency of Object.keys(CURRENCY_EXPONENTS) as Currency[]) {
        if (currency === 'MGA') continue;
        expect(STRIPE_CURRENCY_EXPONENTS[currency], currency).to.equal(CURRENCY_EXPONENTS[currency]);
        expect(stripeAmountOf(12345, currency), currency).to.equal(12345);
      }
      // MGA: two decimals in ISO 4217, none at Stripe; a fraction of an ariary cannot be sent.
      expect(STRIPE_CURRENCY_EXPONENTS.MGA).to.equal(0);
      expect(stripeAmountOf(12300, 'MGA')).to.equal(123);
      expect(() => stripeAmountOf(12345, 'MGA')).to.throw(RangeError);
    });
  });

  describe('initiate', () => {
    it("creates a PaymentIntent and answers its id, pending, and Stripe's client_secret as the next action", async () => {
      const request = initiation(1500, 'USD');
      const answer = await stripe.initiate(request);
      expect(answer.providerReference).to.match(/^pi_/);
      expect(answer.outcome).to.deep.equal({ status: 'pending' });
      const intent = fake.paymentIntent(answer.providerReference) as StripeJson;
      expect(answer.nextAction).to.deep.equal({ type: 'card_confirm', client_secret: intent.client_secret });
      const sent = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents').at(-1);
      expect(sent?.idempotencyKey).to.equal(request.idempotencyKey);
      expect(sent?.params).to.include({
        amount: '1500',
        currency: 'usd',
        description: 'Order 1042',
        'metadata[payment_id]': request.paymentId,
        'allowed_payment_method_types[0]': 'card',
      });
    });

    it('sends a zero-decimal currency (RWF) in whole units, as Stripe expects', async () => {
      const answer = await stripe.initiate(initiation(5000, 'RWF'));
      expect(fake.paymentIntent(answer.providerReference)).to.include({ amount: 5000, currency: 'rwf' });
    });

    it('is idempotent: the same payment gets the same PaymentIntent, sent with the same Idempotency-Key', async () => {
      const request = initiation();
      const first = await stripe.initiate(request);
      const second = await stripe.initiate(request);
      expect(second.providerReference).to.equal(first.providerReference);
      expect(second.nextAction).to.deep.equal(first.nextAction);
      const keys = fake.requests
        .filter((r) => r.path === '/v1/payment_intents' && r.params['metadata[payment_id]'] === request.paymentId)
        .map((r) => r.idempotencyKey);
      expect(keys).to.deep.equal([request.idempotencyKey, request.idempotencyKey]);
    });

    it('a lost answer is unknown, and the retry with the same key finds the PaymentIntent Stripe made', async () => {
      const request = initiation();
      fake.fail(1, 'lost_answer');
      const error = await rejectionOf(stripe.initiate(request));
      expect(error).to.be.instanceOf(ProviderUnknownAnswer);
      expect(error).not.to.be.instanceOf(ProviderRefusal);
      const retried = await stripe.initiate(request);
      const made = fake.requests.filter((r) => r.params['metadata[payment_id]'] === request.paymentId);
      expect(made).to.have.length(2);
      expect(fake.paymentIntent(retried.providerReference)?.metadata).to.deep.equal({ payment_id: request.paymentId });
    });

    it("a request that fails Stripe's own schema (checked by stripe-mock) is a ProviderRefusal", async () => {
      const error = await rejectionOf(stripe.initiate({ ...initiation(), amount: 10.5 }));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect((error as Error).message).to.contain('Request validation error');
    });

    it("an amount below Stripe's minimum charge is a ProviderRefusal (amount_too_small)", async () => {
      const error = await rejectionOf(stripe.initiate(initiation(10, 'USD')));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect((error as ProviderRefusal).failureCode).to.equal('provider_error');
      expect((error as Error).message).to.contain('at least 50');
    });
  });

  describe('fetchStatus', () => {
    it('maps each status of the PaymentIntent at Stripe', async () => {
      const table: [StripeJson, string][] = [
        [{ status: 'requires_payment_method' }, 'pending'],
        [{ status: 'requires_confirmation' }, 'pending'],
        [{ status: 'requires_action' }, 'pending'],
        [{ status: 'processing' }, 'processing'],
        [{ status: 'requires_capture' }, 'processing'],
        [{ status: 'succeeded' }, 'completed'],
        [{ status: 'canceled', cancellation_reason: 'requested_by_customer' }, 'cancelled'],
      ];
      const { providerReference } = await stripe.initiate(initiation());
      for (const [fields, expected] of table) {
        fake.setPaymentIntent(providerReference, fields);
        const answer = await stripe.fetchStatus(providerReference);
        expect(answer.providerReference).to.equal(providerReference);
        expect(answer.outcome.status, JSON.stringify(fields)).to.equal(expected);
      }
    });

    it('a confirmed card completes the payment', async () => {
      const reference = await collected();
      const { outcome } = await stripe.fetchStatus(reference);
      // The PaymentIntent's latest_charge is the receipt id (docs/payments.md#payment-record).
      expect(outcome).to.have.all.keys('status', 'receiptNumber');
      expect(outcome).to.include({ status: 'completed' });
      expect((outcome as { receiptNumber: string }).receiptNumber).to.match(/^ch_\w+$/);
    });

    for (const [outcome, failureCode, message] of [
      ['declined', 'card_declined', 'Your card was declined.'],
      ['insufficient_funds', 'insufficient_funds', 'Your card has insufficient funds.'],
    ] as const) {
      it(`a ${outcome} card fails the payment with ${failureCode}, and the PaymentIntent is cancelled as abandoned so no retry can take money`, async () => {
        const { providerReference } = await stripe.initiate(initiation());
        await fake.confirm(providerReference, outcome);
        const answer = await stripe.fetchStatus(providerReference);
        expect(answer.outcome).to.deep.equal({ status: 'failed', failureCode, failureMessage: message });
        expect(fake.paymentIntent(providerReference)).to.include({
          status: 'canceled',
          cancellation_reason: 'abandoned',
        });
        // Asked again, the ended PaymentIntent still reads as the same failure.
        expect((await stripe.fetchStatus(providerReference)).outcome).to.deep.equal(answer.outcome);
        const error = await rejectionOf(fake.confirm(providerReference, 'succeeded'));
        expect(error).to.be.instanceOf(Error);
      });
    }

    it('a retry on the declined PaymentIntent that succeeded before the adapter could end it stays a success', async () => {
      const { providerReference } = await stripe.initiate(initiation());
      await fake.confirm(providerReference, 'declined');
      // The customer's second card succeeds between our retrieve and our cancel.
      fake.beforeNext('POST', `/v1/payment_intents/${providerReference}/cancel`, () =>
        fake.setPaymentIntent(providerReference, { status: 'succeeded', last_payment_error: null }),
      );
      expect((await stripe.fetchStatus(providerReference)).outcome).to.include({ status: 'completed' });
      expect(fake.paymentIntent(providerReference)).to.include({ status: 'succeeded' });
    });

    it('an id Stripe does not know is a ProviderRefusal (resource_missing)', async () => {
      const error = await rejectionOf(stripe.fetchStatus('pi_doesnotexist000000000000'));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect((error as Error).message).to.contain('No such payment_intent');
    });
  });

  describe('cancel', () => {
    it('cancels a PaymentIntent waiting for the card → cancelled', async () => {
      const { providerReference } = await stripe.initiate(initiation());
      const answer = await stripe.cancel(providerReference);
      expect(answer.outcome).to.deep.equal({ status: 'cancelled' });
      expect(fake.paymentIntent(providerReference)).to.include({
        status: 'canceled',
        cancellation_reason: 'requested_by_customer',
      });
    });

    it('a cancel after the success loses: the answer is completed (docs/payments.md#states)', async () => {
      const reference = await collected();
      const answer = await stripe.cancel(reference);
      expect(answer.outcome).to.include({ status: 'completed' });
      expect(fake.paymentIntent(reference)).to.include({ status: 'succeeded' });
    });

    it('a cancel of an unknown id is a ProviderRefusal', async () => {
      expect(await rejectionOf(stripe.cancel('pi_doesnotexist000000000000'))).to.be.instanceOf(ProviderRefusal);
    });
  });

  describe('refund and fetchRefund', () => {
    it('refunds part, then the rest; a refund beyond what is left fails', async () => {
      const reference = await collected(1000);
      const part = refundRequest(reference, 400, 1000);
      const first = await stripe.refund(part);
      expect(first.status).to.equal('succeeded');
      expect((first as { refundReference: string }).refundReference).to.match(/^re_/);
      const sent = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds').at(-1);
      expect(sent?.idempotencyKey).to.equal(part.idempotencyKey);
      expect(sent?.params).to.include({
        payment_intent: reference,
        amount: '400',
        'metadata[refund_key]': part.idempotencyKey,
      });

      const rest = await stripe.refund(refundRequest(reference, 600, 1000));
      expect(rest.status).to.equal('succeeded');
      expect(fake.refunds(reference).map((r) => r.amount)).to.deep.equal([400, 600]);

      const beyond = await stripe.refund(refundRequest(reference, 1, 1000));
      expect(beyond.status).to.equal('failed');
    });

    it('a repeated refund with the same key refunds once', async () => {
      const reference = await collected(1000);
      const request = refundRequest(reference, 1000, 1000);
      const first = await stripe.refund(request);
      const again = await stripe.refund(request);
      expect(again).to.deep.equal(first);
      expect(fake.refunds(reference)).to.have.length(1);
    });

    it('fetchRefund finds the refund by its key, and answers not_received for a key Stripe never got', async () => {
      const reference = await collected(1000);
      fake.setRefundStatus('pending');
      const request = refundRequest(reference, 300, 1000);
      expect(await stripe.refund(request)).to.deep.equal({ status: 'pending' });
      expect(await stripe.fetchRefund(request)).to.deep.equal({ status: 'pending' });
      const refund = fake.refunds(reference)[0] as StripeJson;
      await fake.settleRefund(refund.id as string, 'succeeded');
      expect(await stripe.fetchRefund(request)).to.deep.equal({ status: 'succeeded', refundReference: refund.id });
      expect(await stripe.fetchRefund(refundRequest(reference, 300, 1000))).to.deep.equal({ status: 'not_received' });
    });

    it('a refund Stripe reports failed answers failed with its reason', async () => {
      const reference = await collected(1000);
      fake.setRefundStatus('failed');
      const answer = await stripe.refund(refundRequest(reference, 100, 1000));
      expect(answer.status).to.equal('failed');
      expect((answer as { failureMessage: string }).failureMessage).to.contain('declined');
    });
  });

  describe('webhook events (parseCallback)', () => {
    function callbackOf(rawBody: string, signature: string | undefined) {
      return {
        rawBody,
        headers: { [STRIPE_SIGNATURE_HEADER]: signature, 'content-type': 'application/json' },
        query: {},
      };
    }

    it('parses the signed events the fake sends on a confirmation', async () => {
      const { providerReference } = await stripe.initiate(initiation());
      const before = receiver.requests.length;
      expect(await fake.confirm(providerReference, 'succeeded')).to.deep.equal([200]);
      const delivered = receiver.requests[before];
      expect(delivered).to.not.equal(undefined);
      const hint = stripe.parseCallback(
        callbackOf(delivered!.body, delivered!.headers[STRIPE_SIGNATURE_HEADER] as string),
      );
      expect(hint).to.deep.equal({ providerReference, claimed: 'completed' });
    });

    it('sends nothing with callbacks off and each event twice with callbacks twice', async () => {
      fake.setCallbacks('off');
      const silent = await stripe.initiate(initiation());
      expect(await fake.confirm(silent.providerReference, 'succeeded')).to.deep.equal([]);
      fake.setCallbacks('twice');
      const twice = await stripe.initiate(initiation());
      const before = receiver.requests.length;
      expect(await fake.confirm(twice.providerReference, 'declined')).to.deep.equal([200, 200]);
      const bodies = receiver.requests.slice(before).map((r) => r.body);
      expect(bodies[0]).to.equal(bodies[1]);
    });

    it('maps each event type to its hint', () => {
      const intent = (status: string, extra: StripeJson = {}) => ({
        id: 'pi_abc',
        object: 'payment_intent',
        status,
        amount: 1000,
        currency: 'usd',
        ...extra,
      });
      const table: [string, StripeJson, { providerReference: string; claimed: string }][] = [
        ['payment_intent.succeeded', intent('succeeded'), { providerReference: 'pi_abc', claimed: 'completed' }],
        [
          'payment_intent.payment_failed',
          intent('requires_payment_method', { last_payment_error: { code: 'card_declined' } }),
          { providerReference: 'pi_abc', claimed: 'failed' },
        ],
        ['payment_intent.canceled', intent('canceled'), { providerReference: 'pi_abc', claimed: 'cancelled' }],
        ['payment_intent.processing', intent('processing'), { providerReference: 'pi_abc', claimed: 'processing' }],
        [
          'payment_intent.requires_action',
          intent('requires_action'),
          { providerReference: 'pi_abc', claimed: 'pending' },
        ],
        [
          'charge.refunded',
          { id: 'ch_1', object: 'charge', payment_intent: 'pi_abc', refunded: true },
          { providerReference: 'pi_abc', claimed: 'completed' },
        ],
        [
          'charge.succeeded',
          { id: 'ch_1', object: 'charge', payment_intent: 'pi_abc' },
          { providerReference: 'pi_abc', claimed: 'processing' },
        ],
      ];
      for (const [type, object, expected] of table) {
        const { rawBody, signature } = fake.signedEvent(type, object);
        expect(stripe.parseCallback(callbackOf(rawBody, signature)), type).to.deep.equal(expected);
      }
      const unrelated = fake.signedEvent('customer.created', { id: 'cus_1', object: 'customer' });
      expect(thrownBy(() => stripe.parseCallback(callbackOf(unrelated.rawBody, unrelated.signature)))).to.be.instanceOf(
        ProviderRefusal,
      );
    });

    it('refuses a wrong signature, a missing header, a stale timestamp and a changed body', async () => {
      const object = { id: 'pi_abc', object: 'payment_intent', status: 'succeeded', amount: 1000, currency: 'usd' };
      const wrong = fake.signedEvent('payment_intent.succeeded', object, { secret: 'whsec_someone_else' });
      const stale = fake.signedEvent('payment_intent.succeeded', object, {
        timestamp: Math.floor(Date.now() / 1000) - 600,
      });
      const good = fake.signedEvent('payment_intent.succeeded', object);
      for (const [name, request] of [
        ['wrong secret', callbackOf(wrong.rawBody, wrong.signature)],
        ['missing header', callbackOf(good.rawBody, undefined)],
        ['stale timestamp', callbackOf(stale.rawBody, stale.signature)],
        ['changed body', callbackOf(good.rawBody.replace('succeeded', 'canceled'), good.signature)],
        ['garbage header', callbackOf(good.rawBody, 'not-a-signature')],
      ] as const) {
        expect(
          thrownBy(() => stripe.parseCallback(request)),
          name,
        ).to.be.instanceOf(ProviderRefusal);
      }
      expect((await stripe.parseCallback(callbackOf(good.rawBody, good.signature))).claimed).to.equal('completed');
    });
  });

  describe('the fake by URL (for a service started as another process)', () => {
    it('confirms, switches callbacks and injects faults over HTTP, and forwards what stripe-mock refuses', async () => {
      const post = (path: string, body: unknown) =>
        fetch(`${fake.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const { providerReference } = await stripe.initiate(initiation());
      expect(await (await post('/__fake/settings', { callbacks: 'twice' })).json()).to.include({ callbacks: 'twice' });
      const confirmed = await post(`/__fake/payment_intents/${providerReference}/confirm`, { outcome: 'succeeded' });
      expect(await confirmed.json()).to.deep.equal({ deliveries: [200, 200] });
      await post('/__fake/faults', { count: 1, kind: 'error500' });
      expect(await rejectionOf(stripe.fetchStatus(providerReference))).to.be.instanceOf(ProviderUnknownAnswer);
      expect((await stripe.fetchStatus(providerReference)).outcome.status).to.equal('completed');
      const bogus = await fetch(`${fake.url}/v1/payment_intents`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_123', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'amount=1000&currency=usd&not_a_parameter=1',
      });
      expect(bogus.status).to.equal(400);
      expect(((await bogus.json()) as { error: { type: string } }).error.type).to.equal('invalid_request_error');
    });
  });

  describe('unknown answers (5xx, time-out)', () => {
    it('a 500 is unknown for every call, never a refusal or an answer', async () => {
      const reference = await collected(1000);
      const calls: [string, () => Promise<unknown>][] = [
        ['initiate', () => stripe.initiate(initiation())],
        ['fetchStatus', () => stripe.fetchStatus(reference)],
        ['cancel', () => stripe.cancel(reference)],
        ['refund', () => stripe.refund(refundRequest(reference, 100, 1000))],
        ['fetchRefund', () => stripe.fetchRefund(refundRequest(reference, 100, 1000))],
      ];
      for (const [name, call] of calls) {
        fake.fail(1, 'error500');
        const error = await rejectionOf(call());
        expect(error, name).to.be.instanceOf(ProviderUnknownAnswer);
        expect(error, name).not.to.be.instanceOf(ProviderRefusal);
        expect((error as ProviderUnknownAnswer).httpStatus, name).to.equal(500);
      }
      expect(fake.refunds(reference)).to.have.length(0);
    });

    it('no answer within the time-out is unknown, and the PaymentIntent is found again afterwards', async () => {
      const impatient = createStripeProvider({ ...settings, timeoutMs: 500 });
      const request = initiation();
      fake.fail(1, 'hang');
      const started = Date.now();
      const error = await rejectionOf(impatient.initiate(request));
      expect(error).to.be.instanceOf(ProviderUnknownAnswer);
      expect(error).not.to.be.instanceOf(ProviderRefusal);
      expect(Date.now() - started).to.be.below(5_000);
      fake.fail(1, 'hang');
      expect(await rejectionOf(impatient.fetchStatus('pi_whatever000000000000000'))).to.be.instanceOf(
        ProviderUnknownAnswer,
      );
      const answer = await impatient.initiate(request);
      expect(answer.outcome).to.deep.equal({ status: 'pending' });
    });
  });

  describe("statement: Stripe's books for reconciliation (docs/reconciliation.md#sources)", () => {
    const window = () => {
      const from = new Date(Date.now() - 3_600_000).toISOString();
      return { from, to: new Date(Date.now() + 3_600_000).toISOString() };
    };

    it("lists the window's charges and refunds by PaymentIntent, gross, through the official package", async () => {
      const statement = stripeStatement(createStripeClient(settings));
      const reference = await collected(2500);
      await stripe.refund(refundRequest(reference, 700, 2500));
      if (statement.method !== 'transactions') throw new Error('Stripe lists transactions');
      const entries = await statement.entries({ window: window() });
      const mine = entries.filter((entry) => entry.providerReference === reference);
      expect(mine.map(({ kind, amount, currency, status }) => ({ kind, amount, currency, status }))).to.deep.equal([
        { kind: 'refund', amount: 700, currency: 'USD', status: 'settled' },
        { kind: 'collection', amount: 2500, currency: 'USD', status: 'settled' },
      ]);
      const request = fake.requests.filter((r) => r.path.startsWith('/v1/balance_transactions')).at(-1);
      expect(request?.params).to.include({ 'expand[0]': 'data.source', limit: '100' });
      const byIntent = await statement.entries({ providerReferences: [reference] });
      expect(byIntent.map((entry) => [entry.kind, entry.amount])).to.deep.equal([
        ['collection', 2500],
        ['refund', 700],
      ]);
    });

    it('fails on a 500 and on a list that never ends, rather than reconcile half a day', async () => {
      const statement = stripeStatement(createStripeClient(settings));
      if (statement.method !== 'transactions') throw new Error('Stripe lists transactions');
      await collected(1200);
      fake.fail(1, 'error500');
      expect(String(await rejectionOf(statement.entries({ window: window() })))).to.match(/unknown error/);
      fake.setStatementPagesForever(true);
      try {
        expect(String(await rejectionOf(statement.entries({ window: window() })))).to.include(
          `did not end within ${MAX_STATEMENT_PAGES} pages`,
        );
      } finally {
        fake.setStatementPagesForever(false);
      }
    });
  });
});
