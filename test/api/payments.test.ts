/**
 * The generic payment family over real HTTP against the real app, PostgreSQL, Temporal dev server
 * and worker (docs/payments.md#creating-a-payment). Every bad input answers the envelope
 * with the right status and code and writes nothing.
 */
import { expect } from 'chai';
import { listEventsForObject } from '../../src/db/payments';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';

const ORDER_42 = {
  amount: 1500,
  currency: 'RWF',
  payment_method: 'mobile_money',
  phone_number: '+250788000001',
  description: 'Order 42',
};

async function paymentCount(merchantId: string): Promise<number> {
  const { db } = await getStack();
  const [{ count }] = await db('payments').where({ merchant_id: merchantId }).count<{ count: number }[]>('id as count');
  return Number(count);
}

describe('POST /v1/payments and GET /v1/payments/{id}', function () {
  this.timeout(60_000);
  let developer: TestDeveloper;

  before(async () => {
    developer = await registerDeveloper();
  });

  it('creates a pending payment that completes within seconds (0001), with created and completed events', async () => {
    const created = await call('/v1/payments', { key: developer.key, body: ORDER_42 });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ success: true });
    const payment = created.body.data;
    expect(payment.id).to.match(/^pay_[0-9A-Za-z]{24}$/);
    expect(payment).to.include({
      status: 'pending',
      amount: 1500,
      currency: 'RWF',
      payment_method: 'mobile_money',
      provider: 'momo',
      phone_number: '+250788000001',
      description: 'Order 42',
      environment: 'sandbox',
    });
    expect(Date.parse(payment.expires_at) - Date.parse(payment.created_at)).to.equal(600_000);

    const settled = await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed', 10_000);
    expect(settled.status).to.equal('completed');
    const { db } = await getStack();
    const events = await listEventsForObject(db, payment.id);
    expect(events.map((e) => e.event)).to.deep.equal(['payment.created', 'payment.completed']);
    expect(events[1]?.id).to.match(/^evt_/);
    expect((events[1]?.data as { status: string }).status).to.equal('completed');
  });

  it('fails a number ending 0002 with failure_code declined', async () => {
    const created = await call('/v1/payments', {
      key: developer.key,
      body: { ...ORDER_42, phone_number: '+250788000002' },
    });
    const settled = await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'failed', 10_000);
    expect(settled).to.include({ status: 'failed', failure_code: 'declined' });
  });

  it('keeps any other number pending, prompt shown, until the simulated approval (3 s, docs/payments.md#sandbox-scenarios), then completes it', async () => {
    const created = await call('/v1/payments', {
      key: developer.key,
      body: { ...ORDER_42, phone_number: '+250788123456' },
    });
    expect(created.body.data.status).to.equal('pending');
    expect(created.body.data.next_action?.type).to.equal('mobile_money_approval');
    // The customer has not acted before the approval: the first status after pending is the settled one, never
    // processing.
    const settled = await waitForPayment(developer.key, created.body.data.id, (p) => p.status !== 'pending', 15_000);
    expect(settled).to.include({ status: 'completed', next_action: null });
    expect(Date.parse(settled.updated_at) - Date.parse(settled.created_at)).to.be.at.least(3000);
  });

  it('serves operator B by prefix (Rwanda 072) and by provider, and Kenya in KES', async () => {
    const byPrefix = await call('/v1/payments', {
      key: developer.key,
      body: { ...ORDER_42, phone_number: '+250728000001' },
    });
    expect(byPrefix.body.data.provider).to.equal('mobile_money_b');
    const byName = await call('/v1/payments', {
      key: developer.key,
      body: { ...ORDER_42, provider: 'mobile_money_b' },
    });
    expect(byName.body.data.provider).to.equal('mobile_money_b');
    const kenya = await call('/v1/payments', {
      key: developer.key,
      body: { ...ORDER_42, currency: 'KES', phone_number: '+254712000001' },
    });
    expect(kenya.status).to.equal(201);
    expect(kenya.body.data.provider).to.equal('mpesa');
    const airtelKenya = await call('/v1/payments', {
      key: developer.key,
      body: { ...ORDER_42, currency: 'KES', phone_number: '0733 000 001' },
    });
    expect(airtelKenya.status, JSON.stringify(airtelKenya.body)).to.equal(201);
    expect(airtelKenya.body.data).to.include({ provider: 'mobile_money_b', phone_number: '+254733000001' });
    const settled = await waitForPayment(developer.key, kenya.body.data.id, (p) => p.status === 'completed', 10_000);
    expect(settled.status).to.equal('completed');
  });

  it('keeps the search attributes current (docs/payments.md#workflow), so executions can be filtered in the Temporal UI', async () => {
    const created = await call('/v1/payments', { key: developer.key, body: ORDER_42 });
    await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed', 10_000);
    const { client } = await getStack();
    const query = `WorkflowId = "payment:${created.body.data.id}" AND MerchantId = "${developer.merchantId}" AND Environment = "sandbox" AND PaymentMethod = "mobile_money" AND PaymentStatus = "completed"`;
    let found = 0;
    for (let attempt = 0; attempt < 50 && found === 0; attempt += 1) {
      found = 0;
      for await (const execution of client.workflow.list({ query })) if (execution.workflowId) found += 1;
      if (found === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found).to.equal(1);
  });

  it('answers 404, never 500, for a path parameter with a NUL, a control character or an invalid byte', async () => {
    for (const path of [
      '/v1/payments/%00',
      '/v1/payments/pay_%01x',
      '/v1/payments/%ff',
      '/v1/developer/transactions/%00',
      '/v1/developer/events/%00',
      '/v1/developer/webhooks/%00',
      '/v1/payments/%00/refund',
    ]) {
      const response = await call(path, { key: developer.key, method: path.endsWith('refund') ? 'POST' : 'GET' });
      expect(response.status, path).to.equal(404);
      expect(response.body.error.code, path).to.equal('not_found');
    }
  });

  it("answers 404 for another merchant's payment id and for an unknown id (docs/api.md#merchants-and-environments)", async () => {
    const created = await call('/v1/payments', { key: developer.key, body: ORDER_42 });
    const other = await registerDeveloper();
    const foreign = await call(`/v1/payments/${created.body.data.id}`, { key: other.key });
    expect(foreign.status).to.equal(404);
    expect(foreign.body).to.deep.equal({
      success: false,
      error: { code: 'not_found', message: `no payment with id ${created.body.data.id}` },
    });
    const unknown = await call('/v1/payments/pay_000000000000000000000000', { key: developer.key });
    expect(unknown.status).to.equal(404);
  });

  describe('bad input changes nothing', () => {
    let fresh: TestDeveloper;
    before(async () => {
      fresh = await registerDeveloper();
    });
    afterEach(async () => {
      expect(await paymentCount(fresh.merchantId)).to.equal(0);
    });

    async function expectError(
      options: Parameters<typeof call>[1],
      status: number,
      code: string,
      message?: string | RegExp,
    ) {
      const response = await call('/v1/payments', { method: 'POST', ...options });
      expect(response.status, JSON.stringify(response.body)).to.equal(status);
      expect(response.body.success).to.equal(false);
      expect(response.body.error.code).to.equal(code);
      if (typeof message === 'string') expect(response.body.error.message).to.equal(message);
      else if (message) expect(response.body.error.message).to.match(message);
      expect(JSON.stringify(response.body)).not.to.match(/at .*\.ts:\d+|stack|SELECT|INSERT/i);
      return response;
    }

    it('missing Authorization → 401 unauthorized', async () => {
      await expectError({ body: ORDER_42 }, 401, 'unauthorized');
    });

    it('malformed Authorization → 401 unauthorized', async () => {
      for (const header of ['Basic abc', 'Bearer', `Bearer ${'a'} b`, `bearer-${'x'}`]) {
        await expectError({ body: ORDER_42, headers: { authorization: header } }, 401, 'unauthorized');
      }
    });

    it('unknown key → 401 invalid_api_key', async () => {
      await expectError({ body: ORDER_42, key: `sk_sandbox_${'A'.repeat(32)}` }, 401, 'invalid_api_key');
      await expectError({ body: ORDER_42, key: 'not-a-key' }, 401, 'invalid_api_key');
    });

    it('malformed JSON → 400 invalid_request', async () => {
      await expectError(
        { key: fresh.key, rawBody: '{"amount": 15', headers: { 'content-type': 'application/json' } },
        400,
        'invalid_request',
      );
    });

    it('a body that is not JSON → 400 invalid_request', async () => {
      await expectError(
        { key: fresh.key, rawBody: 'amount=1500', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        400,
        'invalid_request',
      );
    });

    it('missing amount → 400 validation_error "amount is required", with details', async () => {
      const { amount: _amount, ...rest } = ORDER_42;
      const response = await expectError({ key: fresh.key, body: rest }, 400, 'validation_error', 'amount is required');
      expect(response.body.error.details).to.deep.equal([{ field: 'amount', message: 'amount is required' }]);
    });

    it('amount of the wrong type, zero, negative, fractional or above 10^12 → 400 validation_error', async () => {
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, amount: '1500' } },
        400,
        'validation_error',
        'amount must be a number',
      );
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, amount: null } },
        400,
        'validation_error',
        /amount must be/,
      );
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, amount: 0 } },
        400,
        'validation_error',
        'amount must be at least 1',
      );
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, amount: -100 } },
        400,
        'validation_error',
        'amount must be at least 1',
      );
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, amount: 15.5 } },
        400,
        'validation_error',
        'amount must be an integer',
      );
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, amount: 1_000_000_000_001 } },
        400,
        'validation_error',
        'amount must be at most 1000000000000',
      );
    });

    it('a KES amount with cents for M-Pesa → 400 validation_error naming amount, nothing stored (docs/limits.md#amounts)', async () => {
      const response = await expectError(
        { key: fresh.key, body: { ...ORDER_42, amount: 15_050, currency: 'KES', phone_number: '0712 000 001' } },
        400,
        'validation_error',
        /whole number of KES for mpesa/,
      );
      expect(response.body.error.details[0].field).to.equal('amount');
    });

    it('unknown payment_method → 400 validation_error naming it', async () => {
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, payment_method: 'cash' } },
        400,
        'validation_error',
        /^payment_method must be one of: mobile_money, bank_transfer, card$/,
      );
    });

    it('a currency the method does not take (KES on operator A in Rwanda) → 400 naming currency', async () => {
      const response = await expectError(
        { key: fresh.key, body: { ...ORDER_42, currency: 'KES' } },
        400,
        'validation_error',
        /KES/,
      );
      expect(response.body.error.details[0].field).to.equal('currency');
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, currency: 'XYZ' } },
        400,
        'validation_error',
        /^currency must be one of/,
      );
    });

    it('a phone number that cannot be read, or of a country the method does not serve → 400 naming phone_number', async () => {
      for (const phone of ['call me', '07880', '+25078800000199999', '0788 000 001 ext 5']) {
        const response = await expectError(
          { key: fresh.key, body: { ...ORDER_42, phone_number: phone } },
          400,
          'validation_error',
          /phone_number/,
        );
        expect(response.body.error.details[0].field).to.equal('phone_number');
      }
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, phone_number: '+27821230001' } },
        400,
        'validation_error',
        /not available in ZA/,
      );
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, currency: 'KES', phone_number: '0712 000 001', operator: 'momo' } },
        400,
        'validation_error',
        /momo does not serve KE/,
      );
    });

    it('takes the number as people write it, and stores it in E.164 (docs/payments.md#methods)', async () => {
      for (const phone of ['0788 000 001', '+250 788-000-001', '250788000001']) {
        const response = await call('/v1/payments', { key: developer.key, body: { ...ORDER_42, phone_number: phone } });
        expect(response.status, JSON.stringify(response.body)).to.equal(201);
        expect(response.body.data).to.include({ provider: 'momo', phone_number: '+250788000001' });
      }
    });

    it('an unknown field → 400 validation_error', async () => {
      await expectError(
        { key: fresh.key, body: { ...ORDER_42, amout: 1 } },
        400,
        'validation_error',
        /unknown field: amout/,
      );
    });
  });
});
