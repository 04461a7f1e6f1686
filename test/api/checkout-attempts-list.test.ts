/**
 * A checkout session's attempts in lists (docs/checkout.md#states, docs/security.md#roles): `GET /v1/payments` and the
 * dashboard's `GET /v1/developer/transactions` take `checkout_session` and answer only that session's payments; and
 * the dashboard reads sessions with a session token of any role, in the environment it names.
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { addMember } from '../helpers/security';

async function createSession(dev: TestDeveloper): Promise<string> {
  const created = await call('/v1/checkout/sessions', {
    key: dev.key,
    body: { amount: 3_000, currency: 'RWF', description: 'Term fees', success_url: 'https://school.example/paid' },
    headers: { 'idempotency-key': `list-${Math.random()}` },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data.id as string;
}

async function attempt(session: string, phone: string): Promise<string> {
  const started = await call(`/v1/checkout/sessions/${session}/attempts`, {
    body: { payment_method: 'mobile_money', phone_number: phone },
  });
  expect(started.status, JSON.stringify(started.body)).to.equal(201);
  return started.body.data.payment as string;
}

describe("a checkout session's attempts in lists (docs/checkout.md#states)", function () {
  this.timeout(120_000);
  let dev: TestDeveloper;
  let session: string;
  let other: string;
  let declined: string;
  let paid: string;
  let elsewhere: string;
  before(async () => {
    dev = await registerDeveloper();
    session = await createSession(dev);
    other = await createSession(dev);
    declined = await attempt(session, '+250788000002');
    await waitForPayment(dev.key, declined, (p) => p.status === 'failed');
    // The session admits the next attempt once its run has taken the decline.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const page = await call(`/v1/checkout/sessions/${session}/public`);
      if (!page.body.data.attempt_in_progress || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    paid = await attempt(session, '+250788000001');
    elsewhere = await attempt(other, '+250788000001');
    await waitForPayment(dev.key, paid, (p) => p.status === 'completed');
  });

  it('GET /v1/payments?checkout_session= answers only that session’s payments, newest first', async () => {
    const listed = await call(`/v1/payments?checkout_session=${session}&limit=100`, { key: dev.key });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.body.data.payments.map((p: { id: string }) => p.id)).to.deep.equal([paid, declined]);
    const all = await call('/v1/payments?limit=100', { key: dev.key });
    expect(all.body.data.payments.map((p: { id: string }) => p.id)).to.include(elsewhere);
    const unknown = await call('/v1/payments?checkout_session=cs_unknown', { key: dev.key });
    expect(unknown.body.data.payments).to.deep.equal([]);
    const foreign = await registerDeveloper();
    const theirs = await call(`/v1/payments?checkout_session=${session}`, { key: foreign.key });
    expect(theirs.body.data.payments).to.deep.equal([]);
  });

  it('the dashboard lists a session’s attempts as transactions, with a session token', async () => {
    const listed = await call(`/v1/developer/transactions?checkout_session=${session}&limit=100`, { key: dev.token });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    const rows = listed.body.data.transactions as { id: string; status: string; amount: number }[];
    expect(rows.map((t) => [t.id, t.status, t.amount])).to.deep.equal([
      [paid, 'completed', 3_000],
      [declined, 'failed', 3_000],
    ]);
    expect(listed.body.data.pagination.total).to.equal(2);
    const tooLong = await call(`/v1/developer/transactions?checkout_session=${'x'.repeat(65)}`, { key: dev.token });
    expect(tooLong.status).to.equal(400);
    expect(tooLong.body.error.details[0].field).to.equal('checkout_session');
  });

  it('reads sessions with a session token of any role, in the environment asked (docs/security.md#roles)', async () => {
    const viewer = await addMember(dev, 'viewer');
    const listed = await call('/v1/checkout/sessions?limit=100', { key: viewer.token });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.body.data.checkout_sessions.map((s: { id: string }) => s.id)).to.include.members([session, other]);
    const one = await call(`/v1/checkout/sessions/${session}`, { key: viewer.token });
    expect(one.status).to.equal(200);
    expect(one.body.data).to.include({ id: session, status: 'complete', payment: paid, attempts_count: 2 });
    const live = await call('/v1/checkout/sessions?environment=live', { key: viewer.token });
    expect(live.status).to.equal(200);
    expect(live.body.data.checkout_sessions).to.deep.equal([]);
    expect((await call(`/v1/checkout/sessions/${session}?environment=live`, { key: viewer.token })).status).to.equal(
      404,
    );
    // Creating and expiring stay with keys.
    const create = await call('/v1/checkout/sessions', { key: viewer.token, body: {} });
    expect(create.status).to.equal(401);
  });
});
