/**
 * Checkout sessions over HTTP against the real stack (docs/checkout.md): create, read, list and expire with the
 * merchant's key; the page's read and attempts without a key, with the sandbox mobile-money numbers of
 * docs/payments.md#sandbox-scenarios: an attempt that completes the session, a decline then a success, two attempts
 * at once (exactly one admitted, one prompt), the eleventh attempt refused, expiry; bad input refused naming the field
 * with nothing stored; another merchant's key reads nothing. The ledger invariants (docs/ledger.md#invariants) hold
 * after each.
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';

const SESSION = {
  amount: 5_000,
  currency: 'RWF',
  description: 'School fees, term 1',
  success_url: 'https://school.example/paid',
  metadata: { student: 'S-1042' },
};

async function expectLedgerHolds(merchantId: string): Promise<void> {
  const { db } = await getStack();
  expect(await ledgerProblems(db, { merchantIds: [merchantId] })).to.deep.equal([]);
}

async function createSession(dev: TestDeveloper, body: object = SESSION, idempotencyKey?: string) {
  const created = await call('/v1/checkout/sessions', {
    key: dev.key,
    body,
    headers: { 'idempotency-key': idempotencyKey ?? `cs-${Math.random()}` },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data;
}

const attempt = (id: string, phone: string) =>
  call(`/v1/checkout/sessions/${id}/attempts`, { body: { payment_method: 'mobile_money', phone_number: phone } });

/** Polls the page's read until `predicate` holds (15 s at most). */
async function waitForPublic(id: string, predicate: (s: any) => boolean): Promise<any> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await call(`/v1/checkout/sessions/${id}/public`);
    if (predicate(response.body.data) || Date.now() > deadline) return response.body.data;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The payments stored as attempts of session `id`. */
async function attemptPayments(id: string): Promise<string[]> {
  const { db } = await getStack();
  const rows = (await db('payments').where({ checkout_session: id }).select('id')) as { id: string }[];
  return rows.map((r) => r.id);
}

async function eventsOf(key: string, objectId: string): Promise<string[]> {
  const events = await call('/v1/developer/events?limit=100', { key });
  return (events.body.data.events as { event: string; data: { id: string } }[])
    .filter((e) => e.data.id === objectId)
    .map((e) => e.event)
    .sort();
}

