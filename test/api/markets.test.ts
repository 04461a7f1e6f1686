/**
 * Every new market of the markets table (docs/providers.md#markets) over HTTP against the real stack, in sandbox: a
 * payment from the market's sandbox number through the API, refunded whole; a payment through the hosted page's
 * checkout session; the money settled and paid out to the same wallet in the market's currency; a payout to that
 * wallet in another market's currency refused naming `currency` with nothing reserved. The ledger invariants
 * (docs/ledger.md#invariants) hold for every merchant after.
 */
import { expect } from 'chai';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { MARKETS, type MarketOperator } from '../../src/domain/markets';
import { CURRENCY_EXPONENTS, percentageOfMinor } from '../../src/domain/money';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { waitForPayout } from '../helpers/payouts';
import { getStack } from '../helpers/stack';

/** The markets the service started with; every other row is new. */
const FIRST_MARKETS = ['RW', 'UG', 'GH', 'KE', 'LR'];

const NEW_ROWS = MARKETS.filter((market) => !FIRST_MARKETS.includes(market.country)).flatMap((market) =>
  market.operators.map((row) => ({ country: market.country, row })),
);

/** What one market's walk-through left: the merchant, to check its books after. */
async function walkThrough(country: string, row: MarketOperator): Promise<string> {
  const where = `${row.provider} in ${country}`;
  const developer = await registerDeveloper();
  const key = developer.key;
  const phone = parsePhoneNumberFromString(row.sandboxNumber, country as never)!.number;
  const unit = 10 ** CURRENCY_EXPONENTS[row.currency];
  // Within every market's limits (Airtel Tanzania takes 2,500 shillings at least).
  const amount = 3_000 * unit;

  // Through the API: collected from the market's operator, then refunded whole.
  const created = await call('/v1/payments', {
    key,
    body: { amount, currency: row.currency, payment_method: 'mobile_money', phone_number: phone },
  });
  expect(created.status, `${where}: ${JSON.stringify(created.body)}`).to.equal(201);
  expect(created.body.data, where).to.include({ provider: row.provider, currency: row.currency, amount });
  const paid = await waitForPayment(key, created.body.data.id, (p) => p.status === 'completed', 60_000);
  expect(paid.status, where).to.equal('completed');
  const refund = await call(`/v1/payments/${paid.id}/refund`, { key, method: 'POST' });
  expect(refund.status, `${where}: ${JSON.stringify(refund.body)}`).to.equal(201);
  const refunded = await waitForPayment(key, paid.id, (p) => p.status === 'refunded', 60_000);
  expect(refunded.status, where).to.equal('refunded');

  // Through the hosted page: the payer's number on the session's page.
  const session = await call('/v1/checkout/sessions', {
    key,
    // The payer's number picks the market of a currency held in several countries (XOF, XAF).
    body: {
      amount,
      currency: row.currency,
      description: `Order in ${country}`,
      success_url: 'https://shop.example/paid',
      customer_phone: phone,
    },
    headers: { 'idempotency-key': `session-${country}-${row.provider}` },
  });
  expect(session.status, `${where}: ${JSON.stringify(session.body)}`).to.equal(201);
  // The payer types the number as written at home; the session's market reads it.
  const national = parsePhoneNumberFromString(phone)!.formatNational();
  const attempt = await call(`/v1/checkout/sessions/${session.body.data.id}/attempts`, {
    body: { payment_method: 'mobile_money', phone_number: national },
  });
  expect(attempt.status, `${where}: ${JSON.stringify(attempt.body)}`).to.equal(201);
  expect(attempt.body.data, where).to.include({ operator: row.provider });
  const onPage = await waitForPayment(key, attempt.body.data.payment, (p) => p.status === 'completed', 60_000);
  expect(onPage.status, where).to.equal('completed');

  // Settled, then paid out to the same wallet in the market's currency.
  const settled = await call('/v1/sandbox/balance/settle', { key, method: 'POST' });
  const available = (settled.body.data.available as { amount: number; currency: string }[]).find(
    (balance) => balance.currency === row.currency,
  );
  // Two payments collected, their fees kept; the first refunded whole.
  // The market's default fee (docs/providers.md#market-terms).
  const fee = percentageOfMinor(amount, row.terms.feeBasisPoints);
  expect(available?.amount, where).to.equal(amount - 2 * fee);
  const destination = await call('/v1/payout_destinations', {
    key,
    body: { type: 'mobile_money', phone_number: phone },
  });
  expect(destination.status, `${where}: ${JSON.stringify(destination.body)}`).to.equal(201);
  expect(destination.body.data, where).to.include({ provider: row.provider });
  const other = row.currency === 'XOF' ? 'XAF' : 'XOF';
  const refused = await call('/v1/payouts', {
    key,
    body: { amount: 1_000, currency: other, destination: destination.body.data.id },
  });
  expect(refused.status, where).to.equal(400);
  expect(refused.body.error.details[0].field, where).to.equal('currency');
  const payout = await call('/v1/payouts', {
    key,
    body: { amount: 1_000 * unit, currency: row.currency, destination: destination.body.data.id },
  });
  expect(payout.status, `${where}: ${JSON.stringify(payout.body)}`).to.equal(201);
  const done = await waitForPayout(key, payout.body.data.id, (p) => p.status === 'paid');
  expect(done, where).to.include({ currency: row.currency, amount: 1_000 * unit });
  return developer.merchantId;
}

