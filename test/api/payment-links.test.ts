/**
 * Payment links over HTTP against the real stack (docs/payment-links.md): create, read, list and change with the
 * merchant's key (or a restricted key with `checkout:write`, or the dashboard's session), never deleted; bad input
 * refused naming the field with nothing stored; `/l/{id}` opening a one-hour checkout session (303 to its page) or a
 * closed page in the payer's language; a customer-chosen amount and collected fields carried by the attempt; the
 * completion limit held under concurrent payers on different sessions of one link (the extra payers refused before
 * any prompt) and a declined attempt giving its place back; QR codes as SVG and as PNGs of exactly the asked size that
 * decode to the link's address; the per-address limit of `/l/{id}`. The ledger invariants hold after.
 */
import { expect } from 'chai';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { startApp } from '../helpers/processes';
import { getStack, testConfig } from '../helpers/stack';

const FIXED = { amount: 15_000, currency: 'RWF', description: 'Kitenge dress, size M' };
const CHOSEN = {
  amount_range: { min: 500, max: 50_000 },
  currency: 'RWF',
  description: 'Donation to the school library',
  collect: ['name', 'email'],
};

async function createLink(dev: TestDeveloper, body: object, idempotencyKey?: string) {
  const created = await call('/v1/payment_links', {
    key: dev.key,
    body,
    headers: { 'idempotency-key': idempotencyKey ?? `pl-${Math.random()}` },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data;
}

/** Follows `/l/{id}` without following its redirect. */
async function open(id: string, headers: Record<string, string> = {}, baseUrl?: string) {
  const base = baseUrl ?? (await getStack()).baseUrl;
  const response = await fetch(`${base}/l/${id}`, { redirect: 'manual', headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Opens link `id` and answers the id of the session it created. */
async function openSession(id: string): Promise<string> {
  const opened = await open(id);
  expect(opened.status, opened.text).to.equal(303);
  const match = /\/pay\/(cs_[0-9A-Za-z]{24})$/.exec(opened.headers.get('location') ?? '');
  expect(match, opened.headers.get('location') ?? '').to.not.equal(null);
  return (match as RegExpExecArray)[1] as string;
}

const attempt = (session: string, phone: string, extra: object = {}) =>
  call(`/v1/checkout/sessions/${session}/attempts`, {
    body: { payment_method: 'mobile_money', phone_number: phone, ...extra },
  });

async function paymentsOf(sessions: string[]): Promise<{ id: string; amount: string }[]> {
  const { db } = await getStack();
  return db('payments').whereIn('checkout_session', sessions).select('id', 'amount');
}

async function linkCount(merchantId: string): Promise<number> {
  const { db } = await getStack();
  const [row] = await db('payment_links').where({ merchant_id: merchantId }).count<{ count: string }[]>('* as count');
  return Number(row?.count ?? 0);
}

/** Polls the link until `predicate` holds (20 s at most). */
async function waitForLink(dev: TestDeveloper, id: string, predicate: (link: any) => boolean): Promise<any> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const link = (await call(`/v1/payment_links/${id}`, { key: dev.key })).body.data;
    if (predicate(link) || Date.now() > deadline) return link;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function waitForSession(dev: TestDeveloper, id: string, predicate: (s: any) => boolean): Promise<any> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const session = (await call(`/v1/checkout/sessions/${id}`, { key: dev.key })).body.data;
    if (predicate(session) || Date.now() > deadline) return session;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('payment links (docs/payment-links.md)', function () {
  this.timeout(180_000);
  let dev: TestDeveloper;
  before(async () => {
    dev = await registerDeveloper();
  });
  after(async () => {
    const { db } = await getStack();
    expect(await ledgerProblems(db, { merchantIds: [dev.merchantId] })).to.deep.equal([]);
  });

  it('creates a link, answers the same one to a retried create, reads, lists and changes it, and never deletes it', async () => {
    const link = await createLink(dev, { ...FIXED, completed_limit: 5 }, 'same-link-key');
    expect(link).to.include({
      object: 'payment_link',
      active: true,
      amount: 15_000,
      amount_range: null,
      currency: 'RWF',
      completed_limit: 5,
      completed_count: 0,
      after_completion: null,
    });
    expect(link.id).to.match(/^plink_[0-9A-Za-z]{24}$/);
    expect(link.url).to.equal(`${(await getStack()).config.PUBLIC_BASE_URL}/l/${link.id}`);
    expect(link.collect).to.deep.equal([]);
    expect((await createLink(dev, { ...FIXED, completed_limit: 5 }, 'same-link-key')).id).to.equal(link.id);

    const read = await call(`/v1/payment_links/${link.id}`, { key: dev.key });
    expect(read.body.data).to.deep.equal(link);
    const listed = await call('/v1/payment_links?limit=100&active=true', { key: dev.key });
    expect(listed.body.data.payment_links.map((l: { id: string }) => l.id)).to.include(link.id);

    const changed = await call(`/v1/payment_links/${link.id}`, {
      key: dev.key,
      method: 'PATCH',
      body: {
        description: 'Kitenge dress, size L',
        completed_limit: null,
        after_completion: { type: 'message', message: 'Murakoze! We deliver tomorrow.' },
      },
    });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    expect(changed.body.data).to.include({ description: 'Kitenge dress, size L', completed_limit: null });
    expect(changed.body.data.after_completion).to.deep.equal({
      type: 'message',
      message: 'Murakoze! We deliver tomorrow.',
    });
    const off = await call(`/v1/payment_links/${link.id}`, { key: dev.key, method: 'PATCH', body: { active: false } });
    expect(off.body.data.active).to.equal(false);
    const inactiveOnly = await call('/v1/payment_links?limit=100&active=false', { key: dev.key });
    expect(inactiveOnly.body.data.payment_links.map((l: { id: string }) => l.id)).to.deep.equal([link.id]);

    const deleted = await call(`/v1/payment_links/${link.id}`, { key: dev.key, method: 'DELETE' });
    expect(deleted.status).to.equal(405);
    expect(deleted.body.error.code).to.equal('method_not_allowed');
    expect((await call(`/v1/payment_links/${link.id}`, { key: dev.key })).status).to.equal(200);

    // Another merchant reads nothing of it.
    const other = await registerDeveloper();
    expect((await call(`/v1/payment_links/${link.id}`, { key: other.key })).status).to.equal(404);
    expect((await call(`/v1/payment_links/${link.id}/qr.svg`, { key: other.key })).status).to.equal(404);
  });

  it('takes a restricted key with checkout:write, and the dashboard session; refuses a key without the scope', async () => {
    const key = async (scopes: string[]) => {
      const created = await call('/v1/developer/keys', {
        key: dev.token,
        body: { name: 'Links', environment: 'sandbox', scopes },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return created.body.data.key.secret as string;
    };
    const writer = await key(['checkout:write']);
    const created = await call('/v1/payment_links', { key: writer, body: FIXED });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect((await call(`/v1/payment_links/${created.body.data.id}`, { key: writer })).status).to.equal(200);
    const reader = await key(['payments:read']);
    const refused = await call('/v1/payment_links', { key: reader, body: FIXED });
    expect(refused.status).to.equal(403);
    const bySession = await call('/v1/payment_links?environment=sandbox', { key: dev.token, body: FIXED });
    expect(bySession.status, JSON.stringify(bySession.body)).to.equal(201);
  });

  it('refuses bad links naming the field, and stores nothing', async () => {
    const before = await linkCount(dev.merchantId);
    const cases: [object, string][] = [
      [{ ...CHOSEN, amount_range: { min: 5_000, max: 1_000 } }, 'amount_range.max'],
      [{ ...CHOSEN, amount_range: { min: 0, max: 1_000 } }, 'amount_range.min'],
      [{ ...CHOSEN, amount_range: { min: 10.5, max: 1_000 } }, 'amount_range.min'],
      [{ ...FIXED, amount_range: { min: 1, max: 2 } }, 'amount_range'],
      [{ currency: 'RWF', description: 'Neither' }, 'amount'],
      [{ ...FIXED, currency: 'XYZ' }, 'currency'],
      [{ ...FIXED, currency: 'EUR' }, 'currency'],
      [{ ...FIXED, completed_limit: 0 }, 'completed_limit'],
      [{ ...FIXED, collect: ['name', 'phone'] }, 'collect.1'],
      [{ ...FIXED, after_completion: { type: 'redirect', url: 'http://shop.example/thanks' } }, 'after_completion.url'],
      [{ ...FIXED, after_completion: { type: 'redirect', url: 'ftp://shop.example/thanks' } }, 'after_completion.url'],
      [{ ...FIXED, after_completion: { type: 'message', message: '' } }, 'after_completion.message'],
    ];
    for (const [body, field] of cases) {
      const refused = await call('/v1/payment_links', { key: dev.key, body });
      expect(refused.status, JSON.stringify(body)).to.equal(400);
      expect(
        refused.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(body),
      ).to.include(field);
    }
    expect(await linkCount(dev.merchantId)).to.equal(before);
    // Sandbox redirects may go to the merchant's own machine over http.
    const local = await createLink(dev, {
      ...FIXED,
      after_completion: { type: 'redirect', url: 'http://localhost:3000/thanks' },
    });
    const patched = await call(`/v1/payment_links/${local.id}`, {
      key: dev.key,
      method: 'PATCH',
      body: { after_completion: { type: 'redirect', url: 'http://shop.example/thanks' } },
    });
    expect(patched.status).to.equal(400);
    expect(patched.body.error.details[0].field).to.equal('after_completion.url');
    const empty = await call(`/v1/payment_links/${local.id}`, { key: dev.key, method: 'PATCH', body: {} });
    expect(empty.status).to.equal(400);
    const unchanged = (await call(`/v1/payment_links/${local.id}`, { key: dev.key })).body.data;
    expect(unchanged.after_completion).to.deep.equal({ type: 'redirect', url: 'http://localhost:3000/thanks' });
  });

  it('opens a fixed link as a one-hour session with its redirect, in the payer’s language, and the session completes', async () => {
    const link = await createLink(dev, {
      ...FIXED,
      after_completion: { type: 'redirect', url: 'https://shop.example/thanks' },
    });
    const opened = await open(link.id, { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' });
    expect(opened.status).to.equal(303);
    const sessionId = /\/pay\/(cs_[0-9A-Za-z]{24})$/.exec(opened.headers.get('location') ?? '')?.[1] as string;
    expect(opened.headers.get('location')).to.equal(`${(await getStack()).config.PUBLIC_BASE_URL}/pay/${sessionId}`);
    const session = (await call(`/v1/checkout/sessions/${sessionId}`, { key: dev.key })).body.data;
    expect(session).to.include({
      status: 'open',
      amount: 15_000,
      payment_link: link.id,
      success_url: 'https://shop.example/thanks',
      locale: 'fr',
    });
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).to.equal(3_600_000);

    const withAmount = await attempt(sessionId, '0788 000 001', { amount: 100 });
    expect(withAmount.status).to.equal(400);
    expect(withAmount.body.error.details[0].field).to.equal('amount');
    const paid = await attempt(sessionId, '0788 000 001');
    expect(paid.status, JSON.stringify(paid.body)).to.equal(201);
    await waitForPayment(dev.key, paid.body.data.payment, (p) => p.status === 'completed');
    const done = await waitForLink(dev, link.id, (l) => l.completed_count === 1);
    expect(done.completed_count).to.equal(1);
    const payment = (await call(`/v1/payments/${paid.body.data.payment}`, { key: dev.key })).body.data;
    expect(payment.metadata).to.deep.equal({ checkout_session: sessionId, payment_link: link.id });
  });

  it('shows closed pages: unknown (404), inactive (410) in the payer’s language, and opens no session', async () => {
    const unknown = await open('plink_000000000000000000000000');
    expect(unknown.status).to.equal(404);
    expect(unknown.headers.get('content-type')).to.match(/^text\/html/);
    const link = await createLink(dev, { ...FIXED, active: false });
    for (const [language, lang, words] of [
      ['fr-FR,fr;q=0.9', 'fr', 'fermé'],
      ['sw', 'sw', 'kimefungwa'],
      ['rw-RW', 'rw', 'yarafunzwe'],
      ['de-DE', 'en', 'closed'],
    ] as const) {
      const closed = await open(link.id, { 'accept-language': language });
      expect(closed.status, language).to.equal(410);
      expect(closed.text).to.include(`<html lang="${lang}">`).and.include(words);
      expect(closed.headers.get('content-security-policy')).to.include("default-src 'none'");
    }
    const { db } = await getStack();
    expect(await db('checkout_sessions').where({ payment_link: link.id }).first()).to.equal(undefined);
  });

  it('takes a customer-chosen amount and the collected fields on the attempt, refusing bad ones with nothing stored', async () => {
    const link = await createLink(dev, {
      ...CHOSEN,
      after_completion: { type: 'message', message: 'Thank you for the books!' },
    });
    expect(link).to.include({ amount: null });
    expect(link.amount_range).to.deep.equal({ min: 500, max: 50_000 });
    const sessionId = await openSession(link.id);
    const session = (await call(`/v1/checkout/sessions/${sessionId}`, { key: dev.key })).body.data;
    expect(session).to.include({ amount: null, success_url: null, payment_link: link.id });
    const page = (await call(`/v1/checkout/sessions/${sessionId}/public`)).body.data;
    expect(page).to.include({ amount: null, success_url: null, completion_message: 'Thank you for the books!' });
    expect(page.amount_range).to.deep.equal({ min: 500, max: 50_000 });
    expect(page.collect).to.deep.equal(['name', 'email']);

    const who = { name: 'Aline Uwase', email: 'aline@example.rw' };
    const bad: [object, string][] = [
      [{ ...who }, 'amount'],
      [{ ...who, amount: 499 }, 'amount'],
      [{ ...who, amount: 50_001 }, 'amount'],
      [{ ...who, amount: 12.5 }, 'amount'],
      [{ email: who.email, amount: 2_000 }, 'name'],
      [{ name: who.name, amount: 2_000 }, 'email'],
      [{ ...who, email: 'not-an-email', amount: 2_000 }, 'email'],
      [{ ...who, name: '   ', amount: 2_000 }, 'name'],
    ];
    for (const [extra, field] of bad) {
      const refused = await attempt(sessionId, '0788 000 001', extra);
      expect(refused.status, JSON.stringify(extra)).to.equal(400);
      expect(
        refused.body.error.details.map((d: { field: string }) => d.field),
        JSON.stringify(extra),
      ).to.include(field);
    }
    expect(await paymentsOf([sessionId])).to.deep.equal([]);
    expect((await call(`/v1/checkout/sessions/${sessionId}/public`)).body.data.attempts_left).to.equal(10);

    const paid = await attempt(sessionId, '0788 000 001', { ...who, amount: 2_500 });
    expect(paid.status, JSON.stringify(paid.body)).to.equal(201);
    const payment = await waitForPayment(dev.key, paid.body.data.payment, (p) => p.status === 'completed');
    expect(payment).to.include({ amount: 2_500, customer_email: 'aline@example.rw' });
    expect(payment.metadata).to.include({ customer_name: 'Aline Uwase', payment_link: link.id });
    const complete = await waitForSession(dev, sessionId, (s) => s.status === 'complete');
    expect(complete).to.include({ status: 'complete', amount: 2_500, payment: paid.body.data.payment });
  });

  it('completes at most the limit under concurrent payers on different sessions: the extra payers are refused before any prompt', async () => {
    const link = await createLink(dev, { ...FIXED, completed_limit: 2 });
    const sessions = await Promise.all([1, 2, 3, 4, 5].map(() => openSession(link.id)));
    // "other" sandbox numbers wait 3 s for the simulated approval: every admitted attempt is in flight at once.
    const answers = await Promise.all(sessions.map((s, i) => attempt(s, `+25078812340${i}`)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, JSON.stringify(answers.map((a) => a.body))).to.deep.equal([201, 201, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409))
      expect(refused.body.error.code).to.equal('payment_link_exhausted');
    const admitted = answers.filter((a) => a.status === 201).map((a) => a.body.data.payment as string);
    expect((await paymentsOf(sessions)).map((p) => p.id).sort()).to.deep.equal([...admitted].sort());

    const done = await waitForLink(dev, link.id, (l) => l.completed_count === 2);
    expect(done.completed_count).to.equal(2);
    const closed = await open(link.id);
    expect(closed.status).to.equal(410);
    // A session opened before the link filled up still refuses its payer.
    const refusedSession = sessions[answers.findIndex((a) => a.status === 409)] as string;
    const late = await attempt(refusedSession, '+250788123499');
    expect(late.status).to.equal(409);
    expect(late.body.error.code).to.equal('payment_link_exhausted');
    expect((await call(`/v1/payment_links/${link.id}`, { key: dev.key })).body.data.completed_count).to.equal(2);
  });

  it('gives a declined attempt’s place back, so another payer completes the link; an inactive link’s session refuses', async () => {
    const link = await createLink(dev, { ...FIXED, completed_limit: 1 });
    const first = await openSession(link.id);
    const second = await openSession(link.id);
    const declined = await attempt(first, '0788 000 002');
    expect(declined.status, JSON.stringify(declined.body)).to.equal(201);
    // While it is in flight the place is taken.
    const meanwhile = await attempt(second, '0788 000 001');
    if (meanwhile.status === 409) expect(meanwhile.body.error.code).to.equal('payment_link_exhausted');
    await waitForPayment(dev.key, declined.body.data.payment, (p) => p.status === 'failed');
    await waitForSession(dev, first, (s) => s.attempts_count === 1);
    const deadline = Date.now() + 15_000;
    let paid = meanwhile;
    while (paid.status !== 201 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      paid = await attempt(second, '0788 000 001');
    }
    expect(paid.status, JSON.stringify(paid.body)).to.equal(201);
    expect((await waitForLink(dev, link.id, (l) => l.completed_count === 1)).completed_count).to.equal(1);

    const other = await createLink(dev, FIXED);
    const session = await openSession(other.id);
    await call(`/v1/payment_links/${other.id}`, { key: dev.key, method: 'PATCH', body: { active: false } });
    const refused = await attempt(session, '0788 000 001');
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('payment_link_inactive');
    expect(await paymentsOf([session])).to.deep.equal([]);
  });

  it('draws the QR code as SVG and as a PNG of exactly the asked size that decodes to the link’s address', async () => {
    const link = await createLink(dev, FIXED);
    const { baseUrl } = await getStack();
    const get = (path: string) =>
      fetch(`${baseUrl}/v1/payment_links/${link.id}/${path}`, {
        headers: { authorization: `Bearer ${dev.key}` },
      });
    const svg = await get('qr.svg');
    expect(svg.status).to.equal(200);
    expect(svg.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(await svg.text()).to.match(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    for (const [query, size] of [
      ['', 512],
      ['?size=128', 128],
      ['?size=333', 333],
      ['?size=1024', 1024],
    ] as const) {
      const response = await get(`qr.png${query}`);
      expect(response.status, query).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('image/png');
      const png = PNG.sync.read(Buffer.from(await response.arrayBuffer()));
      expect([png.width, png.height], query).to.deep.equal([size, size]);
      expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data, query).to.equal(link.url);
    }
    for (const size of ['127', '1025', 'big', '256.5']) {
      const refused = await call(`/v1/payment_links/${link.id}/qr.png?size=${size}`, { key: dev.key });
      expect(refused.status, size).to.equal(400);
      expect(refused.body.error.details[0].field).to.equal('size');
    }
  });
});

describe('payment links: opening is limited per client address (docs/payment-links.md#opening)', function () {
  this.timeout(60_000);
  let app: Awaited<ReturnType<typeof startApp>>;
  before(async () => {
    app = await startApp(testConfig({ LINK_OPEN_RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_MULTIPLIER: '1' }));
  });
  after(async () => {
    await app?.close();
  });

  it('answers a plain 429 page with Retry-After past the limit, and opens no session for it', async () => {
    const dev = await registerDeveloper();
    const created = await call('/v1/payment_links', { key: dev.key, body: FIXED });
    const id = created.body.data.id as string;
    // Stay inside one clock minute: the windows are aligned to it.
    const secondsLeft = 60 - new Date().getUTCSeconds();
    if (secondsLeft < 5) await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + 100));
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await open(id, {}, app.baseUrl)).status);
    expect(statuses).to.deep.equal([303, 303, 303]);
    const refused = await open(id, { 'accept-language': 'sw' }, app.baseUrl);
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(refused.text).to.include('<html lang="sw">');
    const { db } = await getStack();
    const [row] = await db('checkout_sessions').where({ payment_link: id }).count<{ count: string }[]>('* as count');
    expect(Number(row?.count)).to.equal(3);
  });
});
