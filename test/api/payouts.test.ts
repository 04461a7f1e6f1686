/**
 * Payouts over HTTP against the real stack (docs/payouts.md): each sandbox destination ending end to end with the
 * events a merchant receives, the reservation and its reversal in the ledger, cancel while pending, idempotent
 * creates, bad input that reserves nothing, and twenty concurrent payouts against one balance that never pay out more
 * than was available. The ledger invariants (docs/ledger.md#invariants) are asserted after each.
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';
import { recordHistory } from '../helpers/history';
import { ledgerProblems } from '../helpers/ledger';
import { mailsAbout } from '../helpers/live-access-fixtures';
import { fundedMerchant, waitForPayout, wallet } from '../helpers/payouts';
import { personIdOf, sessionConfirmedAgo, turnOnTwoFactor } from '../helpers/security';
import { getStack } from '../helpers/stack';

async function available(key: string): Promise<number> {
  const balance = await call('/v1/balance', { key });
  return (balance.body.data.available[0]?.amount as number | undefined) ?? 0;
}

async function eventTypes(key: string, payoutId: string): Promise<string[]> {
  const events = await call('/v1/developer/events?limit=100', { key });
  return (events.body.data.events as { event: string; data: { id: string } }[])
    .filter((e) => e.data.id === payoutId)
    .map((e) => e.event)
    .sort();
}

async function expectLedgerHolds(merchantId: string): Promise<void> {
  const { db } = await getStack();
  expect(await ledgerProblems(db, { merchantIds: [merchantId] })).to.deep.equal([]);
}

describe('payouts (docs/payouts.md)', function () {
  this.timeout(180_000);

  it('pays each sandbox destination ending as documented, with its events and postings', async () => {
    const merchant = await fundedMerchant(100_000);
    const key = merchant.key;
    const start = async (ending: string) => {
      const destination = await wallet(key, ending);
      const created = await call('/v1/payouts', {
        key,
        headers: { 'idempotency-key': `ending-${ending}` },
        body: { amount: 1_000, currency: 'RWF', destination },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.data).to.include({ amount: 1_000, fee: 10, currency: 'RWF', destination });
      return created.body.data;
    };
    const [paid, failed, transit, down, unknown, returned] = await Promise.all(
      ['0001', '0002', '0003', '0005', '0007', '0009'].map(start),
    );
    // What the create answers: the rail's first word.
    expect(paid.status).to.equal('paid');
    expect(paid.arrival_date).to.be.a('string');
    expect(failed).to.include({ status: 'failed', failure_code: 'account_invalid' });
    expect(transit.status).to.equal('in_transit');
    expect(down.status).to.equal('pending');
    expect(down.pending_reason).to.match(/down/);
    expect(unknown.status).to.equal('in_transit');
    expect(returned.status).to.equal('paid');
    // Six reserved, the refused one given back: five × 1,010 held or paid.
    const bt = await call(`/v1/balance_transactions/${paid.balance_transaction}`, { key });
    expect(bt.body.data).to.include({ type: 'payout', amount: -1_000, fee: 10, net: -1_010, source: paid.id });
    expect(await available(key)).to.equal(merchant.available - 5 * 1_010);

    const later = await Promise.all([
      waitForPayout(key, transit.id, (p) => p.status === 'paid'),
      waitForPayout(key, down.id, (p) => p.status === 'paid'),
      waitForPayout(key, unknown.id, (p) => p.status === 'paid'),
      waitForPayout(key, returned.id, (p) => p.status === 'returned'),
    ]);
    expect(later[0].timeline.map((s: { status: string }) => s.status)).to.deep.equal(['pending', 'in_transit', 'paid']);
    expect(later[1].pending_reason).to.equal(null);
    expect(later[3].timeline.map((s: { status: string }) => s.status)).to.deep.equal([
      'pending',
      'in_transit',
      'paid',
      'returned',
    ]);
    // The returned one gave amount and fee back: four paid remain.
    expect(await available(key)).to.equal(merchant.available - 4 * 1_010);
    const reversal = await call(`/v1/balance_transactions?source=${returned.id}&type=payout_failure`, { key });
    expect(reversal.body.data.balance_transactions[0]).to.include({ amount: 1_010, fee: 0, net: 1_010 });

    expect(await eventTypes(key, paid.id)).to.deep.equal(['payout.created', 'payout.paid']);
    expect(await eventTypes(key, failed.id)).to.deep.equal(['payout.created', 'payout.failed']);
    expect(await eventTypes(key, returned.id)).to.deep.equal(['payout.created', 'payout.paid', 'payout.returned']);
    const { db } = await getStack();
    // Sent once each, whatever the retries and status calls: one transfer per payout at the rail.
    const transfers = await db('sandbox_provider_payouts').whereIn(
      'payout_id',
      [paid, failed, transit, down, unknown, returned].map((p) => p.id),
    );
    expect(transfers).to.have.length(6);
    await expectLedgerHolds(merchant.merchantId);
  });

  it('lists with cursor pages and filters, and a retried create with the same key reserves once', async () => {
    const merchant = await fundedMerchant(50_000);
    const key = merchant.key;
    const destination = await wallet(key, '0001');
    const body = { amount: 2_000, currency: 'RWF', destination };
    const first = await call('/v1/payouts', { key, headers: { 'idempotency-key': 'same' }, body });
    const again = await call('/v1/payouts', { key, headers: { 'idempotency-key': 'same' }, body });
    expect(again.body.data.id).to.equal(first.body.data.id);
    expect(await available(key)).to.equal(merchant.available - 2_020);
    await call('/v1/payouts', { key, body: { ...body, amount: 1_000 } });
    const page = await call('/v1/payouts?limit=1', { key });
    expect(page.body.data.payouts).to.have.length(1);
    expect(page.body.data.pagination.has_more).to.equal(true);
    const next = await call(`/v1/payouts?limit=1&starting_after=${page.body.data.pagination.next_starting_after}`, {
      key,
    });
    expect(next.body.data.payouts[0].id).to.equal(first.body.data.id);
    const paid = await call(`/v1/payouts?status=paid&destination=${destination}`, { key });
    expect(paid.body.data.payouts).to.have.length(2);
    expect((await call('/v1/payouts?status=nope', { key })).status).to.equal(400);
    const other = await registerDeveloper();
    expect((await call(`/v1/payouts/${first.body.data.id}`, { key: other.key })).status).to.equal(404);
    const foreignCursor = await call(`/v1/payouts?starting_after=${first.body.data.id}`, { key: other.key });
    expect(foreignCursor.status).to.equal(400);
    await expectLedgerHolds(merchant.merchantId);
  });

  it('cancels a pending payout (funds back) and refuses to cancel one its rail has', async () => {
    const merchant = await fundedMerchant(20_000);
    const key = merchant.key;
    const down = await call('/v1/payouts', {
      key,
      body: { amount: 3_000, currency: 'RWF', destination: await wallet(key, '0005') },
    });
    expect(down.body.data.status).to.equal('pending');
    expect(await available(key)).to.equal(merchant.available - 3_030);
    const cancelled = await call(`/v1/payouts/${down.body.data.id}/cancel`, { key, method: 'POST' });
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    expect(cancelled.body.data.status).to.equal('cancelled');
    expect(await available(key)).to.equal(merchant.available);
    const transit = await call('/v1/payouts', {
      key,
      body: { amount: 1_000, currency: 'RWF', destination: await wallet(key, '0003') },
    });
    expect(transit.body.data.status).to.equal('in_transit');
    const refused = await call(`/v1/payouts/${transit.body.data.id}/cancel`, { key, method: 'POST' });
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('payout_not_cancellable');
    expect(await eventTypes(key, down.body.data.id)).to.deep.equal(['payout.created']);
    await recordHistory('payout-rail-down-cancelled', `payout:${down.body.data.id}`);
    await expectLedgerHolds(merchant.merchantId);
  });

  it('refuses bad input naming the reason and reserves nothing', async () => {
    const merchant = await fundedMerchant(10_000);
    const key = merchant.key;
    const destination = await wallet(key, '0001');
    const refusals: [Record<string, unknown>, number, string, string?][] = [
      [{ amount: merchant.available, currency: 'RWF', destination }, 409, 'insufficient_balance'],
      [{ amount: 0, currency: 'RWF', destination }, 400, 'validation_error', 'amount'],
      [{ amount: -5, currency: 'RWF', destination }, 400, 'validation_error', 'amount'],
      [{ amount: 100, currency: 'KES', destination }, 400, 'validation_error', 'currency'],
      [{ amount: 100, currency: 'RWF', destination: 'dst_nope' }, 400, 'validation_error', 'destination'],
    ];
    const other = await fundedMerchant(10_000);
    const foreign = await wallet(other.key, '0001');
    refusals.push([{ amount: 100, currency: 'RWF', destination: foreign }, 400, 'validation_error', 'destination']);
    for (const [body, status, code, field] of refusals) {
      const answer = await call('/v1/payouts', { key, body });
      expect(answer.status, JSON.stringify(body)).to.equal(status);
      expect(answer.body.error.code).to.equal(code);
      if (field) expect(JSON.stringify(answer.body.error)).to.include(field);
    }
    expect(await available(key)).to.equal(merchant.available);
    expect((await call('/v1/payouts', { key })).body.data.payouts).to.deep.equal([]);

    // A negative balance (a refund before the payment's funds were available) pays nothing out.
    const negative = await registerDeveloper();
    const payment = await call('/v1/payments', {
      key: negative.key,
      body: { amount: 1_500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    await waitForPayment(negative.key, payment.body.data.id, (p) => p.status === 'completed');
    await call(`/v1/payments/${payment.body.data.id}/refund`, { key: negative.key, body: { amount: 500 } });
    expect(await available(negative.key)).to.equal(-500);
    const during = await call('/v1/payouts', {
      key: negative.key,
      body: { amount: 1, currency: 'RWF', destination: await wallet(negative.key, '0001') },
    });
    expect(during.status).to.equal(409);
    expect(during.body.error.message).to.match(/negative/);
    await expectLedgerHolds(merchant.merchantId);
    await expectLedgerHolds(negative.merchantId);
  });

  it('twenty concurrent payouts against one balance never pay out more than was available', async () => {
    const merchant = await fundedMerchant(100_000);
    const key = merchant.key;
    const destination = await wallet(key, '0001');
    const each = 10_000 + 100;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('/v1/payouts', { key, body: { amount: 10_000, currency: 'RWF', destination } }),
      ),
    );
    const accepted = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 409);
    expect(accepted.length).to.equal(Math.floor(merchant.available / each));
    expect(refused.length).to.equal(20 - accepted.length);
    for (const r of refused) expect(r.body.error.code).to.equal('insufficient_balance');
    expect(await available(key)).to.equal(merchant.available - accepted.length * each);
    expect(await available(key)).to.be.at.least(0);
    await expectLedgerHolds(merchant.merchantId);
  });

  it('adds, lists and deletes destinations with their verification state; live needs the dashboard step-up', async () => {
    const developer = await registerDeveloper();
    const key = developer.key;
    const verified = await call('/v1/payout_destinations', {
      key,
      body: { type: 'mobile_money', phone_number: '+250788000001' },
    });
    expect(verified.body.data).to.include({
      type: 'mobile_money',
      provider: 'momo',
      last4: '0001',
      status: 'verified',
    });
    expect(Date.parse(verified.body.data.usable_from)).to.be.at.most(Date.now());
    const unverified = await call('/v1/payout_destinations', {
      key,
      body: { type: 'mobile_money', phone_number: '+250788000002' },
    });
    expect(unverified.body.data.status).to.equal('unverified');
    const bank = await call('/v1/payout_destinations', {
      key,
      body: { type: 'bank_account', bank_code: 'BKIGRWRW', account_number: '00040000120001', account_holder_name: 'A' },
    });
    expect(bank.body.data).to.include({ type: 'bank_account', provider: 'bank_transfer', last4: '0001' });
    expect(bank.body.data.status).to.equal('pending_verification');
    const bad = await call('/v1/payout_destinations', { key, body: { type: 'mobile_money', phone_number: '0788' } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.message).to.include('phone_number');
    const listed = await call('/v1/payout_destinations', { key });
    expect(listed.body.data.payout_destinations).to.have.length(3);
    const other = await registerDeveloper();
    expect(
      (await call(`/v1/payout_destinations/${bank.body.data.id}`, { key: other.key, method: 'DELETE' })).status,
    ).to.equal(404);
    expect((await call(`/v1/payout_destinations/${bank.body.data.id}`, { key, method: 'DELETE' })).status).to.equal(
      200,
    );
    expect((await call('/v1/payout_destinations', { key })).body.data.payout_destinations).to.have.length(2);
    const live = await call('/v1/payout_destinations?environment=live', {
      headers: { authorization: `Bearer ${developer.token}` },
      body: { type: 'mobile_money', phone_number: '+250788000001' },
    });
    expect(live.status).to.equal(403);
    expect(live.body.error.message).to.match(/two-factor/);
  });
  it('reaches a wallet rail that claims no prefixes (Wave) by operator, and refuses an operator that does not pay the country, naming it (docs/payouts.md#wave-payouts)', async () => {
    const { key } = await registerDeveloper();
    const add = (body: object) => call('/v1/payout_destinations', { key, body: { type: 'mobile_money', ...body } });
    const unnamed = await add({ phone_number: '+221771230001' });
    expect(unnamed.status).to.equal(400);
    expect(JSON.stringify(unnamed.body.error)).to.include('phone_number');
    const wave = await add({ phone_number: '+221771230001', operator: 'wave' });
    expect(wave.status, JSON.stringify(wave.body)).to.equal(201);
    expect(wave.body.data).to.include({ type: 'mobile_money', provider: 'wave', last4: '0001' });
    const ported = await add({ phone_number: '+250788000003', operator: 'mobile_money_b' });
    expect(ported.body.data).to.include({ provider: 'mobile_money_b' });
    const elsewhere = await add({ phone_number: '+250788000001', operator: 'wave' });
    expect(elsewhere.status).to.equal(400);
    expect(elsewhere.body.error.message).to.include('wave does not pay out to RW');
    const unknown = await add({ phone_number: '+221771230001', operator: 'orange' });
    expect(unknown.status).to.equal(400);
    expect(JSON.stringify(unknown.body.error)).to.include('operator');
    expect((await call('/v1/payout_destinations', { key })).body.data.payout_destinations).to.have.length(2);
  });

  it('in live: a destination needs a recent two-factor code, e-mails the owner and is usable 24 hours later', async () => {
    const developer = await turnOnTwoFactor(await registerDeveloper());
    const body = { type: 'mobile_money', phone_number: '+250788004321' };
    const path = '/v1/payout_destinations?environment=live';
    const stale = await sessionConfirmedAgo(await personIdOf(developer.email), developer.merchantId, 600);
    const late = await call(path, { key: stale, body });
    expect(late.status).to.equal(403);
    expect(late.body.error.message).to.include('/v1/developer/2fa/verify');
    const byKey = await call('/v1/payout_destinations', { key: developer.key, body });
    expect(byKey.status).to.equal(201); // the sandbox key adds a sandbox destination, usable at once

    const added = await call(path, { key: developer.token, body });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    const usableFrom = Date.parse(added.body.data.usable_from);
    expect(usableFrom - Date.now()).to.be.within(86_400_000 - 60_000, 86_400_000);
    const { config, db } = await getStack();
    const [mail] = mailsAbout(config.MAIL_OUTBOX_DIR, added.body.data.id);
    expect(mail?.to).to.include(developer.email);
    expect(mail?.body).to.include('ending 4321');

    const early = await call('/v1/payouts?environment=live', {
      key: developer.token,
      body: { amount: 1_000, currency: 'RWF', destination: added.body.data.id },
    });
    expect(early.status).to.equal(409);
    expect(early.body.error).to.include({ code: 'conflict' });
    expect(early.body.error.message).to.include('usable from');
    expect(await db('payouts').where({ merchant_id: developer.merchantId })).to.deep.equal([]);

    const withoutTwoFactor = await registerDeveloper();
    const refused = await call(path, { key: withoutTwoFactor.token, body });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.message).to.match(/two-factor on/);
  });
  it('pays out the balance above the minimum on a Temporal Schedule, naming the balance transactions it covers', async () => {
    const merchant = await fundedMerchant(50_000);
    const key = merchant.key;
    const destination = await wallet(key, '0001');
    const refused = await call('/v1/payout_schedule', {
      key,
      method: 'PUT',
      body: { schedule: 'daily', currency: 'RWF' },
    });
    expect(refused.status).to.equal(400);
    expect(JSON.stringify(refused.body.error)).to.include('destination');
    const unknown = await call('/v1/payout_schedule', {
      key,
      method: 'PUT',
      body: { schedule: 'manual', destination: 'dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz' },
    });
    expect(unknown.status).to.equal(400);
    expect(JSON.stringify(unknown.body.error)).to.include('destination');
    const set = await call('/v1/payout_schedule', {
      key,
      method: 'PUT',
      body: { schedule: 'daily', destination, currency: 'RWF', minimum: 10_000 },
    });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body.data).to.include({ schedule: 'daily', destination, minimum: 10_000 });
    expect((await call('/v1/payout_schedule', { key })).body.data.schedule).to.equal('daily');
    const { client, db } = await getStack();
    const handle = client.schedule.getHandle(`payout-schedule:${merchant.merchantId}:sandbox`);
    const described = await handle.describe();
    expect(described.spec.calendars?.[0]?.hour).to.deep.equal([{ start: 6, end: 6, step: 1 }]);
    await handle.trigger();
    const until = Date.now() + 60_000;
    let automatic: any;
    while (!automatic) {
      automatic = (await call('/v1/payouts', { key })).body.data.payouts.find(
        (p: { automatic: boolean }) => p.automatic,
      );
      if (!automatic && Date.now() > until) throw new Error('no automatic payout');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // 49,250 available, 10,000 kept: the payout and its 1 % fee fit in the 39,250 above it.
    expect(automatic.amount + automatic.fee).to.be.at.most(merchant.available - 10_000);
    expect(automatic.amount + automatic.fee).to.be.at.least(merchant.available - 10_000 - 1);
    await waitForPayout(key, automatic.id, (p) => p.status === 'paid');
    const covered = await call(`/v1/balance_transactions?payout=${automatic.id}`, { key });
    expect(covered.body.data.balance_transactions.map((t: { type: string }) => t.type).sort()).to.deep.equal([
      'payment',
      'payout',
    ]);
    // Set back to manual: the Schedule is gone.
    await call('/v1/payout_schedule', { key, method: 'PUT', body: { schedule: 'manual' } });
    const gone = await handle.describe().then(
      () => false,
      () => true,
    );
    expect(gone).to.equal(true);
    expect(await db('ledger_balance_transactions').where({ payout_id: automatic.id })).to.have.length(2);
    const runs = client.workflow.list({
      query: `WorkflowType = 'automaticPayoutWorkflow' AND MerchantId = '${merchant.merchantId}'`,
    });
    for await (const run of runs) await recordHistory('payout-automatic', run.workflowId);
    await expectLedgerHolds(merchant.merchantId);
  });
});