/** A market of a provider that keeps its own prefixes (Orange Money, Wave, Vodacom M-Pesa), and what it offers. */
interface ProviderMarket {
  provider: 'orange' | 'wave' | 'vodacom';
  country: string;
  currency: 'XOF' | 'XAF' | 'TZS';
  /** A sandbox number of the market that completes (ending `0001`). */
  phone: string;
  /** Named in `operator`: Wave claims no prefixes, so a payment reaches it only by name. */
  byName: boolean;
  refunds: boolean;
  paysOut: boolean;
}

/** The new providers' markets (docs/providers.md): Orange in SN, CI, CM; Wave in SN, CI; Vodacom in TZ. */
const PROVIDER_MARKETS: readonly ProviderMarket[] = [
  {
    provider: 'orange',
    country: 'SN',
    currency: 'XOF',
    phone: '+221771000001',
    byName: false,
    refunds: false,
    paysOut: false,
  },
  {
    provider: 'orange',
    country: 'CI',
    currency: 'XOF',
    phone: '+2250701000001',
    byName: false,
    refunds: false,
    paysOut: false,
  },
  {
    provider: 'orange',
    country: 'CM',
    currency: 'XAF',
    phone: '+237690000001',
    byName: false,
    refunds: false,
    paysOut: false,
  },
  {
    provider: 'wave',
    country: 'SN',
    currency: 'XOF',
    phone: '+221760000001',
    byName: true,
    refunds: true,
    paysOut: true,
  },
  {
    provider: 'wave',
    country: 'CI',
    currency: 'XOF',
    phone: '+2250101000001',
    byName: true,
    refunds: true,
    paysOut: true,
  },
  {
    provider: 'vodacom',
    country: 'TZ',
    currency: 'TZS',
    phone: '+255754000001',
    byName: false,
    refunds: true,
    paysOut: true,
  },
];

/**
 * One new provider's market in sandbox: a payment through the API, refunded whole where the provider refunds (409 and
 * nothing changed where it does not), a payment on the hosted page, and a payout to the same wallet where it pays out.
 * @returns the merchant, to check its books after
 */
