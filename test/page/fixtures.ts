/**
 * What the hosted page's tests share: a merchant registered for the suite, whose books are checked after it
 * (docs/ledger.md#invariants), and a sandbox checkout session to open the page of.
 */
import { expect } from 'chai';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';

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
