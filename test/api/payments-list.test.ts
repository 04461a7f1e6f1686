/**
 * `GET /v1/payments` over real HTTP through the generated client (every answer checked against the
 * OpenAPI document): newest first, cursor pages that neither skip nor repeat, the filters, and a
 * 400 naming each unknown filter, bad value and bad cursor.
 */
import { expect } from 'chai';
import type { Payment, PaycollectClient } from '../../clients/typescript';
import { findPaymentListPosition, paymentsPageQuery } from '../../src/db/payments';
import { registerDeveloper, type TestDeveloper } from '../helpers/http';
import { testClient } from '../helpers/client';
import { getStack } from '../helpers/stack';

/** A mobile money payment that never answers (0003) and so stays pending until it expires. */
const QUIET = { amount: 1000, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000003' } as const;

/** Creates a payment through the client and answers it. */
async function create(
  client: PaycollectClient,
  body: Parameters<PaycollectClient['POST']>[1] extends { body?: infer B } ? B : never,
): Promise<Payment> {
  const { data, error } = await client.POST('/v1/payments', { body: body as never });
  if (!data) throw new Error(`create failed: ${JSON.stringify(error)}`);
  return data.data;
}

/** Newest first: created_at descending, ties by id descending. */
function newestFirst(a: Payment, b: Payment): number {
  return b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);
}