async function walkProviderMarket(market: ProviderMarket): Promise<string> {
  const where = `${market.provider} in ${market.country}`;
  const developer = await registerDeveloper();
  const key = developer.key;
  const amount = 1_500 * 10 ** CURRENCY_EXPONENTS[market.currency];
  const operator = market.byName ? { operator: market.provider } : {};
  const created = await call('/v1/payments', {
    key,
    body: {
      amount,
      currency: market.currency,
      payment_method: 'mobile_money',
      phone_number: market.phone,
      ...operator,
    },
  });
  expect(created.status, `${where}: ${JSON.stringify(created.body)}`).to.equal(201);
  expect(created.body.data, where).to.include({ provider: market.provider, currency: market.currency, amount });
  const paid = await waitForPayment(key, created.body.data.id, (p) => p.status === 'completed', 60_000);
  expect(paid.status, where).to.equal('completed');
  // The payment says beforehand what its provider's live adapter takes (docs/payments.md#refundable-and-cancellable):
  // none of these refunds in part, and Orange's Web Payment API refunds nothing.
  const unrefundable = `${market.provider} payments cannot be refunded through the API`;
  expect(paid.refundable, where).to.deep.equal(
    market.refunds
      ? { allowed: true, partial: false, reason: null }
      : { allowed: false, partial: false, reason: unrefundable },
  );
  const refund = await call(`/v1/payments/${paid.id}/refund`, { key, method: 'POST' });
  if (market.refunds) {
    expect(refund.status, `${where}: ${JSON.stringify(refund.body)}`).to.equal(201);
    expect((await waitForPayment(key, paid.id, (p) => p.status === 'refunded', 60_000)).status, where).to.equal(
      'refunded',
    );
  } else {
    expect(refund.status, `${where}: ${JSON.stringify(refund.body)}`).to.equal(409);
    expect(refund.body.error, where).to.include({ code: 'payment_not_refundable', message: unrefundable });
    expect((await call(`/v1/payments/${paid.id}`, { key })).body.data.status, where).to.equal('completed');
    const { db } = await getStack();
    expect(await db('refunds').where({ payment_id: paid.id }).pluck('id'), `${where}: nothing recorded`).to.deep.equal(
      [],
    );
  }

  const session = await call('/v1/checkout/sessions', {
    key,
    body: {
      amount,
      currency: market.currency,
      description: `Order in ${market.country}`,
      success_url: 'https://shop.example/paid',
      customer_phone: market.phone,
    },
  });
  expect(session.status, `${where}: ${JSON.stringify(session.body)}`).to.equal(201);
  const attempt = await call(`/v1/checkout/sessions/${session.body.data.id}/attempts`, {
    body: {
      payment_method: 'mobile_money',
      phone_number: parsePhoneNumberFromString(market.phone)!.formatNational(),
      ...operator,
    },
  });
  expect(attempt.status, `${where}: ${JSON.stringify(attempt.body)}`).to.equal(201);
  expect(attempt.body.data, where).to.include({ operator: market.provider });
  const onPage = await waitForPayment(key, attempt.body.data.payment, (p) => p.status === 'completed', 60_000);
  expect(onPage.status, where).to.equal('completed');

  if (market.paysOut) {
    await call('/v1/sandbox/balance/settle', { key, method: 'POST' });
    const destination = await call('/v1/payout_destinations', {
      key,
      body: { type: 'mobile_money', phone_number: market.phone, ...operator },
    });
    expect(destination.status, `${where}: ${JSON.stringify(destination.body)}`).to.equal(201);
    expect(destination.body.data, where).to.include({ provider: market.provider });
    // Less than the hosted page's payment less its fee, all the balance holds after the refund.
    const payoutAmount = amount / 2;
    const payout = await call('/v1/payouts', {
      key,
      body: { amount: payoutAmount, currency: market.currency, destination: destination.body.data.id },
    });
    expect(payout.status, `${where}: ${JSON.stringify(payout.body)}`).to.equal(201);
    const done = await waitForPayout(key, payout.body.data.id, (p) => p.status === 'paid');
    expect(done, where).to.include({ currency: market.currency, amount: payoutAmount });
  }
  return developer.merchantId;
}

