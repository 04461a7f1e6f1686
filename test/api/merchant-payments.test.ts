/**
 * The merchant-scoped family over real HTTP (docs/payments.md#merchant-scoped): X-API-Key, decimal-string
 * amounts, `payment_method_data`, the object without envelope, errors as `{error}`, 401 and 403.
 */
import { expect } from 'chai';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';

describe('POST/GET /v1/api/merchants/{merchant_id}/payments', function () {
  this.timeout(60_000);
  let developer: TestDeveloper;
  let path: string;
  before(async () => {
    developer = await registerDeveloper();
    path = `/v1/api/merchants/${developer.merchantId}/payments`;
  });

  const post = (body: unknown, key = developer.key, at = path) => call(at, { body, headers: { 'x-api-key': key } });
  const get = (id: string) => call(`${path}/${id}`, { headers: { 'x-api-key': developer.key } });

  async function until(id: string, status: string): Promise<any> {
    for (let i = 0; i < 50; i += 1) {
      const response = await get(id);
      if (response.body.status === status) return response.body;
      await new Promise((r) => setTimeout(r, 200));
    }
    return (await get(id)).body;
  }

  it('creates a card gateway payment: 200, the object without envelope, client_secret and the fee (docs/payments.md#fees)', async () => {
    const response = await post({
      amount: '25.00',
      currency: 'USD',
      payment_method: 'card_gateway',
      description: 'Hoodie',
      payment_method_data: { payment_method_types: ['card'] },
    });
    expect(response.status).to.equal(200);
    expect(response.body).not.to.have.property('success');
    expect(response.body).to.include({
      status: 'pending',
      amount: '25.00',
      currency: 'USD',
      payment_method: 'card_gateway',
    });
    expect(response.body.id).to.match(/^pay_/);
    expect(response.body.client_secret).to.match(/^card_gateway_[0-9A-Za-z_]+_secret_/);
    // 2.9 % of 25.00 = 0.725 → 0.73
    expect(response.body.metadata).to.deep.equal({ fee_amount: '0.73', fee_percentage: '2.90' });
    expect(Date.parse(response.body.created_at)).to.be.closeTo(Date.now(), 60_000);
    const fetched = await get(response.body.id);
    expect(fetched.status).to.equal(200);
    expect(fetched.body.id).to.equal(response.body.id);
  });

  it('takes operator A in Ghana (GHS), operator B in Kenya, operator C in Liberia (LRD) and the wallet (USD), each completing', async () => {
    const cases = [
      {
        amount: '10.50',
        currency: 'GHS',
        payment_method: 'momo',
        payment_method_data: { phone_number: '+233241230001' },
      },
      {
        amount: '100.00',
        currency: 'KES',
        payment_method: 'mobile_money_b',
        payment_method_data: { phone_number: '+254712000001' },
      },
      {
        amount: '5.00',
        currency: 'LRD',
        payment_method: 'mobile_money_c',
        payment_method_data: { phone_number: '+231886000001' },
      },
      {
        amount: '3.00',
        currency: 'USD',
        payment_method: 'wallet',
        payment_method_data: { wallet_id: 'wal_1234560001' },
      },
      {
        amount: '1500.00',
        currency: 'RWF',
        payment_method: 'momo',
        payment_method_data: { phone_number: '+250788000001' },
      },
    ];
    for (const body of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      expect(response.body.amount).to.equal(body.amount);
      expect((await until(response.body.id, 'completed')).status, body.payment_method).to.equal('completed');
    }
  });

  it('rounds the fee half-up in minor units: 1.5 % of GHS 10.50 is 0.1575 → 0.16', async () => {
    const response = await post({
      amount: '10.50',
      currency: 'GHS',
      payment_method: 'momo',
      payment_method_data: { phone_number: '+233241230004' },
    });
    expect(response.body.metadata).to.deep.equal({ fee_amount: '0.16', fee_percentage: '1.50' });
  });

  it('stores 1500.00 RWF as 1500 minor units and writes payment.created (docs/limits.md#amounts, docs/payments.md#events)', async () => {
    const response = await post({
      amount: '1500.00',
      currency: 'RWF',
      payment_method: 'momo',
      payment_method_data: { phone_number: '+250788000003' },
    });
    const { db } = await getStack();
    expect(await db('payments').where({ id: response.body.id }).first('amount', 'family')).to.deep.equal({
      amount: 1500,
      family: 'merchant',
    });
    expect(
      await db('events').where({ object_id: response.body.id, type: 'payment.created' }).count('id as n').first(),
    ).to.deep.equal({ n: 1 });
  });

  describe('errors as {error: <message>}, changing nothing', () => {
    const valid = {
      amount: '10.00',
      currency: 'GHS',
      payment_method: 'momo',
      payment_method_data: { phone_number: '+233241230001' },
    };
    async function expectError(response: Awaited<ReturnType<typeof post>>, status: number, message?: RegExp) {
      expect(response.status, JSON.stringify(response.body)).to.equal(status);
      expect(Object.keys(response.body)).to.deep.equal(['error']);
      expect(response.body.error).to.be.a('string');
      if (message) expect(response.body.error).to.match(message);
    }
    let before: number;
    beforeEach(async () => {
      const { db } = await getStack();
      before = Number((await db('payments').where({ merchant_id: developer.merchantId }).count('id as n').first())?.n);
    });
    afterEach(async () => {
      const { db } = await getStack();
      expect(
        Number((await db('payments').where({ merchant_id: developer.merchantId }).count('id as n').first())?.n),
      ).to.equal(before);
    });

    it('401 without X-API-Key or with an unknown key', async () => {
      await expectError(await call(path, { body: valid }), 401);
      await expectError(await post(valid, `sk_sandbox_${'Z'.repeat(32)}`), 401);
    });

    it("403 for a merchant id that is not the key's", async () => {
      const other = await registerDeveloper();
      await expectError(
        await post(valid, developer.key, `/v1/api/merchants/${other.merchantId}/payments`),
        403,
        /merchant_id/,
      );
      await expectError(
        await call(`/v1/api/merchants/${other.merchantId}/payments/pay_000000000000000000000000`, {
          headers: { 'x-api-key': developer.key },
        }),
        403,
      );
    });

    it('400 for amounts with one or three decimals, a number, a sign, and non-zero decimals of RWF', async () => {
      for (const amount of ['10.5', '10.555', '10', '-10.00', '1e3'])
        await expectError(await post({ ...valid, amount }), 400, /amount/);
      await expectError(await post({ ...valid, amount: 10 }), 400, /amount must be a string/);
      await expectError(
        await post({
          ...valid,
          amount: '1500.50',
          currency: 'RWF',
          payment_method_data: { phone_number: '+250788000001' },
        }),
        400,
        /\.00 for RWF/,
      );
      await expectError(await post({ ...valid, amount: '0.00' }), 400, /amount/);
    });

    it('400 for a KES amount with cents for mpesa, which takes whole shillings only (docs/limits.md#amounts)', async () => {
      await expectError(
        await post({
          amount: '150.50',
          currency: 'KES',
          payment_method: 'mpesa',
          payment_method_data: { phone_number: '0712 000 001' },
        }),
        400,
        /^amount must be a whole number of KES for mpesa/,
      );
    });

    it('400 for a missing field, an unknown method, a currency or country the method does not serve', async () => {
      const { amount: _amount, ...noAmount } = valid;
      await expectError(await post(noAmount), 400, /^amount is required$/);
      await expectError(await post({ ...valid, payment_method: 'mobile_money' }), 400, /payment_method must be one of/);
      await expectError(await post({ ...valid, currency: 'USD' }), 400, /currency USD is not supported by momo/);
      await expectError(
        await post({ ...valid, currency: 'KES', payment_method_data: { phone_number: '+254712000001' } }),
        400,
        /currency KES/,
      );
      await expectError(
        await post({ ...valid, payment_method: 'mobile_money_c', currency: 'GHS' }),
        400,
        /currency GHS/,
      );
      await expectError(
        await post({ ...valid, payment_method: 'mobile_money_c', currency: 'USD' }),
        400,
        /does not serve GH/,
      );
      await expectError(
        await post({
          ...valid,
          currency: 'EUR',
          payment_method: 'card_gateway',
          payment_method_data: { payment_method_types: ['bank'] },
        }),
        400,
      );
    });

    it('400 for missing or malformed payment_method_data', async () => {
      await expectError(
        await post({ ...valid, payment_method_data: {} }),
        400,
        /payment_method_data.phone_number is required/,
      );
      await expectError(
        await post({ ...valid, payment_method_data: { phone_number: '024123' } }),
        400,
        /mobile number of GH/,
      );
      await expectError(
        await post({ ...valid, payment_method: 'wallet', currency: 'USD', payment_method_data: {} }),
        400,
        /wallet_id is required/,
      );
      await expectError(
        await post({ ...valid, payment_method: 'wallet', currency: 'USD', payment_method_data: { wallet_id: 'x' } }),
        400,
        /wallet_id/,
      );
      await expectError(
        await post({ ...valid, payment_method_data: { phone_number: '+233241230001', iban: 'x' } }),
        400,
        /unknown field/,
      );
    });

    it('400 for malformed JSON and 404 for an unknown or foreign payment', async () => {
      await expectError(
        await call(path, { rawBody: '{', headers: { 'x-api-key': developer.key, 'content-type': 'application/json' } }),
        400,
      );
      await expectError(await get('pay_000000000000000000000000'), 404);
    });
  });
});
