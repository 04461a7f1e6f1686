/**
 * A NUL or another control character in any string of a body or a query is refused with 400
 * `validation_error` naming the field (docs/api.md#errors), before anything is written or a workflow starts:
 * PostgreSQL refuses NUL in text and jsonb, and such a string once made a payment's workflow retry
 * its first step forever.
 */
import { expect } from 'chai';
import { textProblems } from '../../src/api/schemas/validate';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { session } from '../helpers/live-access-api';
import { getStack } from '../helpers/stack';

const ORDER = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' };

describe('control characters in input (docs/api.md#errors)', function () {
  this.timeout(30_000);
  let developer: TestDeveloper;

  before(async () => {
    developer = await registerDeveloper();
  });

  function expectRefused(response: { status: number; body: any }, field: string): void {
    expect(response.status, JSON.stringify(response.body)).to.equal(400);
    expect(response.body.error.code).to.equal('validation_error');
    expect(response.body.error.details[0].field).to.equal(field);
  }

  it('refuses a NUL, an escape or a DEL in a create, naming the field, and creates nothing', async () => {
    for (const [body, field] of [
      [{ ...ORDER, description: 'a\u0000b' }, 'description'],
      [{ ...ORDER, metadata: { order: 'x\u001by' } }, 'metadata.order'],
      [{ ...ORDER, metadata: { 'k\u0000': 'v' } }, 'metadata'],
      [{ ...ORDER, description: 'del\u007f' }, 'description'],
    ] as const) {
      expectRefused(await call('/v1/payments', { key: developer.key, body }), field);
    }
    const { db } = await getStack();
    expect(
      await db('payments').where({ merchant_id: developer.merchantId }).count<{ n: number }[]>('id as n'),
    ).to.deep.equal([{ n: 0 }]);
  });

  it('accepts tab, CR and LF in free text', async () => {
    const response = await call('/v1/payments', {
      key: developer.key,
      body: { ...ORDER, description: 'line one\r\n\tline two' },
    });
    expect(response.status).to.equal(201);
    expect(response.body.data.description).to.equal('line one\r\n\tline two');
  });

  it("refuses one in a cancel or refund reason, leaving the payment's workflow untouched", async () => {
    const created = await call('/v1/payments', { key: developer.key, body: ORDER });
    const id = created.body.data.id as string;
    await waitForPayment(developer.key, id, (p) => p.status === 'completed');
    expectRefused(
      await call(`/v1/payments/${id}/refund`, { key: developer.key, body: { amount: 100, reason: 'r\u0000' } }),
      'reason',
    );
    expectRefused(
      await call(`/v1/payments/${id}/cancel`, { key: developer.key, body: { reason: '\u0000' } }),
      'reason',
    );
    const refund = await call(`/v1/payments/${id}/refund`, {
      key: developer.key,
      body: { amount: 100, reason: 'damaged' },
    });
    expect(refund.body.data).to.include({ status: 'completed', amount: 100 });
  });

  it('refuses one in a query and in a live-access answer', async () => {
    expectRefused(await call('/v1/developer/transactions?status=pending%00', { key: developer.key }), 'status');
    expectRefused(
      await call('/v1/developer/live-access/respond', { body: { message: 'here\u0000' }, headers: session(developer) }),
      'message',
    );
  });

  it('names every offending string, nested or in a key', () => {
    expect(textProblems({ a: 'ok', b: ['x', 'y\u0001'], c: { d: '\u0000' } }).map((p) => p.field)).to.deep.equal([
      'b.1',
      'c.d',
    ]);
    expect(textProblems('plain\ttext\r\n')).to.deep.equal([]);
  });
});
