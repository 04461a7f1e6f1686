/**
 * Text must be well-formed Unicode (docs/limits.md#request-bodies): `"\ud800"` is valid JSON but no
 * text, and PostgreSQL's jsonb refuses it (a text column would keep U+FFFD instead). Such a reason
 * once reached a refund the provider made while its `refund.completed` could not be written (money
 * moved, books not), and a cancel whose workflow ended `cancelled` while the read model stayed open.
 * Every string of every body is refused at the edge with 400 `validation_error` naming the field,
 * before anything is written, started or sent; the database handle refuses such text too, so a
 * write that would come after a side effect fails before it instead.
 */
import { expect } from 'chai';
import { MAX_JSON_DEPTH } from '../../src/api/middleware/json-body';
import { textProblems } from '../../src/api/schemas/validate';
import { insertRefund } from '../../src/db/payments';
import { cleanFileName } from '../../src/domain/documents';
import { isIllFormed, storableText } from '../../src/domain/text';
import { paymentWorkflowId } from '../../src/workflows/messages';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';

const HIGH = '\ud800';
const LOW = '\udc00';
const MOBILE = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' };

describe('well-formed text at the edge and in the database (docs/limits.md#request-bodies)', function () {
  this.timeout(60_000);
  let developer: TestDeveloper;

  before(async () => {
    developer = await registerDeveloper();
  });

  function expectRefused(response: { status: number; body: any }, field: string): void {
    expect(response.status, JSON.stringify(response.body)).to.equal(400);
    expect(response.body.error.code).to.equal('validation_error');
    expect(response.body.error.details[0].field).to.equal(field);
    expect(response.body.error.message).to.include('well-formed');
  }

  async function completedPayment(): Promise<string> {
    const created = await call('/v1/payments', { key: developer.key, body: MOBILE });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
    return created.body.data.id as string;
  }

  it('refuses a refund whose reason holds a lone surrogate: nothing sent to the provider, nothing written', async () => {
    const id = await completedPayment();
    const { db } = await getStack();
    const reference = (await db('payments').where({ id }).first('provider_reference')).provider_reference as string;
    for (const [path, headers, reason] of [
      [
        `/v1/payments/${id}/refund`,
        { authorization: `Bearer ${developer.key}`, 'idempotency-key': `lone-${id}` },
        HIGH,
      ],
      [`/v1/payments/${id}/refund`, { authorization: `Bearer ${developer.key}` }, `before ${LOW} after`],
      [`/v1/developer/payments/${id}/refund`, { authorization: `Bearer ${developer.token}` }, `${LOW}${HIGH}`],
    ] as const) {
      expectRefused(await call(path, { headers, body: { amount: 500, reason } }), 'reason');
    }
    expect(await db('refunds').where({ payment_id: id }).count<{ n: number }[]>('id as n')).to.deep.equal([{ n: 0 }]);
    expect(
      await db('sandbox_provider_refunds')
        .where({ provider_reference: reference })
        .count<{ n: number }[]>('idempotency_key as n'),
    ).to.deep.equal([{ n: 0 }]);
    const payment = (await call(`/v1/payments/${id}`, { key: developer.key })).body.data;
    expect(payment).to.include({ status: 'completed', amount_refunded: 0, amount_refund_pending: 0 });
    // The key was not used up, and a reason with a real astral character (a surrogate pair) is text.
    const refund = await call(`/v1/payments/${id}/refund`, {
      key: developer.key,
      headers: { 'idempotency-key': `lone-${id}` },
      body: { amount: 500, reason: 'broken 📦' },
    });
    expect(refund.status, JSON.stringify(refund.body)).to.equal(201);
    expect(refund.body.data).to.include({ status: 'completed', reason: 'broken 📦' });
    expect((await db('refunds').where({ payment_id: id }).first('reason')).reason).to.equal('broken 📦');
  });

  it('refuses a cancel whose reason holds a lone surrogate: the workflow and the read model are untouched', async () => {
    const created = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 2500, currency: 'RWF', payment_method: 'bank_transfer' },
    });
    expect(created.status).to.equal(201);
    const id = created.body.data.id as string;
    expectRefused(
      await call(`/v1/payments/${id}/cancel`, { key: developer.key, body: { reason: `wrong ${HIGH}` } }),
      'reason',
    );
    const { client } = await getStack();
    const handle = client.workflow.getHandle(paymentWorkflowId(id));
    expect((await handle.describe()).status.name).to.equal('RUNNING');
    expect(['pending', 'processing']).to.include(
      (await call(`/v1/payments/${id}`, { key: developer.key })).body.data.status,
    );
    const { db } = await getStack();
    expect(await db('events').where({ object_id: id, type: 'payment.cancelled' }).first()).to.equal(undefined);
    const cancelled = await call(`/v1/payments/${id}/cancel`, { key: developer.key, body: { reason: 'wrong amount' } });
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    expect(cancelled.body.data).to.include({ status: 'cancelled', cancellation_reason: 'wrong amount' });
  });

  it('refuses a lone surrogate in a webhook description, a create, a metadata key and a live-access answer', async () => {
    expectRefused(
      await call('/v1/developer/webhooks', {
        key: developer.key,
        body: { url: 'http://127.0.0.1:9/hooks', events: ['payment.completed'], description: `Orders ${HIGH}` },
      }),
      'description',
    );
    expectRefused(
      await call('/v1/payments', { key: developer.key, body: { ...MOBILE, description: LOW } }),
      'description',
    );
    expectRefused(
      await call('/v1/payments', { key: developer.key, body: { ...MOBILE, metadata: { [`k${HIGH}`]: 'v' } } }),
      'metadata',
    );
    expectRefused(
      await call('/v1/developer/live-access/respond', {
        headers: { authorization: `Bearer ${developer.token}` },
        body: { message: `here ${HIGH}` },
      }),
      'message',
    );
    const { db } = await getStack();
    expect(
      await db('webhooks').where({ merchant_id: developer.merchantId }).count<{ n: number }[]>('id as n'),
    ).to.deep.equal([{ n: 0 }]);
  });

  it('names every ill-formed string, nested or in a key, and passes surrogate pairs', () => {
    expect(textProblems({ a: 'ok 😀', b: ['x', `y${LOW}`], c: { d: HIGH } }).map((p) => p.field)).to.deep.equal([
      'b.1',
      'c.d',
    ]);
    expect(textProblems({ [`k${HIGH}`]: 'v' }).map((p) => p.field)).to.deep.equal(['body']);
    // As deep as a body may nest (64 levels): no string of an accepted body escapes the rule.
    let deep: unknown = HIGH;
    for (let level = 0; level < MAX_JSON_DEPTH - 1; level += 1) deep = { n: deep };
    expect(textProblems(deep)).to.have.length(1);
    expect(isIllFormed('\ud83d\ude00')).to.equal(false);
    expect(isIllFormed(`\ude00\ud83d`)).to.equal(true);
    expect(storableText({ message: `a${HIGH}b\u0000`, list: [LOW] })).to.deep.equal({
      message: 'a\ufffdb\ufffd',
      list: ['\ufffd'],
    });
    // A stored file name is cut at 255 code units without splitting an emoji into a lone surrogate.
    const name = cleanFileName(`${'a'.repeat(254)}😀.pdf`);
    expect(name).to.equal('a'.repeat(254));
    expect(isIllFormed(name)).to.equal(false);
  });

  it('refuses, before sending it, a statement whose text PostgreSQL cannot store as it is (SQLSTATE 22021)', async () => {
    const id = await completedPayment();
    const { db } = await getStack();
    const refund = {
      id: `ref_guard${Date.now()}`,
      paymentId: id,
      merchantId: developer.merchantId,
      environment: 'sandbox' as const,
      amount: 100,
      currency: 'RWF',
      status: 'pending' as const,
      reason: `x${HIGH}`,
      providerReference: null,
      failureMessage: null,
      createdAt: new Date().toISOString(),
      completedAt: null,
    };
    let refused: unknown;
    try {
      await insertRefund(db, refund, [`refund:${refund.id}:reserved`]);
    } catch (error) {
      refused = error;
    }
    expect((refused as { code?: string } | undefined)?.code).to.equal('22021');
    expect(await db('refunds').where({ id: refund.id }).first()).to.equal(undefined);
    await db.transaction(async (trx) => {
      let inTransaction: unknown;
      await trx('refunds')
        .where({ reason: `\u0000` })
        .first()
        .catch((error: unknown) => (inTransaction = error));
      expect((inTransaction as { code?: string } | undefined)?.code).to.equal('22021');
    });
  });
});
