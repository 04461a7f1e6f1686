/**
 * The checkout session id as the page's only capability (docs/checkout.md#api, docs/security.md#checkout-pages) over
 * real HTTP against the real stack: redirects are https in live (sandbox also http to localhost and 127.0.0.1), 400
 * naming the field with nothing stored; a session id carries at least 128 bits nobody can compute, an
 * `Idempotency-Key`'s included; and from a session id nothing of the merchant's other data is reachable: the page's
 * read, an attempt's answer and the live status carry only what the page shows.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { deriveId } from '../../src/lib/ids';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { insertLiveKey } from '../helpers/live-key';
import { openSse } from '../helpers/sse';
import { getStack } from '../helpers/stack';

const SESSION = {
  amount: 3_000,
  currency: 'RWF',
  description: 'A basket',
  success_url: 'https://shop.example/paid',
  customer_phone: '+250788000001',
  metadata: { order: 'secret-order-7731' },
};

async function sessionCount(): Promise<number> {
  const { db } = await getStack();
  return Number(((await db('checkout_sessions').count('* as n')) as { n: string }[])[0]?.n);
}

const create = (key: string, body: object, idempotencyKey = `sec-${Math.random()}`) =>
  call('/v1/checkout/sessions', { key, body, headers: { 'idempotency-key': idempotencyKey } });

describe('checkout pages: the session id is the only capability (docs/security.md#checkout-pages)', function () {
  this.timeout(120_000);
  let dev: TestDeveloper;
  before(async () => {
    dev = await registerDeveloper();
  });

  it('takes https redirects in live and, in sandbox, http only to localhost or 127.0.0.1: else 400 naming the field, nothing stored', async () => {
    const live = await insertLiveKey(dev.merchantId);
    const before = await sessionCount();
    const refused: [string, object, string][] = [
      [live, { success_url: 'http://shop.example/paid' }, 'success_url'],
      [live, { success_url: 'http://localhost:3000/paid' }, 'success_url'],
      [live, { cancel_url: 'http://127.0.0.1/cancel' }, 'cancel_url'],
      [dev.key, { success_url: 'http://shop.example/paid' }, 'success_url'],
      [dev.key, { cancel_url: 'http://192.168.1.10/cancel' }, 'cancel_url'],
      [dev.key, { success_url: 'http://localhost.evil.example/paid' }, 'success_url'],
      [dev.key, { success_url: 'https://user:pass@shop.example/paid' }, 'success_url'],
      [dev.key, { success_url: 'javascript:alert(1)' }, 'success_url'],
      [dev.key, { success_url: 'ftp://shop.example/paid' }, 'success_url'],
    ];
    for (const [key, change, field] of refused) {
      const answer = await create(key, { ...SESSION, ...change });
      expect(answer.status, `${JSON.stringify(change)}: ${JSON.stringify(answer.body)}`).to.equal(400);
      expect(answer.body.error.code).to.equal('validation_error');
      expect(answer.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal([field]);
    }
    expect(await sessionCount()).to.equal(before);

    for (const change of [
      { success_url: 'http://localhost:3000/paid', cancel_url: 'http://127.0.0.1:8080/cancel' },
      { success_url: 'https://shop.example/paid', cancel_url: 'https://shop.example/cancel' },
    ]) {
      const answer = await create(dev.key, { ...SESSION, ...change });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
      expect(answer.body.data).to.include(change);
    }
  });

  it('gives a session id at least 128 bits nobody can compute, even from the merchant id, Idempotency-Key and body', async () => {
    const idempotencyKey = 'order-1042';
    const answer = await create(dev.key, SESSION, idempotencyKey);
    expect(answer.status).to.equal(201);
    const id = answer.body.data.id as string;
    // 24 base62 characters: log2(62) × 24 ≈ 142.9 bits.
    expect(id).to.match(/^cs_[0-9A-Za-z]{24}$/);
    expect(Math.log2(62) * 24).to.be.greaterThan(128);
    // What anyone could compute from what the merchant sent (its id, its key, its body) is not the id.
    const hash = createHash('sha256')
      .update(`POST /v1/checkout/sessions\n${JSON.stringify(SESSION)}`)
      .digest('hex');
    const guess = deriveId('cs_', `${dev.merchantId}:sandbox:checkout:${idempotencyKey}\n${hash}`);
    expect(id).to.not.equal(guess);
    // The retry still finds its session.
    expect((await create(dev.key, SESSION, idempotencyKey)).body.data.id).to.equal(id);
  });

  it("reaches nothing of the merchant's other data from a session id: the page's read, an attempt's answer, the live status", async () => {
    const created = await create(dev.key, SESSION);
    const session = created.body.data;
    // Another of the merchant's payments, which nothing of the page may name.
    const other = await call('/v1/payments', {
      key: dev.key,
      body: { amount: 900, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788111222' },
      headers: { 'idempotency-key': `other-${Math.random()}` },
    });
    expect(other.status, JSON.stringify(other.body)).to.equal(201);

    const page = await call(`/v1/checkout/sessions/${session.id}/public`);
    expect(Object.keys(page.body.data).sort()).to.deep.equal(
      [
        'id',
        'object',
        'status',
        'amount',
        'currency',
        'description',
        'merchant_name',
        'payment_methods',
        'attempt_in_progress',
        'attempts_left',
        'expires_at',
        'success_url',
        'cancel_url',
        // A payment link's terms: the range a payer may choose in, the fields it collects, its message after paying.
        'amount_range',
        'collect',
        'completion_message',
      ].sort(),
    );

    const first = await call(`/v1/checkout/sessions/${session.id}/attempts`, {
      body: { payment_method: 'mobile_money', phone_number: '0788 000 002' },
    });
    expect(first.status).to.equal(201);
    expect(Object.keys(first.body.data).sort()).to.deep.equal(['next_action', 'operator', 'payment', 'status']);
    await waitForPayment(dev.key, first.body.data.payment, (p) => p.status === 'failed');

    const stream = await openSse(`${(await getStack()).baseUrl}/v1/checkout/sessions/${session.id}/events`);
    await stream.until(() => stream.messages.some((m) => m.data.includes('failed')), 'the first attempt failed');
    stream.close();
    const later = await call(`/v1/checkout/sessions/${session.id}/public`);

    const seen = JSON.stringify([page.body, first.body, later.body, stream.messages, stream.comments]);
    for (const secret of [
      dev.merchantId,
      'secret-order-7731',
      '250788000001', // the merchant's customer_phone
      '250788111222', // another payment's number
      other.body.data.id,
      dev.email,
    ])
      expect(seen, secret).to.not.include(secret);
    for (const message of stream.messages)
      expect(Object.keys(JSON.parse(message.data) as object).sort()).to.deep.equal(['attempt', 'status']);
    // The key's own routes stay behind the key.
    expect((await call(`/v1/checkout/sessions/${session.id}`)).status).to.equal(401);
    expect((await call(`/v1/payments/${first.body.data.payment}`)).status).to.equal(401);
  });
});
