/** Payouts in tests over HTTP (docs/payouts.md): a funded sandbox merchant, a wallet destination, a payout awaited. */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from './http';

/** A merchant with `amount` RWF collected on MoMo and made available (fee 1.5 %). */
export async function fundedMerchant(amount: number): Promise<TestDeveloper & { available: number }> {
  const developer = await registerDeveloper();
  const created = await call('/v1/payments', {
    key: developer.key,
    body: { amount, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
  });
  await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
  const settled = await call('/v1/sandbox/balance/settle', { key: developer.key, method: 'POST' });
  const available = settled.body.data.available[0].amount as number;
  return { ...developer, available };
}

/** Adds a sandbox MTN wallet destination ending `ending` (national number 78800xxxx). */
export async function wallet(key: string, ending: string): Promise<string> {
  const added = await call('/v1/payout_destinations', {
    key,
    body: { type: 'mobile_money', phone_number: `+25078800${ending}` },
  });
  expect(added.status, JSON.stringify(added.body)).to.equal(201);
  return added.body.data.id as string;
}

/** Polls the payout until `done` holds (at most `ms`). */
export async function waitForPayout(key: string, id: string, done: (p: any) => boolean, ms = 90_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const shown = await call(`/v1/payouts/${id}`, { key });
    if (done(shown.body.data)) return shown.body.data;
    if (Date.now() > until) throw new Error(`payout ${id} is still ${JSON.stringify(shown.body.data)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