describe('GET /v1/payments', function () {
  this.timeout(90_000);
  let developer: TestDeveloper;
  let client: PaycollectClient;
  let payments: Payment[];

  before(async () => {
    developer = await registerDeveloper();
    client = await testClient(developer.key);
    payments = [];
    for (let i = 0; i < 4; i += 1) payments.push(await create(client, QUIET));
    payments.push(await create(client, { amount: 250000, currency: 'RWF', payment_method: 'bank_transfer' }));
    // Another merchant's payment is never listed.
    const other = await testClient((await registerDeveloper()).key);
    await create(other, QUIET);
  });

  it("lists the key's payments newest first, 10 by default, in the generic form", async () => {
    const { data } = await client.GET('/v1/payments');
    expect(data?.data.payments.map((p) => p.id)).to.deep.equal([...payments].sort(newestFirst).map((p) => p.id));
    expect(data?.data.pagination).to.deep.equal({ limit: 10, has_more: false, next_starting_after: null });
    expect(data?.data.payments[0]).to.include({ object: 'payment', environment: 'sandbox' });
  });

  it('pages with starting_after: every payment once, in order, has_more false on the last page', async () => {
    const seen: string[] = [];
    let startingAfter: string | undefined;
    const pages: { size: number; hasMore: boolean }[] = [];
    for (;;) {
      const { data } = await client.GET('/v1/payments', {
        params: { query: { limit: 2, starting_after: startingAfter } },
      });
      if (!data) throw new Error('list failed');
      seen.push(...data.data.payments.map((p) => p.id));
      pages.push({ size: data.data.payments.length, hasMore: data.data.pagination.has_more });
      if (!data.data.pagination.has_more) {
        expect(data.data.pagination.next_starting_after).to.equal(null);
        break;
      }
      expect(data.data.pagination.next_starting_after).to.equal(data.data.payments.at(-1)?.id);
      startingAfter = data.data.pagination.next_starting_after ?? undefined;
    }
    expect(pages).to.deep.equal([
      { size: 2, hasMore: true },
      { size: 2, hasMore: true },
      { size: 1, hasMore: false },
    ]);
    expect(seen).to.deep.equal([...payments].sort(newestFirst).map((p) => p.id));
  });

  it('keeps later pages in place when new payments arrive', async () => {
    const first = await client.GET('/v1/payments', { params: { query: { limit: 2 } } });
    const cursor = first.data?.data.pagination.next_starting_after ?? undefined;
    const newer = await create(client, QUIET);
    payments.push(newer);
    const second = await client.GET('/v1/payments', { params: { query: { limit: 2, starting_after: cursor } } });
    const ordered = [...payments].sort(newestFirst).map((p) => p.id);
    expect(second.data?.data.payments.map((p) => p.id)).to.deep.equal(
      ordered.slice(ordered.indexOf(cursor as string) + 1, ordered.indexOf(cursor as string) + 3),
    );
    expect(second.data?.data.payments.map((p) => p.id)).to.not.include(newer.id);
  });

  it('filters by status and payment_method', async () => {
    const cancelled = payments[4] as Payment; // the bank transfer: a mobile-money prompt cannot be withdrawn
    const cancel = await client.POST('/v1/payments/{id}/cancel', {
      params: { path: { id: cancelled.id } },
      body: { reason: 'list test' },
    });
    expect(cancel.data?.data.status).to.equal('cancelled');
    const byStatus = await client.GET('/v1/payments', { params: { query: { status: 'cancelled' } } });
    expect(byStatus.data?.data.payments.map((p) => p.id)).to.deep.equal([cancelled.id]);
    const transfers = await client.GET('/v1/payments', { params: { query: { payment_method: 'bank_transfer' } } });
    expect(transfers.data?.data.payments.map((p) => p.payment_method)).to.deep.equal(['bank_transfer']);
    const none = await client.GET('/v1/payments', { params: { query: { payment_method: 'card' } } });
    expect(none.data?.data.payments).to.deep.equal([]);
  });

  it('filters by pending_reason: open payments by why they wait, until when, and never a final one (docs/payments.md#decision-time)', async () => {
    const cancelled = payments[4] as Payment; // cancelled by the test before: final, so it waits for nothing
    const waiting = await client.GET('/v1/payments', { params: { query: { pending_reason: 'awaiting_customer' } } });
    const listed = waiting.data?.data.payments ?? [];
    expect(listed.map((p) => p.id).sort()).to.deep.equal(
      payments
        .filter((p) => p.id !== cancelled.id)
        .map((p) => p.id)
        .sort(),
    );
    for (const p of listed) {
      expect(p).to.include({ status: 'pending', pending_reason: 'awaiting_customer' });
      expect(Date.parse(p.decision_expected_by as string)).to.equal(Date.parse(p.expires_at) + 180_000);
    }
    const transfers = await client.GET('/v1/payments', { params: { query: { pending_reason: 'awaiting_callback' } } });
    expect(transfers.data?.data.payments).to.deep.equal([]);
    const shown = await client.GET('/v1/payments/{id}', { params: { path: { id: cancelled.id } } });
    expect(shown.data?.data).to.include({ status: 'cancelled', pending_reason: null, decision_expected_by: null });
  });

  it('filters by created[gte] and created[lte], in ISO 8601 or Unix seconds (a whole second)', async () => {
    const ordered = [...payments].sort((a, b) => -newestFirst(a, b));
    const second = ordered[1] as Payment;
    const sinceSecond = await client.GET('/v1/payments', { params: { query: { 'created[gte]': second.created_at } } });
    expect(sinceSecond.data?.data.payments.map((p) => p.id).sort()).to.deep.equal(
      ordered
        .slice(1)
        .map((p) => p.id)
        .sort(),
    );

    const oldest = ordered[0] as Payment;
    const oldestSecond = Math.floor(Date.parse(oldest.created_at) / 1000);
    const upToIt = await client.GET('/v1/payments', { params: { query: { 'created[lte]': String(oldestSecond) } } });
    const expected = ordered
      .filter((p) => Math.floor(Date.parse(p.created_at) / 1000) <= oldestSecond)
      .map((p) => p.id);
    expect(upToIt.data?.data.payments.map((p) => p.id).sort()).to.deep.equal(expected.sort());
    expect(expected).to.include(oldest.id);

    const newest = ordered.at(-1) as Payment;
    const after = await client.GET('/v1/payments', {
      params: { query: { 'created[gte]': String(Math.floor(Date.parse(newest.created_at) / 1000) + 1) } },
    });
    expect(after.data?.data.payments).to.deep.equal([]);
    const window = await client.GET('/v1/payments', {
      params: { query: { 'created[gte]': second.created_at, 'created[lte]': second.created_at } },
    });
    expect(window.data?.data.payments.map((p) => p.id)).to.include(second.id);
  });

  it('answers 400 validation_error naming an unknown filter', async () => {
    const { error, response } = await client.GET('/v1/payments', {
      params: { query: { colour: 'red', currency: 'RWF' } as never },
    });
    expect(response.status).to.equal(400);
    expect(error?.error.code).to.equal('validation_error');
    expect(error?.error.message).to.equal('unknown field: colour');
    expect(error?.error.details).to.deep.equal([
      { field: 'colour', message: 'unknown field: colour' },
      { field: 'currency', message: 'unknown field: currency' },
    ]);
  });

  it("answers 400 naming starting_after for an unknown id and for another merchant's payment", async () => {
    const other = await testClient((await registerDeveloper()).key);
    const foreign = await create(other, QUIET);
    for (const id of ['pay_doesnotexist000000000000', foreign.id]) {
      const { error, response } = await client.GET('/v1/payments', { params: { query: { starting_after: id } } });
      expect(response.status, id).to.equal(400);
      expect(error?.error.code).to.equal('validation_error');
      expect(error?.error.details).to.deep.equal([
        {
          field: 'starting_after',
          message: `starting_after must be the id of one of your payments; there is no payment ${id}`,
        },
      ]);
    }
  });

  it('answers 400 naming a bad filter value or limit', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ 'created[gte]': 'yesterday' }, 'created[gte]'],
      [{ 'created[lte]': '2026-11-24' }, 'created[lte]'],
      [{ status: 'paid' }, 'status'],
      [{ pending_reason: 'waiting' }, 'pending_reason'],
      [{ payment_method: 'cash' }, 'payment_method'],
      [{ limit: '101' }, 'limit'],
      [{ limit: '0' }, 'limit'],
    ];
    for (const [query, field] of cases) {
      const { error, response } = await client.GET('/v1/payments', { params: { query: query as never } });
      expect(response.status, JSON.stringify(query)).to.equal(400);
      expect(error?.error.details?.[0]?.field, JSON.stringify(query)).to.equal(field);
    }
  });

  it('reads a page from the (merchant, environment, created_at, id) index in order, without sorting, also after a cursor', async () => {
    const { db } = await getStack();
    const scope = { merchantId: developer.merchantId, environment: 'sandbox' as const };
    const position = await findPaymentListPosition(db, scope, (payments[2] as Payment).id);
    const query = paymentsPageQuery(db, scope, { startingAfter: position, createdGte: new Date(0) }, 11).toSQL();
    const plan = await db.transaction(async (trx) => {
      // The plan must be possible, not merely cheapest on this run's statistics (the table grows with the suite):
      // with scans that lose the order and sorts priced out, a Sort remains only if no index gives the order.
      await trx.raw('set local enable_seqscan = off');
      await trx.raw('set local enable_bitmapscan = off');
      await trx.raw('set local enable_sort = off');
      const explained = await trx.raw(`explain ${query.sql}`, query.bindings as never[]);
      return (explained.rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).to.match(/Index Scan Backward using payments_merchant_created_idx/);
    expect(plan).to.not.match(/Sort/);
  });

  it('takes secret keys only: a session token answers 401', async () => {
    const withSession = await testClient(developer.token);
    const { error, response } = await withSession.GET('/v1/payments');
    expect(response.status).to.equal(401);
    expect(error?.error.code).to.equal('invalid_api_key');
  });
});