describe('checkout sessions (docs/checkout.md)', function () {
  this.timeout(180_000);
  let dev: TestDeveloper;
  before(async () => {
    dev = await registerDeveloper();
  });
  after(async () => {
    await expectLedgerHolds(dev.merchantId);
  });

  it('creates an open session, reads it, lists it, and a retried create with the same key answers the same session', async () => {
    const session = await createSession(dev, SESSION, 'same-key');
    expect(session).to.include({
      object: 'checkout.session',
      status: 'open',
      amount: 5_000,
      currency: 'RWF',
      payment: null,
      payment_link: null,
      attempts_count: 0,
      locale: 'en',
    });
    expect(session.id).to.match(/^cs_[0-9A-Za-z]{24}$/);
    expect(session.url).to.match(new RegExp(`/pay/${session.id}$`));
    expect(session.metadata).to.deep.equal({ student: 'S-1042' });
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).to.equal(86_400_000);
    expect((await createSession(dev, SESSION, 'same-key')).id).to.equal(session.id);

    const read = await call(`/v1/checkout/sessions/${session.id}`, { key: dev.key });
    expect(read.status).to.equal(200);
    expect(read.body.data).to.deep.equal(session);
    const listed = await call('/v1/checkout/sessions?status=open&limit=100', { key: dev.key });
    expect(listed.status).to.equal(200);
    expect(listed.body.data.checkout_sessions.map((s: { id: string }) => s.id)).to.include(session.id);
    const completeOnly = await call('/v1/checkout/sessions?status=complete&limit=100', { key: dev.key });
    expect(completeOnly.body.data.checkout_sessions.map((s: { id: string }) => s.id)).to.not.include(session.id);

    const page = await call(`/v1/checkout/sessions/${session.id}/public`);
    expect(page.status).to.equal(200);
    expect(page.body.data).to.include({ id: session.id, status: 'open', amount: 5_000, attempts_left: 10 });
    expect(page.body.data).to.not.have.any.keys('metadata', 'customer_phone', 'payment');
  });

  it('completes the session by an attempt that succeeds, with checkout.session.completed', async () => {
    const session = await createSession(dev);
    const started = await attempt(session.id, '0788 000 001');
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    expect(started.body.data).to.include({ status: 'pending', operator: 'momo' });
    expect(started.body.data.next_action).to.include({ type: 'mobile_money_approval' });
    const paid = await waitForPayment(dev.key, started.body.data.payment, (p) => p.status === 'completed');
    expect(paid.checkout_session).to.equal(session.id);
    await waitForPublic(session.id, (s) => s.status === 'complete');
    // A payment of no session names none.
    const plain = await call('/v1/payments', {
      key: dev.key,
      body: { amount: 700, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
      headers: { 'idempotency-key': `plain-${Math.random()}` },
    });
    expect(plain.body.data.checkout_session).to.equal(null);
    const read = (await call(`/v1/checkout/sessions/${session.id}`, { key: dev.key })).body.data;
    expect(read).to.include({ status: 'complete', payment: started.body.data.payment, attempts_count: 1 });
    expect(await eventsOf(dev.key, session.id)).to.deep.equal(['checkout.session.completed']);
    const again = await attempt(session.id, '0788 000 001');
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('checkout_session_not_open');
    const expire = await call(`/v1/checkout/sessions/${session.id}/expire`, { key: dev.key, method: 'POST' });
    expect(expire.status).to.equal(409);
    expect(expire.body.error.code).to.equal('checkout_session_not_open');
  });

  it('takes a new attempt after a decline, and the success completes the session', async () => {
    const session = await createSession(dev);
    const declined = await attempt(session.id, '+250788000002');
    expect(declined.status, JSON.stringify(declined.body)).to.equal(201);
    await waitForPayment(dev.key, declined.body.data.payment, (p) => p.status === 'failed');
    await waitForPublic(session.id, (s) => !s.attempt_in_progress);
    const paid = await attempt(session.id, '+250788000001');
    expect(paid.status, JSON.stringify(paid.body)).to.equal(201);
    const done = await waitForPublic(session.id, (s) => s.status === 'complete');
    expect(done.status).to.equal('complete');
    const read = (await call(`/v1/checkout/sessions/${session.id}`, { key: dev.key })).body.data;
    expect(read).to.include({ payment: paid.body.data.payment, attempts_count: 2 });
  });

  it('admits exactly one of two attempts at once: one 201, one 409, one prompt', async () => {
    const session = await createSession(dev);
    const answers = await Promise.all([attempt(session.id, '+250788123456'), attempt(session.id, '+250788123457')]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, JSON.stringify(answers.map((a) => a.body))).to.deep.equal([201, 409]);
    const refused = answers.find((a) => a.status === 409);
    expect(refused?.body.error.code).to.equal('checkout_session_attempt_in_progress');
    const admitted = answers.find((a) => a.status === 201);
    expect(await attemptPayments(session.id)).to.deep.equal([admitted?.body.data.payment]);
    // The merchant's expire waits for the attempt too.
    const expire = await call(`/v1/checkout/sessions/${session.id}/expire`, { key: dev.key, method: 'POST' });
    expect(expire.status).to.equal(409);
    expect(expire.body.error.code).to.equal('checkout_session_attempt_in_progress');
    expect((await waitForPublic(session.id, (s) => s.status === 'complete')).status).to.equal('complete');
  });

  it('refuses the eleventh attempt', async () => {
    const session = await createSession(dev);
    for (let i = 0; i < 10; i++) {
      const declined = await attempt(session.id, '+250788000002');
      expect(declined.status, `attempt ${i + 1}: ${JSON.stringify(declined.body)}`).to.equal(201);
      await waitForPublic(session.id, (s) => !s.attempt_in_progress);
    }
    const eleventh = await attempt(session.id, '+250788000001');
    expect(eleventh.status).to.equal(409);
    expect(eleventh.body.error.code).to.equal('checkout_session_attempts_exhausted');
    expect(await attemptPayments(session.id)).to.have.length(10);
    const read = (await call(`/v1/checkout/sessions/${session.id}`, { key: dev.key })).body.data;
    expect(read).to.include({ status: 'open', attempts_count: 10 });
  });

  it("expires at the merchant's word, with checkout.session.expired, and then takes nothing", async () => {
    const session = await createSession(dev);
    const expired = await call(`/v1/checkout/sessions/${session.id}/expire`, { key: dev.key, method: 'POST' });
    expect(expired.status, JSON.stringify(expired.body)).to.equal(200);
    expect(expired.body.data.status).to.equal('expired');
    expect((await call(`/v1/checkout/sessions/${session.id}`, { key: dev.key })).body.data.status).to.equal('expired');
    const twice = await call(`/v1/checkout/sessions/${session.id}/expire`, { key: dev.key, method: 'POST' });
    expect(twice.status).to.equal(409);
    expect(twice.body.error.code).to.equal('checkout_session_not_open');
    const late = await attempt(session.id, '+250788000001');
    expect(late.status).to.equal(409);
    expect(late.body.error.code).to.equal('checkout_session_not_open');
    expect(await attemptPayments(session.id)).to.deep.equal([]);
    expect(await eventsOf(dev.key, session.id)).to.deep.equal(['checkout.session.expired']);
  });

  it('refuses bad input naming the field and stores nothing', async () => {
    const { db } = await getStack();
    const before = Number(((await db('checkout_sessions').count('* as n')) as { n: string }[])[0]?.n);
    const cases: [object, string][] = [
      [{ ...SESSION, amount: -1 }, 'amount'],
      [{ ...SESSION, amount: 10.5 }, 'amount'],
      [{ ...SESSION, success_url: 'not a url' }, 'success_url'],
      [{ ...SESSION, success_url: undefined }, 'success_url'],
      [{ ...SESSION, expires_in: 60 }, 'expires_in'],
      [{ ...SESSION, expires_in: 86_401 }, 'expires_in'],
      [{ ...SESSION, currency: 'EUR' }, 'currency'],
      [{ ...SESSION, customer_phone: 'call me' }, 'customer_phone'],
      [{ ...SESSION, colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const refused = await call('/v1/checkout/sessions', {
        key: dev.key,
        body,
        headers: { 'idempotency-key': `bad-${field}-${Math.random()}` },
      });
      expect(refused.status, `${field}: ${JSON.stringify(refused.body)}`).to.equal(400);
      expect(refused.body.error.code).to.equal('validation_error');
      expect(JSON.stringify(refused.body.error), field).to.contain(field);
    }
    const after = Number(((await db('checkout_sessions').count('* as n')) as { n: string }[])[0]?.n);
    expect(after).to.equal(before);

    const session = await createSession(dev);
    const attempts: [object, string][] = [
      [{ payment_method: 'mobile_money', phone_number: '12' }, 'phone_number'],
      [{ payment_method: 'mobile_money' }, 'phone_number'],
      [{ payment_method: 'mobile_money', phone_number: '+254712000001' }, 'phone_number'],
      [{ payment_method: 'mobile_money', phone_number: '0788000001', operator: 'nope' }, 'operator'],
      [{ payment_method: 'cash', phone_number: '0788000001' }, 'payment_method'],
    ];
    for (const [body, field] of attempts) {
      const refused = await call(`/v1/checkout/sessions/${session.id}/attempts`, { body });
      expect(refused.status, `${field}: ${JSON.stringify(refused.body)}`).to.equal(400);
      expect(JSON.stringify(refused.body.error), JSON.stringify(body)).to.contain(field);
    }
    expect(await attemptPayments(session.id)).to.deep.equal([]);
    const read = (await call(`/v1/checkout/sessions/${session.id}`, { key: dev.key })).body.data;
    expect(read.attempts_count).to.equal(0);
    expect((await call('/v1/checkout/sessions/cs_unknown/public')).status).to.equal(404);
    expect((await attempt('cs_unknown', '0788000001')).status).to.equal(404);
  });

  it("lets no other merchant's key read or expire a session", async () => {
    const session = await createSession(dev);
    const other = await registerDeveloper();
    expect((await call(`/v1/checkout/sessions/${session.id}`, { key: other.key })).status).to.equal(404);
    const expire = await call(`/v1/checkout/sessions/${session.id}/expire`, { key: other.key, method: 'POST' });
    expect(expire.status).to.equal(404);
    const listed = await call('/v1/checkout/sessions?limit=100', { key: other.key });
    expect(listed.body.data.checkout_sessions).to.deep.equal([]);
    expect((await call(`/v1/checkout/sessions/${session.id}`)).status).to.equal(401);
  });
});
