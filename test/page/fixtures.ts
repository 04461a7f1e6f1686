/**
 * What the hosted page's tests share: a merchant registered for the suite, whose books are checked after it
 * (docs/ledger.md#invariants), a sandbox checkout session to open the page of, and the page's requests (plain
 * fetches, redirects not followed, forms posted as a browser without JavaScript posts them) with the checks every
 * answer passes.
 */
import { expect } from 'chai';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';
import { sha256Source } from '../../src/page/security';

/** A session's fields unless a test says otherwise: RWF 5,000 of school fees. */
export const SESSION = {
  amount: 5_000,
  currency: 'RWF',
  description: 'School fees, term 1',
  success_url: 'https://school.example/paid',
};

/** Registers a merchant before the suite's tests and checks its ledger after them; call inside `describe`. */
export function merchantOfSuite(): () => TestDeveloper {
  let dev: TestDeveloper | undefined;
  before(async () => {
    dev = await registerDeveloper();
  });
  after(async () => {
    const { db } = await getStack();
    expect(await ledgerProblems(db, { merchantIds: [(dev as TestDeveloper).merchantId] })).to.deep.equal([]);
  });
  return () => dev as TestDeveloper;
}

/** Creates a checkout session of `dev` with {@link SESSION}'s fields and `extra` → its id and page address. */
export async function createSession(dev: TestDeveloper, extra: object = {}): Promise<{ id: string; url: string }> {
  const created = await call('/v1/checkout/sessions', {
    key: dev.key,
    body: { ...SESSION, ...extra },
    headers: { 'idempotency-key': `page-${Math.random()}` },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data;
}

export interface PageAnswer {
  status: number;
  headers: Headers;
  html: string;
}

/** One request to the page, redirects not followed. */
export async function page(path: string, init: RequestInit = {}): Promise<PageAnswer> {
  const { baseUrl } = await getStack();
  const response = await fetch(baseUrl + path, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/** Posts the page's form as a browser does (same origin). */
export function postForm(id: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return page(`/pay/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Follows an attempt's page as its meta refresh would, until `done` holds (20 s at most). */
export async function follow(path: string, done: (answer: PageAnswer) => boolean): Promise<PageAnswer> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await page(path);
    if (done(answer) || Date.now() > deadline) return answer;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** The checks every page answer passes (docs/hosted-page.md#security). */
export function expectSecurityHeaders(answer: PageAnswer): void {
  const csp = answer.headers.get('content-security-policy') ?? '';
  expect(csp).to.include("default-src 'none'");
  expect(csp).to.include("script-src 'self'");
  expect(csp).to.include("frame-ancestors 'none'");
  expect(csp).to.not.include('unsafe-inline');
  expect(csp).to.not.include('stripe');
  expect(answer.headers.get('x-frame-options')).to.equal('DENY');
  expect(answer.headers.get('referrer-policy')).to.equal('no-referrer');
  expect(answer.headers.get('x-content-type-options')).to.equal('nosniff');
  if (answer.headers.get('content-type')?.startsWith('text/html')) {
    // No inline script at all; every inline style is allowed by its hash, and only scripts of this server load.
    expect(answer.html).to.not.match(/<script(?![^>]*\ssrc=)[^>]*>/);
    for (const src of answer.html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) expect(src[1]).to.match(/^\/pay\/assets\//);
    for (const style of answer.html.matchAll(/<style>([\s\S]*?)<\/style>/g))
      expect(csp).to.include(sha256Source(style[1] as string));
    expect(answer.html).to.not.match(/\sstyle="/);
  }
}

/** The attempt's page a 303 of the form leads to. */
export function attemptPath(answer: PageAnswer): string {
  expect(answer.status, answer.html).to.equal(303);
  const location = answer.headers.get('location') ?? '';
  expect(location).to.match(/^\/pay\/cs_[A-Za-z0-9]+\/attempts\/pay_[A-Za-z0-9]+/);
  return location;
}
