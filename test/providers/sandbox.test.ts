/**
 * The sandbox simulators at the provider boundary (docs/payments.md#sandbox-scenarios, docs/providers.md#adapters),
 * against the real PostgreSQL ledger:
 * next actions given by the provider, idempotent initiation, every scenario number, three-valued
 * refund answers, unsupported flows, signed callbacks and the pump that sends them.
 * The simulators' clock is a test clock moved by hand, so settle times are exact; the pump runs on
 * the wall clock against local receivers.
 */
import { expect } from 'chai';
import type { Db } from '../../src/db/knex';
import { createDb } from '../../src/db/knex';
import {
  createSandboxLedger,
  decidePendingSandboxTransaction,
  scheduleSandboxCallbacks,
} from '../../src/db/sandbox-ledger';
import { initiationRequest } from '../../src/domain/payment';
import { newId } from '../../src/lib/ids';
import {
  ProviderRefusal,
  ProviderUnsupported,
  type InitiateRequest,
  type PaymentProvider,
} from '../../src/providers/provider';
import { MAX_CALLBACK_ATTEMPTS, startSandboxCallbackPump } from '../../src/providers/sandbox/callback-pump';
import { signCallback } from '../../src/providers/sandbox/callback';
import { createSandboxProvider, type SandboxDeps } from '../../src/providers/sandbox/simulator';
import { sandboxReceiptNumber } from '../../src/providers/sandbox/statuses';
import { mobileMoneyPayment } from '../helpers/fixtures';
import { eventually } from '../helpers/live-access-fixtures';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { testConfig } from '../helpers/stack';
import { rejectionOf } from '../helpers/adapters';

const SECRET = 's'.repeat(32);
const APPROVAL_DELAY_MS = 3_000;
const BANK_DELAY_MS = 30_000;
const REFUND_UNKNOWN_MS = 300;