describe('every new market takes a payment, a refund and a payout in sandbox (docs/providers.md#markets)', function () {
  this.timeout(600_000);

  it("refuses a session in a currency several countries hold without the payer's number, and a link in one, naming the field", async () => {
    const developer = await registerDeveloper();
    const session = { amount: 1_500, currency: 'XOF', description: 'Order', success_url: 'https://shop.example/paid' };
    const noPhone = await call('/v1/checkout/sessions', { key: developer.key, body: session });
    expect(noPhone.status).to.equal(400);
    expect(noPhone.body.error.details[0]).to.deep.equal({
      field: 'customer_phone',
      message:
        "customer_phone is required for a session in XOF, which the wallets of SN, CI, BJ, NE hold: its country is the page's",
    });
    const cameroonian = await call('/v1/checkout/sessions', {
      key: developer.key,
      body: { ...session, customer_phone: '+237677000001' },
    });
    expect(cameroonian.status).to.equal(400);
    expect(cameroonian.body.error.details[0]).to.deep.equal({
      field: 'customer_phone',
      message: 'customer_phone is a number of CM, whose wallets hold no XOF',
    });
    const link = await call('/v1/payment_links', {
      key: developer.key,
      body: { amount: 1_500, currency: 'XAF', description: 'Order' },
    });
    expect(link.status).to.equal(400);
    expect(link.body.error.details[0]).to.deep.equal({
      field: 'currency',
      message: 'payment links do not take XAF yet: the wallets of CM, CG, TD, GA hold it, and a link names no country',
    });
    // A session in XOF for an Ivorian payer reads the number as written in Côte d'Ivoire, and refuses a Beninese one.
    const ivorian = await call('/v1/checkout/sessions', {
      key: developer.key,
      body: { ...session, customer_phone: '+2250555000001' },
    });
    expect(ivorian.status, JSON.stringify(ivorian.body)).to.equal(201);
    const beninese = await call(`/v1/checkout/sessions/${ivorian.body.data.id}/attempts`, {
      body: { payment_method: 'mobile_money', phone_number: '+2290197000001' },
    });
    expect(beninese.status).to.equal(400);
    expect(beninese.body.error.details[0]).to.deep.equal({
      field: 'phone_number',
      message: 'phone_number is a number of BJ, not of CI',
    });
    const { db } = await getStack();
    expect(await db('payments').where({ checkout_session: ivorian.body.data.id })).to.have.length(0);
  });

  it("refuses a payment outside its market's limits naming amount on every way in, and stores nothing", async () => {
    const developer = await registerDeveloper();
    const key = developer.key;
    const { db } = await getStack();
    // Airtel Zambia takes 1 … 10,000 kwacha; MTN Rwanda keeps the service's limits.
    const above = await call('/v1/payments', {
      key,
      body: { amount: 1_000_001, currency: 'ZMW', payment_method: 'mobile_money', phone_number: '+260977000001' },
    });
    expect(above.status, JSON.stringify(above.body)).to.equal(400);
    expect(above.body.error.details[0]).to.deep.equal({
      field: 'amount',
      message: 'amount must be at most 1000000: mobile_money_b takes 1.00 … 10000.00 ZMW in ZM',
    });
    const scoped = await call(`/v1/api/merchants/${developer.merchantId}/payments`, {
      headers: { 'x-api-key': key },
      body: {
        amount: '2000.00',
        currency: 'TZS',
        payment_method: 'mobile_money_b',
        payment_method_data: { phone_number: '+255683000001' },
      },
    });
    expect(scoped.status, JSON.stringify(scoped.body)).to.equal(400);
    // The merchant-scoped family answers `{error: <message>}`.
    expect(scoped.body.error).to.include('amount must be at least "2500.00": mobile_money_b takes');
    const session = await call('/v1/checkout/sessions', {
      key,
      body: {
        amount: 200_000,
        currency: 'TZS',
        description: 'Order',
        success_url: 'https://shop.example/paid',
        customer_phone: '+255683000001',
      },
    });
    expect(session.status, JSON.stringify(session.body)).to.equal(201);
    const attempt = await call(`/v1/checkout/sessions/${session.body.data.id}/attempts`, {
      body: { payment_method: 'mobile_money', phone_number: '+255683000001' },
    });
    expect(attempt.status, JSON.stringify(attempt.body)).to.equal(400);
    expect(attempt.body.error.details[0]).to.deep.equal({
      field: 'amount',
      message: 'amount must be at least 250000: mobile_money_b takes 2500.00 … 5000000.00 TZS in TZ',
    });
    expect(await db('payments').where({ merchant_id: developer.merchantId })).to.have.length(0);
    const rwanda = await call('/v1/payments', {
      key,
      body: { amount: 1, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    expect(rwanda.status, JSON.stringify(rwanda.body)).to.equal(201);
  });

  it("keeps an operator's outage in one new market out of its other markets: status and the hosted page's refusal", async () => {
    const developer = await registerDeveloper();
    const key = developer.key;
    const down = await call('/v1/sandbox/providers/momo/status', {
      key,
      body: { country: 'CI', operation: 'collection', status: 'down', reason: 'MTN CI outage drill' },
    });
    expect(down.status, JSON.stringify(down.body)).to.equal(200);
    const availability = await call('/v1/availability', { key });
    const statusOf = (country: string) =>
      (
        availability.body.data.availability as {
          provider: string;
          country: string;
          operation: string;
          status: string;
        }[]
      ).find((row) => row.provider === 'momo' && row.country === country && row.operation === 'collection')?.status;
    expect(statusOf('CI')).to.equal('down');
    for (const country of ['CM', 'BJ', 'ZM']) expect(statusOf(country), country).to.equal('operational');
    /** A session in `currency` for `phone`, and an attempt from that number on its page. */
    const attemptFrom = async (currency: string, phone: string) => {
      const session = await call('/v1/checkout/sessions', {
        key,
        body: {
          amount: 1_500,
          currency,
          description: 'Order',
          success_url: 'https://shop.example/paid',
          customer_phone: phone,
        },
      });
      expect(session.status, JSON.stringify(session.body)).to.equal(201);
      return call(`/v1/checkout/sessions/${session.body.data.id}/attempts`, {
        body: { payment_method: 'mobile_money', phone_number: phone },
      });
    };
    const ivorian = await attemptFrom('XOF', '+2250555000001');
    expect(ivorian.status).to.equal(503);
    expect(ivorian.body.error.code).to.equal('provider_unavailable');
    // The same operator and currency in Benin, and MTN in Cameroon, still take payments.
    for (const [currency, phone] of [
      ['XOF', '+2290197000001'],
      ['XAF', '+237677000001'],
    ] as const) {
      const attempt = await attemptFrom(currency, phone);
      expect(attempt.status, `${phone}: ${JSON.stringify(attempt.body)}`).to.equal(201);
      expect(attempt.body.data).to.include({ operator: 'momo' });
    }
  });

  it('walks each new market and operator through the API, the hosted page and a payout, with balanced books', async () => {
    expect(NEW_ROWS.length).to.be.above(15);
    const merchants: string[] = [];
    // A few at a time: the stack is shared with other files' tests.
    for (let start = 0; start < NEW_ROWS.length; start += 6) {
      const batch = NEW_ROWS.slice(start, start + 6);
      merchants.push(...(await Promise.all(batch.map(({ country, row }) => walkThrough(country, row)))));
    }
    const { db } = await getStack();
    expect(await ledgerProblems(db, { merchantIds: merchants })).to.deep.equal([]);
  });
  it("walks the new providers' markets (Orange Money, Wave, Vodacom M-Pesa) through the API and the hosted page, with a refund and a payout where each offers them", async () => {
    const merchants = await Promise.all(PROVIDER_MARKETS.map(walkProviderMarket));
    const { db } = await getStack();
    expect(await ledgerProblems(db, { merchantIds: merchants })).to.deep.equal([]);
  });
});
