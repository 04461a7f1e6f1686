/**
 * The sandbox simulators at the provider boundary (D14, D16), against the real PostgreSQL ledger:
 * next actions given by the provider, idempotent initiation, the scenario numbers, three-valued
 * refund answers, unsupported flows, signed callbacks and the pump that sends them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Db } from '../../src/db/knex';
import { createDb } from '../../src/db/knex';
import { scheduleSandboxCallbacks } from '../../src/db/sandbox-ledger';
import { initiationRequest } from '../../src/domain/payment';
import { newId } from '../../src/lib/ids';
import { ProviderRefusal, ProviderUnsupported, type InitiateRequest, type PaymentProvider } from '../../src/providers/provider';
import { startSandboxCallbackPump } from '../../src/providers/sandbox/callback-pump';
import { signCallback } from '../../src/providers/sandbox/callback';
import { createSandboxProvider } from '../../src/providers/sandbox/simulator';
import { mobileMoneyPayment } from '../helpers/fixtures';
import { testConfig } from '../helpers/stack';

const SECRET = 's'.repeat(32);

describe('sandbox simulators (D14, D16)', function () {
  this.timeout(30_000);
  let db: Db;
  let momo: PaymentProvider;
  let card: PaymentProvider;
  let bank: PaymentProvider;

  before(() => {
    db = createDb(testConfig().DATABASE_URL, 3);
    const deps = { db, now: () => new Date(), approvalDelayMs: 3_000, bankTransferDelayMs: 30_000, refundUnknownMs: 300, callbackSecret: SECRET };
    momo = createSandboxProvider('momo', 'customer_number', deps);
    card = createSandboxProvider('card_gateway', 'card', deps);
    bank = createSandboxProvider('bank_transfer', 'bank_transfer', deps);
  });
  after(() => db.destroy());

  function request(phone: string, overrides: Partial<InitiateRequest> = {}): InitiateRequest {
    return { ...initiationRequest(mobileMoneyPayment('mer_x', phone)), callbackUrl: 'http://127.0.0.1:9/v1/provider-callbacks/momo', ...overrides };
  }

  async function scheduled(reference: string): Promise<{ body: string; due_at: Date }[]> {
    return db('sandbox_provider_callbacks').where({ provider_reference: reference }).orderBy('due_at').select('body', 'due_at');
  }

  it('gives its own next action: the prompt, the gateway\'s client secret, the transfer instructions', async () => {
    const prompt = await momo.initiate(request('+250788123456'));
    expect(prompt.nextAction).to.deep.include({ type: 'mobile_money_approval' });
    const secret = await card.initiate(request('+250788123456', { customer: 'pay_x' }));
    expect(secret.nextAction?.type === 'card_confirm' && secret.nextAction.client_secret.startsWith(`${secret.providerReference}_secret_`)).to.equal(true);
    const transfer = await bank.initiate(request('+250788123456', { paymentId: 'pay_ABCDEFGHIJKLMNOPQRSTUVWX' }));
    expect(transfer.nextAction).to.include({ type: 'bank_transfer', reference: 'PCABCDEFGHIJKLMNOPQRSTUVWX' });
  });

  it('answers a repeated initiation with the same transaction and next action', async () => {
    const first = await momo.initiate(request('+250788123456'));
    const ask = request('+250788123456');
    const a = await momo.initiate(ask);
    const b = await momo.initiate(ask);
    expect(b).to.deep.equal(a);
    expect(a.providerReference).not.to.equal(first.providerReference);
  });

  it('0001 completes at once, 0002 is declined, 0003 never answers', async () => {
    expect((await momo.initiate(request('+250788000001'))).outcome).to.deep.equal({ status: 'completed' });
    expect((await momo.initiate(request('+250788000002'))).outcome).to.include({ status: 'failed', failureCode: 'declined' });
    const silent = await momo.initiate(request('+250788000003'));
    expect(silent.outcome).to.deep.equal({ status: 'processing' });
    expect(await scheduled(silent.providerReference)).to.deep.equal([]);
  });

  it('0004 succeeds 5 s after expires_at and calls back then', async () => {
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const answer = await momo.initiate(request('+250788000004', { expiresAt }));
    const callbacks = await scheduled(answer.providerReference);
    expect(callbacks).to.have.length(1);
    expect(callbacks[0]?.due_at.getTime()).to.equal(Date.parse(expiresAt) + 5_000);
    expect(JSON.parse(callbacks[0]?.body as string)).to.deep.equal({ provider_reference: answer.providerReference, status: 'succeeded' });
  });

  it('0005 schedules succeeded, succeeded again, then pending after them', async () => {
    const answer = await momo.initiate(request('+250788000005'));
    const statuses = (await scheduled(answer.providerReference)).map((c) => (JSON.parse(c.body) as { status: string }).status);
    expect(statuses).to.deep.equal(['succeeded', 'succeeded', 'pending']);
  });

  it('0008 times out at the door yet keeps the request: the retry answers the same transaction', async () => {
    const ask = request('+250788000008');
    const error = await momo.initiate(ask).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(ProviderRefusal);
    const retried = await momo.initiate(ask);
    expect(retried.outcome).to.deep.equal({ status: 'processing' });
    expect(await db('sandbox_provider_transactions').where({ payment_id: ask.paymentId }).count<{ n: number }[]>('payment_id as n')).to.deep.equal([{ n: 1 }]);
  });

  it('refunds once per key up to the collected amount; 0006 refuses; 0007 is unknown, then pending, then succeeded', async () => {
    const paid = await momo.initiate(request('+250788000001'));
    const refund = (amount: number, key = `refund:${newId('ref_')}`) => momo.refund({ providerReference: paid.providerReference, idempotencyKey: key, amount });
    expect((await refund(1000, 'refund:k1')).status).to.equal('succeeded');
    expect((await refund(1000, 'refund:k1')).status).to.equal('succeeded'); // the same key: nothing more
    expect(await refund(501)).to.include({ status: 'failed' });
    expect((await refund(500)).status).to.equal('succeeded');
    expect(await momo.fetchRefund({ providerReference: paid.providerReference, idempotencyKey: 'refund:never-sent', amount: 1 })).to.deep.equal({ status: 'not_received' });

    const refusing = await momo.initiate(request('+250788000006'));
    await db('sandbox_provider_transactions').where({ provider_reference: refusing.providerReference }).update({ status: 'succeeded' });
    expect(await momo.refund({ providerReference: refusing.providerReference, idempotencyKey: 'refund:k6', amount: 100 })).to.include({ status: 'failed' });

    const slow = await momo.initiate(request('+250788000007'));
    await db('sandbox_provider_transactions').where({ provider_reference: slow.providerReference }).update({ status: 'succeeded' });
    const ask = { providerReference: slow.providerReference, idempotencyKey: `refund:${newId('ref_')}`, amount: 100 };
    expect(await momo.refund(ask).then(() => undefined, (e: unknown) => e)).to.be.instanceOf(Error);
    expect(await momo.fetchRefund(ask)).to.deep.equal({ status: 'pending' });
    await new Promise((r) => setTimeout(r, 350));
    expect((await momo.fetchRefund(ask)).status).to.equal('succeeded');
  });

  it('declares cancel unsupported for mobile money, and cancels at the gateway', async () => {
    const waiting = await momo.initiate(request('+250788000003'));
    expect(momo.supports.cancel).to.equal(false);
    expect(await momo.cancel(waiting.providerReference).then(() => undefined, (e: unknown) => e)).to.be.instanceOf(ProviderUnsupported);
    const confirmable = await card.initiate(request('+250788000003', { customer: 'pay_y' }));
    expect((await card.cancel(confirmable.providerReference)).outcome).to.deep.equal({ status: 'cancelled' });
  });

  it('authenticates callbacks by signature and parses them into hints', () => {
    const rawBody = JSON.stringify({ provider_reference: 'momo_1', status: 'succeeded' });
    expect(momo.parseCallback({ rawBody, headers: { 'x-provider-signature': signCallback(rawBody, SECRET) }, query: {} })).to.deep.equal({ providerReference: 'momo_1', claimed: 'completed' });
    expect(() => momo.parseCallback({ rawBody, headers: { 'x-provider-signature': signCallback(rawBody, 'x'.repeat(32)) }, query: {} })).to.throw(ProviderRefusal);
    expect(() => momo.parseCallback({ rawBody, headers: {}, query: {} })).to.throw(ProviderRefusal);
    const notJson = 'nope';
    expect(() => momo.parseCallback({ rawBody: notJson, headers: { 'x-provider-signature': signCallback(notJson, SECRET) }, query: {} })).to.throw(ProviderRefusal);
  });

  it('sends due callbacks signed, in order, and retries one the receiver refused', async () => {
    const received: { body: string; signature: string | undefined }[] = [];
    let refuseFirst = true;
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (refuseFirst) {
          refuseFirst = false;
          res.writeHead(503).end();
          return;
        }
        received.push({ body, signature: req.headers['x-provider-signature'] as string | undefined });
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/provider-callbacks/momo`;
    const reference = newId('momo_');
    const now = Date.now();
    await scheduleSandboxCallbacks(db, ['first', 'second'].map((tag, i) => ({ provider: 'momo', providerReference: reference, callbackUrl: url, body: JSON.stringify({ tag }), dueAt: new Date(now + i) })));
    // The shared stack's pump, when running, may claim some of them: it signs with the same secret.
    const secret = testConfig().PROVIDER_CALLBACK_SECRET;
    const pump = startSandboxCallbackPump({ db, secret, intervalMs: 50 });
    try {
      const deadline = Date.now() + 10_000;
      while (received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await pump.stop();
      receiver.close();
    }
    expect(received.map((r) => (JSON.parse(r.body) as { tag: string }).tag).sort()).to.deep.equal(['first', 'second']);
    for (const r of received) expect(r.signature).to.equal(signCallback(r.body, secret));
    const rows = await db('sandbox_provider_callbacks').where({ provider_reference: reference }).select('attempts');
    expect(rows.map((row: { attempts: number }) => row.attempts).sort()).to.deep.equal([1, 2]);
  });
});
