/**
 * Card attempts of a checkout session (docs/hosted-page.md#card) against the real stack: `POST
 * /v1/checkout/sessions/{id}/attempts` `{payment_method: "card"}` answers the card payment with its `client_secret`,
 * the sandbox card gateway's confirm completes the session, a card in a currency cards do not take is 400 naming
 * `payment_method` with nothing started, and the sandbox page of a card currency offers the sandbox card form.
 */
import { expect } from 'chai';
import { call } from '../helpers/http';
import { getStack } from '../helpers/stack';
import { createSession, merchantOfSuite } from './fixtures';

/** Two tickets in `currency`. */
const TICKETS = (currency: string) => ({
  amount: 2_500,
  currency,
  description: 'Two tickets',
  success_url: 'https://shop.example/thanks',
});

const cardAttempt = (id: string, body: object = { payment_method: 'card' }) =>
  call(`/v1/checkout/sessions/${id}/attempts`, { body });

describe('card attempts of a checkout session (docs/hosted-page.md#card)', function () {
  this.timeout(60_000);
  const merchant = merchantOfSuite();

  it('answers the card payment with its client_secret, one at a time, and the gateway’s confirm completes the session', async () => {
    const { id } = await createSession(merchant(), TICKETS('USD'));
    const started = await cardAttempt(id);
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const attempt = started.body.data;
    expect(attempt).to.include({ status: 'pending', operator: null });
    expect(attempt.next_action.type).to.equal('card_confirm');
    expect(attempt.next_action.client_secret).to.match(/_secret_/);
    const second = await cardAttempt(id);
    expect(second.status).to.equal(409);
    expect(second.body.error.code).to.equal('checkout_session_attempt_in_progress');

    const confirmed = await call('/v1/sandbox/card-gateway/confirm', {
      body: {
        client_secret: attempt.next_action.client_secret,
        card_number: '4242424242424242',
        exp_month: 12,
        exp_year: 2030,
        cvc: '123',
      },
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
    const deadline = Date.now() + 15_000;
    let session: any;
    do {
      session = (await call(`/v1/checkout/sessions/${id}`, { key: merchant().key })).body.data;
      if (session.status === 'complete') break;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() < deadline);
    expect(session).to.include({ status: 'complete', payment: attempt.payment, attempts_count: 1 });
    const payment = await call(`/v1/payments/${attempt.payment}`, { key: merchant().key });
    expect(payment.body.data).to.include({ payment_method: 'card', status: 'completed' });
  });

  it('refuses a card in a currency cards do not take, and a card attempt with a phone number, starting nothing', async () => {
    const { id } = await createSession(merchant(), TICKETS('RWF'));
    const refused = await cardAttempt(id);
    expect(refused.status).to.equal(400);
    expect(refused.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['payment_method']);
    const extra = await cardAttempt(id, { payment_method: 'card', phone_number: '0788 000 001' });
    expect(extra.status).to.equal(400);
    const unknown = await cardAttempt(id, { payment_method: 'bank_transfer' });
    expect(unknown.status).to.equal(400);
    const session = await call(`/v1/checkout/sessions/${id}`, { key: merchant().key });
    expect(session.body.data).to.include({ status: 'open', attempts_count: 0 });
  });

  it('offers the sandbox card form, with the test cards, on the page of a card currency', async () => {
    const { id } = await createSession(merchant(), TICKETS('USD'));
    const { baseUrl } = await getStack();
    const html = await (await fetch(`${baseUrl}/pay/${id}`)).text();
    expect(html).to.include('data-card="sandbox"');
    expect(html).to.include('4242 4242 4242 4242');
    expect(html).to.include('$25.00');
    expect(html).to.not.include('name="phone"');
  });
});