describe('sandbox simulators (docs/payments.md#sandbox-scenarios, docs/providers.md#adapters)', function () {
  this.timeout(30_000);
  let db: Db;
  /** The simulators' clock; tests move it with `advance`. */
  let clock: number;
  let momo: PaymentProvider;
  let card: PaymentProvider;
  let bank: PaymentProvider;
  /** Where the adapter tests' callbacks go (any pump may send them); answers 204. */
  let sink: Receiver;

  const advance = (ms: number) => {
    clock += ms;
  };

  before(async () => {
    db = createDb(testConfig().DATABASE_URL, 3);
    sink = await startReceiver();
    clock = Date.now();
    const deps: SandboxDeps = {
      ledger: createSandboxLedger(db),
      now: () => new Date(clock),
      approvalDelayMs: APPROVAL_DELAY_MS,
      bankTransferDelayMs: BANK_DELAY_MS,
      refundUnknownMs: REFUND_UNKNOWN_MS,
      callbackSecret: SECRET,
    };
    momo = createSandboxProvider('momo', 'customer_number', deps);
    card = createSandboxProvider('card_gateway', 'card', deps);
    bank = createSandboxProvider('bank_transfer', 'bank_transfer', deps);
  });
  after(async () => {
    await sink.close();
    await db.destroy();
  });

  /** A fresh payment's initiation request for `phone`, expiring 10 min after the test clock, calling back the sink. */
  function request(phone: string, overrides: Partial<InitiateRequest> = {}): InitiateRequest {
    return {
      ...initiationRequest(mobileMoneyPayment('mer_x', phone, { nowMs: clock })),
      callbackUrl: `${sink.origin}/v1/provider-callbacks/momo`,
      ...overrides,
    };
  }

  /** The callbacks scheduled for `reference`, in due order. */
  async function scheduled(reference: string): Promise<{ status: string; dueAt: number }[]> {
    const rows: { body: string; due_at: Date }[] = await db('sandbox_provider_callbacks')
      .where({ provider_reference: reference })
      .orderBy([{ column: 'due_at' }, { column: 'id' }])
      .select('body', 'due_at');
    return rows.map((row) => ({
      status: (JSON.parse(row.body) as { status: string }).status,
      dueAt: row.due_at.getTime(),
    }));
  }

  describe('initiation', () => {
    it("gives its own next action: the mobile-money prompt, the gateway's client secret, the transfer instructions", async () => {
      const prompt = await momo.initiate(request('+250788123456'));
      expect(prompt.nextAction).to.deep.equal({
        type: 'mobile_money_approval',
        message: 'A payment prompt was sent to +250788123456; the customer approves it on their phone',
      });
      const secret = await card.initiate(request('+250788123456', { customer: 'pay_x' }));
      expect(secret.nextAction?.type).to.equal('card_confirm');
      expect(secret.nextAction?.type === 'card_confirm' && secret.nextAction.client_secret).to.match(
        new RegExp(`^${secret.providerReference}_secret_[0-9A-Za-z]{24}$`),
      );
      const transfer = await bank.initiate(request('+250788123456', { paymentId: 'pay_ABCDEFGHIJKLMNOPQRSTUVWX' }));
      expect(transfer.nextAction).to.deep.equal({
        type: 'bank_transfer',
        bank_name: 'Sandbox Bank of Kigali',
        account_name: 'PayCollect Sandbox Collections',
        account_number: '000400012345',
        reference: 'PCABCDEFGHIJKLMNOPQRSTUVWX',
      });
      for (const answer of [prompt, secret, transfer]) expect(answer.outcome).to.deep.equal({ status: 'pending' });
    });

    it('answers a repeated initiation with the same transaction and the same next action', async () => {
      for (const provider of [momo, card, bank]) {
        const ask = request('+250788123456');
        const first = await provider.initiate(ask);
        const again = await provider.initiate(ask);
        expect(again).to.deep.equal(first);
        expect(
          await db('sandbox_provider_transactions')
            .where({ idempotency_key: ask.idempotencyKey })
            .count<{ n: number }[]>('* as n'),
        ).to.deep.equal([{ n: 1 }]);
      }
    });

    it('answers concurrent initiations with one key with one transaction, with and without callbacks to schedule', async () => {
      for (const callbackUrl of [null, `${sink.origin}/v1/provider-callbacks/momo`]) {
        const ask = request('+250788123456', { callbackUrl });
        const answers = await Promise.all([1, 2, 3, 4].map(() => momo.initiate(ask)));
        expect(new Set(answers.map((answer) => answer.providerReference)).size).to.equal(1);
        expect(
          await db('sandbox_provider_transactions')
            .where({ idempotency_key: ask.idempotencyKey })
            .count<{ n: number }[]>('* as n'),
        ).to.deep.equal([{ n: 1 }]);
        expect(await scheduled(answers[0]!.providerReference)).to.have.length(callbackUrl ? 1 : 0);
      }
    });

    it('answers a first initiation that is already due as settled: with no approval delay the answer is completed', async () => {
      const instant = createSandboxProvider('momo', 'customer_number', {
        ledger: createSandboxLedger(db),
        now: () => new Date(clock),
        approvalDelayMs: 0,
        bankTransferDelayMs: BANK_DELAY_MS,
        callbackSecret: SECRET,
      });
      expect((await instant.initiate(request('+250788123456'))).outcome).to.include({ status: 'completed' });
    });

    it('answers a repeated initiation as the transaction stands now: a due approval is settled by the repeat', async () => {
      const ask = request('+250788123456');
      expect((await momo.initiate(ask)).outcome).to.deep.equal({ status: 'pending' });
      advance(APPROVAL_DELAY_MS);
      expect((await momo.initiate(ask)).outcome).to.include({ status: 'completed' });
    });

    it('any other number completes after the approval delay and calls back then', async () => {
      const answer = await momo.initiate(request('+250788123456'));
      expect(await scheduled(answer.providerReference)).to.deep.equal([
        { status: 'succeeded', dueAt: clock + APPROVAL_DELAY_MS },
      ]);
      advance(APPROVAL_DELAY_MS - 1);
      expect((await momo.fetchStatus(answer.providerReference)).outcome).to.deep.equal({ status: 'pending' });
      advance(1);
      // With a simulated receipt number of the documented shape, the same at every answer.
      const receiptNumber = sandboxReceiptNumber(answer.providerReference);
      expect(receiptNumber).to.match(/^SBX[0-9A-F]{7}$/);
      expect((await momo.fetchStatus(answer.providerReference)).outcome).to.deep.equal({
        status: 'completed',
        receiptNumber,
      });
      expect((await momo.fetchStatus(answer.providerReference)).outcome).to.deep.include({ receiptNumber });
    });

    it('schedules no callback when it is given no callback URL', async () => {
      const answer = await momo.initiate(request('+250788123456', { callbackUrl: null }));
      expect(await scheduled(answer.providerReference)).to.deep.equal([]);
    });

    it('refuses a reference it does not know', async () => {
      expect(await rejectionOf(momo.fetchStatus('momo_unknown'))).to.be.instanceOf(ProviderRefusal);
      const other = await card.initiate(request('+250788123456', { customer: 'pay_x' }));
      expect(await rejectionOf(momo.fetchStatus(other.providerReference))).to.be.instanceOf(ProviderRefusal);
    });
  });

  describe('scenario numbers (docs/payments.md#sandbox-scenarios)', () => {
    it('0001 completes at once', async () => {
      expect((await momo.initiate(request('+250788000001'))).outcome).to.include({ status: 'completed' });
    });

    it('0002 is an accepted request the customer declined', async () => {
      const answer = await momo.initiate(request('+250788000002'));
      expect(answer.outcome).to.deep.equal({
        status: 'failed',
        failureCode: 'declined',
        failureMessage: 'The customer declined the payment request',
      });
      expect(answer.nextAction?.type).to.equal('mobile_money_approval');
    });

    it('0003 never answers and sends nothing', async () => {
      const answer = await momo.initiate(request('+250788000003'));
      advance(24 * 3600_000);
      expect((await momo.fetchStatus(answer.providerReference)).outcome).to.deep.equal({ status: 'pending' });
      expect(await scheduled(answer.providerReference)).to.deep.equal([]);
    });

    it('0004 says nothing before expiry and succeeds 5 s after expires_at, calling back then', async () => {
      const expiresAt = new Date(clock + 60_000).toISOString();
      const answer = await momo.initiate(request('+250788000004', { expiresAt }));
      expect(await scheduled(answer.providerReference)).to.deep.equal([
        { status: 'succeeded', dueAt: Date.parse(expiresAt) + 5_000 },
      ]);
      advance(60_000);
      expect((await momo.fetchStatus(answer.providerReference)).outcome).to.deep.equal({ status: 'pending' });
      advance(5_000 - 1);
      expect((await momo.fetchStatus(answer.providerReference)).outcome).to.deep.equal({ status: 'pending' });
      advance(1);
      expect((await momo.fetchStatus(answer.providerReference)).outcome).to.include({ status: 'completed' });
    });

    it('0005 completes after the approval delay and schedules succeeded, succeeded again, then pending', async () => {
      const answer = await momo.initiate(request('+250788000005'));
      const settle = clock + APPROVAL_DELAY_MS;
      expect(await scheduled(answer.providerReference)).to.deep.equal([
        { status: 'succeeded', dueAt: settle },
        { status: 'succeeded', dueAt: settle + 500 },
        { status: 'pending', dueAt: settle + 1_000 },
      ]);
      advance(APPROVAL_DELAY_MS);
      expect((await momo.fetchStatus(answer.providerReference)).outcome).to.include({ status: 'completed' });
    });

    it('0006 completes, and every refund is refused by the provider', async () => {
      const answer = await momo.initiate(request('+250788000006'));
      advance(APPROVAL_DELAY_MS);
      expect((await momo.fetchStatus(answer.providerReference)).outcome).to.include({ status: 'completed' });
      const ask = {
        providerReference: answer.providerReference,
        idempotencyKey: `refund:${newId('ref_')}`,
        amount: 100,
        paymentAmount: 1500,
        currency: 'RWF' as const,
      };
      expect(await momo.refund(ask)).to.deep.equal({
        status: 'failed',
        failureMessage: 'the provider refused the refund',
      });
      expect(await momo.fetchRefund(ask)).to.deep.equal({ status: 'not_received' });
    });

    it("0007: a refund's answer is unknown, then pending, then succeeded", async () => {
      const answer = await momo.initiate(request('+250788000007'));
      advance(APPROVAL_DELAY_MS);
      const ask = {
        providerReference: answer.providerReference,
        idempotencyKey: `refund:${newId('ref_')}`,
        amount: 100,
        paymentAmount: 1500,
        currency: 'RWF' as const,
      };
      const unknown = await rejectionOf(momo.refund(ask));
      expect(unknown).to.be.instanceOf(Error).and.not.be.instanceOf(ProviderRefusal);
      expect(await momo.fetchRefund(ask)).to.deep.equal({ status: 'pending' });
      // Sent again with the same key: still unknown, and nothing more is refunded.
      expect(await rejectionOf(momo.refund(ask))).to.be.instanceOf(Error);
      advance(REFUND_UNKNOWN_MS - 1);
      expect(await momo.fetchRefund(ask)).to.deep.equal({ status: 'pending' });
      advance(1);
      const settled = await momo.fetchRefund(ask);
      expect(settled.status).to.equal('succeeded');
      expect(await momo.refund(ask)).to.deep.equal(settled);
      expect(
        await db('sandbox_provider_transactions')
          .where({ provider_reference: answer.providerReference })
          .first('refunded_amount'),
      ).to.deep.equal({ refunded_amount: 100 });
    });

    it('0008 times out at the door yet keeps the request: the retry answers the same transaction, which succeeds 5 s later', async () => {
      const ask = request('+250788000008');
      const error = await rejectionOf(momo.initiate(ask));
      expect(error).to.be.instanceOf(Error).and.not.be.instanceOf(ProviderRefusal);
      expect((error as Error).message).to.match(/time-out/);
      const stored: { provider_reference: string }[] = await db('sandbox_provider_transactions')
        .where({ payment_id: ask.paymentId })
        .select('provider_reference');
      expect(stored).to.have.length(1);
      const reference = stored[0]?.provider_reference as string;
      expect(await scheduled(reference)).to.deep.equal([{ status: 'succeeded', dueAt: clock + 5_000 }]);

      const retried = await momo.initiate(ask);
      expect(retried).to.deep.include({ providerReference: reference, outcome: { status: 'pending' } });
      expect(retried.nextAction?.type).to.equal('mobile_money_approval');
      advance(5_000);
      expect(await momo.initiate(ask)).to.deep.include({
        providerReference: reference,
        outcome: { status: 'completed', receiptNumber: sandboxReceiptNumber(reference) },
      });
      expect(await scheduled(reference)).to.have.length(1);
    });
  });

  describe('refunds', () => {
    it('refunds once per key, never more than the collected amount in total', async () => {
      const paid = await momo.initiate(request('+250788000001'));
      const refund = (amount: number, key = `refund:${newId('ref_')}`) =>
        momo.refund({
          providerReference: paid.providerReference,
          idempotencyKey: key,
          amount,
          paymentAmount: 1500,
          currency: 'RWF' as const,
        });
      const first = await refund(1000, 'refund:k1-' + paid.providerReference);
      expect(first.status).to.equal('succeeded');
      expect(await refund(1000, 'refund:k1-' + paid.providerReference)).to.deep.equal(first);
      expect(await refund(501)).to.deep.equal({
        status: 'failed',
        failureMessage: 'the provider refused the refund: it exceeds what is left to refund',
      });
      expect((await refund(500)).status).to.equal('succeeded');
      expect((await refund(1)).status).to.equal('failed');
      expect(
        await db('sandbox_provider_transactions')
          .where({ provider_reference: paid.providerReference })
          .first('refunded_amount'),
      ).to.deep.equal({ refunded_amount: 1500 });
    });

    it('never exceeds the collected amount when refunds of one payment race', async () => {
      const paid = await momo.initiate(request('+250788000001'));
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          momo.refund({
            providerReference: paid.providerReference,
            idempotencyKey: `refund:${newId('ref_')}`,
            amount: 500,
            paymentAmount: 1500,
            currency: 'RWF' as const,
          }),
        ),
      );
      expect(answers.filter((a) => a.status === 'succeeded')).to.have.length(3);
      expect(
        await db('sandbox_provider_transactions')
          .where({ provider_reference: paid.providerReference })
          .first('refunded_amount'),
      ).to.deep.equal({ refunded_amount: 1500 });
    });

    it('refuses to refund a payment it has not collected', async () => {
      const waiting = await momo.initiate(request('+250788000003'));
      expect(
        await momo.refund({
          providerReference: waiting.providerReference,
          idempotencyKey: `refund:${newId('ref_')}`,
          amount: 1,
          paymentAmount: 1500,
          currency: 'RWF' as const,
        }),
      ).to.deep.equal({
        status: 'failed',
        failureMessage: 'the provider refused the refund: the payment was not collected',
      });
    });

    it('answers not_received for a refund key it never got, so the caller may send it again', async () => {
      const paid = await momo.initiate(request('+250788000001'));
      const ask = {
        providerReference: paid.providerReference,
        idempotencyKey: `refund:${newId('ref_')}`,
        amount: 1,
        paymentAmount: 1500,
        currency: 'RWF' as const,
      };
      expect(await momo.fetchRefund(ask)).to.deep.equal({ status: 'not_received' });
      const sent = await momo.refund(ask);
      expect(await momo.fetchRefund(ask)).to.deep.equal(sent);
    });
  });

  describe('cancel', () => {
    it('declares cancel unsupported for customer-number providers', async () => {
      const waiting = await momo.initiate(request('+250788000003'));
      expect(momo.supports).to.deep.equal({ cancel: false, refund: true, partialRefund: true });
      const error = await rejectionOf(momo.cancel(waiting.providerReference));
      expect(error).to.be.instanceOf(ProviderUnsupported).and.to.include({ provider: 'momo', flow: 'cancel' });
      expect((await momo.fetchStatus(waiting.providerReference)).outcome).to.deep.equal({ status: 'pending' });
    });

    it('cancels at the card gateway and the bank, withdrawing the callbacks that would have followed', async () => {
      expect(card.supports).to.deep.equal({ cancel: true, refund: true, partialRefund: true });
      expect(bank.supports).to.deep.equal({ cancel: true, refund: true, partialRefund: true });
      const confirmable = await card.initiate(request('+250788000003', { customer: 'pay_y' }));
      expect((await card.cancel(confirmable.providerReference)).outcome).to.deep.equal({ status: 'cancelled' });
      const transfer = await bank.initiate(request('+250788000003'));
      expect(await scheduled(transfer.providerReference)).to.deep.equal([
        { status: 'succeeded', dueAt: clock + BANK_DELAY_MS },
      ]);
      expect((await bank.cancel(transfer.providerReference)).outcome).to.deep.equal({ status: 'cancelled' });
      expect(await scheduled(transfer.providerReference)).to.deep.equal([]);
    });

    it('loses to a success that came first (docs/payments.md#states): the bank transfer had already arrived', async () => {
      const transfer = await bank.initiate(request('+250788000003'));
      advance(BANK_DELAY_MS);
      expect((await bank.cancel(transfer.providerReference)).outcome).to.include({ status: 'completed' });
    });
  });

  it('keeps the first decision of a transaction (card confirm, bank simulate): a second one decides nothing', async () => {
    const confirmable = await card.initiate(request('+250788000003', { customer: 'pay_z' }));
    const first = await decidePendingSandboxTransaction(
      db,
      confirmable.providerReference,
      { status: 'failed', failureCode: 'card_declined', failureMessage: 'The card was declined' },
      new Date(clock),
    );
    expect(first?.decided).to.equal(true);
    const second = await decidePendingSandboxTransaction(
      db,
      confirmable.providerReference,
      { status: 'succeeded' },
      new Date(clock),
    );
    expect(second?.decided).to.equal(false);
    expect((await card.fetchStatus(confirmable.providerReference)).outcome).to.deep.equal({
      status: 'failed',
      failureCode: 'card_declined',
      failureMessage: 'The card was declined',
    });
    expect(
      await decidePendingSandboxTransaction(db, 'card_gateway_unknown', { status: 'succeeded' }, new Date(clock)),
    ).to.equal(undefined);
  });

  it('authenticates callbacks by signature and parses them into hints', () => {
    const rawBody = JSON.stringify({ provider_reference: 'momo_1', status: 'succeeded' });
    const signed = (body: string, secret = SECRET) => ({
      rawBody: body,
      headers: { 'x-provider-signature': signCallback(body, secret) },
      query: {},
    });
    expect(signCallback(rawBody, SECRET)).to.match(/^sha256=[0-9a-f]{64}$/);
    expect(momo.parseCallback(signed(rawBody))).to.deep.equal({ providerReference: 'momo_1', claimed: 'completed' });
    expect(
      momo.parseCallback(signed(JSON.stringify({ provider_reference: 'momo_1', status: 'pending' }))),
    ).to.deep.equal({ providerReference: 'momo_1', claimed: 'pending' });
    expect(() => momo.parseCallback(signed(rawBody, 'x'.repeat(32)))).to.throw(ProviderRefusal);
    expect(() => momo.parseCallback({ rawBody, headers: {}, query: {} })).to.throw(ProviderRefusal);
    expect(() => momo.parseCallback(signed('nope'))).to.throw(ProviderRefusal);
    expect(() =>
      momo.parseCallback(signed(JSON.stringify({ provider_reference: 'momo_1', status: 'settled' }))),
    ).to.throw(ProviderRefusal);
  });

  describe('callback pump', () => {
    // In the whole suite the shared stack's pump runs too and may send some of these rows: it signs
    // with the same secret, and a row is sent by one pump at a time, so what is asserted holds.
    const secret = testConfig().PROVIDER_CALLBACK_SECRET;
    let receiver: Receiver;
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(() => receiver.close());

    async function schedule(reference: string, tags: string[], now = Date.now()): Promise<void> {
      await scheduleSandboxCallbacks(
        db,
        tags.map((tag, i) => ({
          provider: 'momo',
          providerReference: reference,
          callbackUrl: `${receiver.origin}/v1/provider-callbacks/momo`,
          body: JSON.stringify({ tag }),
          dueAt: new Date(now - 10 + i),
        })),
      );
    }

    async function rows(reference: string): Promise<{ attempts: number; sent: boolean }[]> {
      const found: { attempts: number; sent_at: Date | null }[] = await db('sandbox_provider_callbacks')
        .where({ provider_reference: reference })
        .orderBy('id')
        .select('attempts', 'sent_at');
      return found.map((row) => ({ attempts: row.attempts, sent: row.sent_at !== null }));
    }

    it("POSTs due callbacks signed, one payment's in due order, and marks them sent", async () => {
      const reference = newId('momo_');
      await schedule(reference, ['first', 'second', 'third']);
      const pump = startSandboxCallbackPump({ callbacks: createSandboxLedger(db), secret, intervalMs: 20 });
      try {
        await receiver.waitFor(3, 10_000);
      } finally {
        await pump.stop();
      }
      expect(receiver.requests.map((r) => (JSON.parse(r.body) as { tag: string }).tag)).to.deep.equal([
        'first',
        'second',
        'third',
      ]);
      for (const r of receiver.requests) {
        expect(r).to.include({ method: 'POST', path: '/v1/provider-callbacks/momo' });
        expect(r.headers['content-type']).to.equal('application/json');
        expect(r.headers['x-provider-signature']).to.equal(signCallback(r.body, secret));
      }
      // The shared stack's pump may have sent the last row and not yet marked it: wait for its mark too.
      const sentRows = await eventually(
        async () => {
          const found = await rows(reference);
          return found.every((row) => row.sent) ? found : undefined;
        },
        5_000,
        'every callback row marked sent',
      );
      expect(sentRows).to.deep.equal([1, 1, 1].map((attempts) => ({ attempts, sent: true })));
    });

    it('retries a callback the receiver refused, with backoff', async () => {
      receiver.respond((_request, index) => ({ status: index === 0 ? 503 : 204 }));
      const reference = newId('momo_');
      await schedule(reference, ['once']);
      const pump = startSandboxCallbackPump({
        callbacks: createSandboxLedger(db),
        secret,
        intervalMs: 20,
        retryBaseMs: 200,
      });
      try {
        await receiver.waitFor(2, 10_000);
        // The pump marks the callback sent after the receiver's answer: wait for that write before stopping it.
        const deadline = Date.now() + 5_000;
        while (Date.now() < deadline && !(await rows(reference))[0]?.sent) await new Promise((r) => setTimeout(r, 20));
      } finally {
        await pump.stop();
      }
      const [refused, delivered] = receiver.requests;
      expect(delivered?.body).to.equal(refused?.body);
      expect((delivered?.receivedAt ?? 0) - (refused?.receivedAt ?? 0)).to.be.at.least(150);
      expect(await rows(reference)).to.deep.equal([{ attempts: 2, sent: true }]);
    });

    it(`gives a callback up after ${MAX_CALLBACK_ATTEMPTS} attempts`, async () => {
      receiver.respond(() => ({ status: 500 }));
      const reference = newId('momo_');
      // Scheduled an hour ahead so the shared stack's pump cannot take it first, then, in one statement, due now
      // with four failed attempts: the next one is the last.
      await schedule(reference, ['doomed'], Date.now() + 3_600_000);
      await db('sandbox_provider_callbacks')
        .where({ provider_reference: reference })
        .update({ attempts: MAX_CALLBACK_ATTEMPTS - 1, due_at: new Date(Date.now() - 10) });
      const pump = startSandboxCallbackPump({
        callbacks: createSandboxLedger(db),
        secret,
        intervalMs: 20,
        retryBaseMs: 20,
      });
      try {
        await receiver.waitFor(1, 10_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
      } finally {
        await pump.stop();
      }
      expect(receiver.requests).to.have.length(1);
      expect(await rows(reference)).to.deep.equal([{ attempts: MAX_CALLBACK_ATTEMPTS, sent: false }]);
    });

    it('sends each callback once when several pumps run at once', async () => {
      const reference = newId('momo_');
      const tags = Array.from({ length: 10 }, (_, i) => `c${i}`);
      await schedule(reference, tags);
      const pumps = [1, 2, 3].map(() =>
        startSandboxCallbackPump({ callbacks: createSandboxLedger(db), secret, intervalMs: 10 }),
      );
      try {
        await receiver.waitFor(tags.length, 10_000);
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        await Promise.all(pumps.map((pump) => pump.stop()));
      }
      expect(receiver.requests.map((r) => (JSON.parse(r.body) as { tag: string }).tag).sort()).to.deep.equal(
        [...tags].sort(),
      );
      expect(await rows(reference)).to.deep.equal(tags.map(() => ({ attempts: 1, sent: true })));
    });

    it('stops cleanly, waiting for the callback it is sending', async () => {
      receiver.respond(() => ({ status: 204, delayMs: 300 }));
      const reference = newId('momo_');
      await schedule(reference, ['slow']);
      const pump = startSandboxCallbackPump({ callbacks: createSandboxLedger(db), secret, intervalMs: 10 });
      await receiver.waitFor(1, 10_000);
      await pump.stop();
      // In the whole suite the shared stack's pump may be the one that claimed it: give that one a moment too.
      const deadline = Date.now() + 3_000;
      let stored = await rows(reference);
      while (!stored[0]?.sent && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        stored = await rows(reference);
      }
      expect(stored).to.deep.equal([{ attempts: 1, sent: true }]);
    });

    it('sends the callbacks a simulator scheduled at their settle time', async () => {
      const deps: SandboxDeps = {
        ledger: createSandboxLedger(db),
        now: () => new Date(),
        approvalDelayMs: 50,
        bankTransferDelayMs: BANK_DELAY_MS,
        callbackSecret: secret,
      };
      const live = createSandboxProvider('momo', 'customer_number', deps);
      const answer = await live.initiate({
        ...request('+250788000005'),
        callbackUrl: `${receiver.origin}/v1/provider-callbacks/momo`,
      });
      const pump = startSandboxCallbackPump({ callbacks: createSandboxLedger(db), secret, intervalMs: 20 });
      try {
        await receiver.waitFor(3, 10_000);
      } finally {
        await pump.stop();
      }
      const hints = receiver.requests.map((r) =>
        live.parseCallback({ rawBody: r.body, headers: r.headers as Record<string, string>, query: {} }),
      );
      expect(hints).to.deep.equal(
        ['completed', 'completed', 'pending'].map((claimed) => ({
          providerReference: answer.providerReference,
          claimed,
        })),
      );
    });
  });
});
