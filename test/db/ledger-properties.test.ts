/**
 * The ledger's invariants (docs/ledger.md#invariants) under random histories, with fast-check, driven through the
 * payment table (docs/payments.md#states): every step is a `PaymentEvent` given to `apply`, and the row's effects are
 * carried out as the payment workflow carries them out (src/workflows/payment-run.ts `commit` and `perform`), by the
 * real payment activities against the real PostgreSQL, with the sandbox simulators as the providers. Histories mix
 * three providers and random amounts: customers who pay or decline at the provider, expiries and cancels followed by
 * late successes (booked inside the reconciliation window and after it, docs/payments.md#late-successes; a cancel of
 * mobile money is refused, its prompt cannot be withdrawn), partial refunds that the provider pays, refuses or answers
 * late (then decides, or not yet), a retried activity call (as Temporal retries one whose completion was lost) and
 * roll-ups of the balance.
 *
 * After every step: the journals the step wrote are exactly the `post` causes of the rows it took
 * (docs/ledger.md#postings); the ledger's invariants hold (`ledgerProblems`, against the simulators' own ledger); the
 * balance read equals what a model kept apart from the table says the merchant is owed; the table's state agrees with
 * that model and with the read model's row (status, `amount_refunded`, version) and refunds; and a step whose events
 * the table all refused, or a retried call, changed nothing in the database.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createPaymentActivities } from '../../src/activities/payment-activities';
import type { Db } from '../../src/db/knex';
import { readBalance, rollUpBalance } from '../../src/db/ledger';
import { createSandboxLedger, decidePendingSandboxTransaction } from '../../src/db/sandbox-ledger';
import { feeFor } from '../../src/domain/fees';
import { isOpen, type PaymentSnapshot, type ProviderOutcome } from '../../src/domain/payment';
import {
  answerEvent,
  apply,
  cancelEvent,
  expiryEvent,
  initialPaymentState,
  lateSuccessRefundId,
  refundAnswerEvent,
  reservedMinor,
  writeOrdersOf,
  type Applied,
  type Decision,
  type PaymentEvent,
  type PaymentState,
  type RefundAnswerOutcome,
} from '../../src/domain/payment-table';
import type { RefundRecord } from '../../src/domain/refund';
import { newId } from '../../src/lib/ids';
import { createProviderRegistry } from '../../src/providers/registry';
import type { PaymentActivities } from '../../src/workflows/activity-contracts';
import { cardPayment, insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { ledgerProblems } from '../helpers/ledger';
import { getStack, testConfig } from '../helpers/stack';

type Provider = 'momo' | 'card_gateway' | 'bank_transfer';
/** What the provider does with a refund sent to it: pays it, refuses it, or takes it with its answer lost. */
type Answer = 'paid' | 'refused' | 'unknown';

type Action =
  | { kind: 'create'; provider: Provider; amount: number }
  /** The customer pays at the provider; the run confirms it, its reconciliation window `inside` or passed. */
  | { kind: 'success'; index: number; window: 'inside' | 'outside'; answer: Answer }
  | { kind: 'decline'; index: number }
  | { kind: 'expire' | 'cancel'; index: number }
  | { kind: 'refund'; index: number; percent: number; answer: Answer }
  /** The run asks about its refunds whose answer was unknown; `decided`: the provider has paid them by then. */
  | { kind: 'settle_refunds'; index: number; decided: boolean }
  | { kind: 'retry' }
  | { kind: 'roll_up' };

const DAY_MS = 86_400_000;
const RECONCILIATION_WINDOW_MS = 7 * DAY_MS;
const REFUND_WINDOW_MS = 180 * DAY_MS;

const index = fc.nat({ max: 3 });
const answer = fc.constantFrom<Answer>('paid', 'refused', 'unknown');
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      // Mobile money twice as often: its requests cannot be withdrawn, so only its successes come late.
      provider: fc.constantFrom<Provider>('momo', 'momo', 'card_gateway', 'bank_transfer'),
      amount: fc.integer({ min: 1, max: 5_000_000 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('success' as const),
      index,
      window: fc.constantFrom('inside' as const, 'outside' as const),
      answer,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('decline' as const), index }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('expire' as const, 'cancel' as const), index }) },
  // Up to 120 % of what is left to refund: more is refused by the table.
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      index,
      percent: fc.integer({ min: 1, max: 120 }),
      answer,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle_refunds' as const), index, decided: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retry' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('roll_up' as const) }) },
);

/**
 * What the merchant is owed for one payment, kept by the rules of docs/payments.md#states in the test's own terms,
 * apart from the table: whether the provider's collection counts, and each refund as the provider answered it.
 */
interface Model {
  /** The payment's amount (minor units). */
  amount: number;
  status: PaymentSnapshot['status'];
  expired: boolean;
  collected: boolean;
  refunds: Map<string, { amount: number; status: 'pending' | 'completed' | 'failed' }>;
}

/** One payment: the run's state (the table's), the refunds it asks about later, and the model. */
interface Tracked {
  state: PaymentState;
  unknownRefunds: Set<string>;
  /** `PaymentRun.acceptedPosts`: the causes each refund's acceptance declared, until it is settled. */
  acceptedPosts: Map<string, string[]>;
  /** Whether its reconciliation window has passed (the run then applies a window of 0). */
  windowPassed: boolean;
  model: Model;
}

const refundStatusOf = (answered: Answer) =>
  answered === 'paid' ? 'completed' : answered === 'refused' ? 'failed' : 'pending';

function sumRefunds(model: Model, status: 'pending' | 'completed'): number {
  return [...model.refunds.values()].filter((r) => r.status === status).reduce((s, r) => s + r.amount, 0);
}

/** The model after a refund of `amount` settles `status`: paid back in full, a completed payment is refunded. */
function modelRefund(model: Model, amount: number, id: string, status: 'pending' | 'completed' | 'failed'): void {
  model.refunds.set(id, { amount, status });
  if (status === 'completed' && model.status === 'completed' && sumRefunds(model, 'completed') === model.amount)
    model.status = 'refunded';
}

/**
 * A history for one fresh merchant: the payment workflow's `commit` and `perform` over the real activities, and the
 * sandbox simulators over their real ledger, whose refund answers the history scripts.
 */
class History {
  readonly tracked: Tracked[] = [];
  /** The answer the simulators give the refunds sent in this step. */
  private refundAnswer: Answer = 'paid';
  private lastCall: { run: () => Promise<unknown>; threw: boolean } | undefined;
  private lastMs = 0;
  // Activity failures are part of the histories (the simulators' lost answers): not logged.
  private readonly env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  readonly activities: PaymentActivities;
  /** Whether the table took an event in the step under way. */
  taken = false;
  /** The ledger causes the rows taken in the step under way declared (their `post` effects). */
  declared: string[] = [];

  constructor(
    readonly db: Db,
    readonly merchantId: string,
    temporal: Client,
  ) {
    const config = testConfig();
    const ledger = createSandboxLedger(db);
    // The simulators' refund decisions, scripted: paid at once; refused (nothing recorded, as a provider that refuses
    // refunds, sandbox number 0006); or held undecided a day, so that the simulator's answer is lost (as 0007).
    const scripted: typeof ledger = {
      ...ledger,
      refundTransaction: (reference, key, amount, decideAt) =>
        this.refundAnswer === 'refused'
          ? Promise.resolve({ refused: 'exceeds_collected' as const })
          : ledger.refundTransaction(
              reference,
              key,
              amount,
              this.refundAnswer === 'unknown' ? new Date(Date.now() + DAY_MS) : decideAt,
            ),
    };
    // Customers act only when the history says so: no approval or transfer arrives by itself during a run.
    const providers = createProviderRegistry({
      ledger: scripted,
      now: () => new Date(),
      approvalDelayMs: DAY_MS,
      bankTransferDelayMs: DAY_MS,
      refundUnknownMs: DAY_MS,
      callbackSecret: config.PROVIDER_CALLBACK_SECRET,
    });
    // No callback URL: the simulators schedule no callbacks, the history confirms every answer itself.
    this.activities = createPaymentActivities({
      db,
      providers,
      temporal,
      config: { TEMPORAL_WEBHOOK_TASK_QUEUE: config.TEMPORAL_WEBHOOK_TASK_QUEUE },
    });
  }

  /** The workflow's clock, strictly increasing (ISO 8601). */
  now(): string {
    this.lastMs = Math.max(Date.now(), this.lastMs + 1);
    return new Date(this.lastMs).toISOString();
  }

  /** Runs an activity as the worker would, remembering the call so that a retry repeats it exactly. */
  async call<T>(work: () => Promise<T>): Promise<T> {
    const answered = this.refundAnswer;
    const run = () => {
      this.refundAnswer = answered;
      return this.env.run(work) as Promise<T>;
    };
    this.lastCall = { run, threw: false };
    try {
      return await run();
    } catch (error) {
      this.lastCall.threw = true;
      throw error;
    }
  }

  /** The last activity call again, as Temporal retries an attempt whose completion it never got. */
  async retryLastCall(): Promise<void> {
    if (!this.lastCall) return;
    const { run, threw } = this.lastCall;
    const error = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    // An unknown answer (the simulator's time-out) stays unknown; nothing else may fail.
    if (!threw && error) throw error;
  }

  /** `PaymentRun.commit`: the table's row adopted, or its refusal, which changes nothing. */
  commit(t: Tracked, event: PaymentEvent, at = this.now()): Applied {
    const applied = apply(t.state, event, at);
    if (applied.ok) {
      t.state = applied.state;
      this.taken = true;
      this.declared.push(...writeOrdersOf(applied.effects).post);
    }
    return applied;
  }

  /** `PaymentRun.perform`: the row's writes (with the event to emit and the causes to post) and provider calls. */
  async perform(t: Tracked, applied: Decision): Promise<void> {
    const orders = writeOrdersOf(applied.effects);
    const { refund } = applied;
    const a = this.activities;
    for (const effect of applied.effects) {
      const payment = snapshot(t);
      if (effect.do === 'write_refund' && refund)
        await this.call(() =>
          a.recordRefundOutcome({
            refund,
            payment,
            ...orders,
            post: [...(t.acceptedPosts.get(refund.id) ?? []), ...orders.post],
          }),
        );
      else if (effect.do === 'write' && !applied.effects.some((e) => e.do === 'write_refund'))
        await this.call(() => a.recordPaymentStatus(payment, orders));
      else if (effect.do === 'ask_provider' && refund) await this.sendRefund(t, refund, orders.post);
      else if (effect.do === 'ask_provider_later' && refund) t.unknownRefunds.add(refund.id);
    }
  }

  async commitAndPerform(t: Tracked, event: PaymentEvent): Promise<Applied> {
    const applied = this.commit(t, event);
    if (applied.ok) await this.perform(t, applied);
    return applied;
  }

  /** `PaymentRun.sendRefund` with `answered` scripted at the simulator: the provider's answer, committed. */
  async sendRefund(t: Tracked, refund: RefundRecord, post: string[]): Promise<void> {
    t.acceptedPosts.set(refund.id, post);
    let answered: RefundAnswerOutcome;
    try {
      answered = await this.call(() => this.activities.refundAtProvider({ payment: t.state.payment, refund, post }));
    } catch (error) {
      // Only the simulator's lost answer is expected here (retried by Temporal, then asked about later).
      if (error instanceof ApplicationFailure) throw error;
      answered = { status: 'pending' };
    }
    await this.decideRefund(t, refund, answered);
  }

  /** `PaymentRun.decideRefund`. */
  async decideRefund(t: Tracked, refund: RefundRecord, answered: RefundAnswerOutcome): Promise<void> {
    if (answered.status !== 'pending') t.unknownRefunds.delete(refund.id);
    await this.commitAndPerform(t, refundAnswerEvent(refund.id, answered));
    if (answered.status !== 'pending') t.acceptedPosts.delete(refund.id);
  }

  /** `PaymentRun.confirm`: the provider's word about the payment, committed (a success once closed is late). */
  async confirm(t: Tracked, reconciliationWindowMs: number): Promise<void> {
    const answered = await this.call(() => this.activities.fetchProviderPaymentStatus(providerCall(t)));
    await this.commitAndPerform(t, answerEvent(t.state.payment, answered.outcome, reconciliationWindowMs));
  }

  /** Runs one step of the history. */
  async step(step: Action): Promise<void> {
    const t = 'index' in step ? this.tracked[step.index % Math.max(this.tracked.length, 1)] : undefined;
    this.refundAnswer = 'answer' in step ? step.answer : 'paid';
    const a = this.activities;
    if (step.kind === 'create') await this.create(step.provider, step.amount);
    else if (step.kind === 'retry') await this.retryLastCall();
    else if (step.kind === 'roll_up')
      await rollUpBalance(this.db, { merchantId: this.merchantId, environment: 'sandbox' });
    else if (!t) return;
    else if (step.kind === 'success' || step.kind === 'decline') {
      // The customer acts at the provider (the simulator's first decision wins), and the run confirms it.
      const decision =
        step.kind === 'success'
          ? { status: 'succeeded' as const }
          : { status: 'failed' as const, failureCode: 'declined', failureMessage: 'The customer declined' };
      const decided = await decidePendingSandboxTransaction(this.db, reference(t), decision, new Date());
      // Once the window has passed it stays passed: a run that met it with `outside` later sees the window as gone.
      if (step.kind === 'success' && step.window === 'outside') t.windowPassed = true;
      if (decided?.decided) modelDecision(t, step);
      await this.confirm(t, t.windowPassed ? 0 : RECONCILIATION_WINDOW_MS);
    } else if (step.kind === 'expire') {
      // `PaymentRun.expire`: the provider is asked to cancel where it can, else for its status; its last word decides.
      let lastWord: ProviderOutcome | undefined;
      if (isOpen(t.state.payment.status)) {
        const cancelled = await this.call(() => a.cancelProviderPayment(providerCall(t)));
        lastWord =
          cancelled === 'unsupported'
            ? (await this.call(() => a.fetchProviderPaymentStatus(providerCall(t)))).outcome
            : cancelled.outcome;
      }
      const applied = await this.commitAndPerform(t, expiryEvent(lastWord));
      if (applied.ok && t.model.status === 'pending') Object.assign(t.model, { status: 'failed', expired: true });
    } else if (step.kind === 'cancel') {
      // `PaymentRun.cancel`: refused at once when the table refuses it, else the provider withdraws where it can.
      if (!apply(t.state, { type: 'cancel', reason: null }, this.now()).ok) return;
      const word = await this.call(() => a.cancelProviderPayment(providerCall(t)));
      await this.commitAndPerform(t, cancelEvent(word === 'unsupported' ? word : word.outcome, null));
      // A provider that cannot withdraw its request refuses the cancel (docs/payments.md#cancel-and-refund).
      if (t.model.status === 'pending' && t.state.payment.status === 'cancelled') t.model.status = 'cancelled';
    } else if (step.kind === 'refund') {
      // `PaymentRun.refund`: a share of what the model says is left, reserved at once, then sent.
      const { model } = t;
      const rest = model.amount - sumRefunds(model, 'completed') - sumRefunds(model, 'pending');
      const amount = Math.max(1, Math.floor((rest * step.percent) / 100));
      const refundId = newId('ref_');
      const accepted = this.commit(t, {
        type: 'refund_accepted',
        refundId,
        amount,
        reason: null,
        refundWindowMs: REFUND_WINDOW_MS,
        capabilities: { refund: true, partialRefund: true },
      });
      expect(accepted.ok, `the table took a refund of ${amount} with ${rest} left`).to.equal(
        model.status === 'completed' && amount <= rest,
      );
      if (!accepted.ok) return;
      modelRefund(model, amount, refundId, refundStatusOf(step.answer));
      await this.perform(t, accepted);
    } else if (step.kind === 'settle_refunds') {
      // `PaymentRun.checkUnknownRefunds`, after the provider decided them (or not yet).
      for (const refundId of [...t.unknownRefunds]) {
        const refund = t.state.pendingRefunds.find((r) => r.id === refundId);
        if (!refund) {
          t.unknownRefunds.delete(refundId);
          continue;
        }
        if (step.decided) {
          await this.db('sandbox_provider_refunds')
            .where({ idempotency_key: `refund:${refundId}` })
            .update({ decide_at: new Date() });
          modelRefund(t.model, refund.amount, refundId, 'completed');
        }
        const post = t.acceptedPosts.get(refundId) ?? [];
        const answered = await this.call(() => a.fetchRefundAtProvider({ payment: t.state.payment, refund, post }));
        await this.decideRefund(t, refund, answered);
      }
    }
  }

  /** A new payment: recorded and initiated by `initiatePayment`, the provider's answer committed as the run does. */
  async create(provider: Provider, amount: number): Promise<void> {
    // Sandbox number 0003: the customer never answers by themselves; the history acts for them.
    const base = mobileMoneyPayment(this.merchantId, '+250788120003');
    const byProvider: Record<Provider, PaymentSnapshot> = {
      momo: base,
      card_gateway: cardPayment(this.merchantId),
      bank_transfer: { ...base, provider: 'bank_transfer', paymentMethod: 'bank_transfer', kind: 'bank_transfer' },
    };
    const payment = { ...byProvider[provider], amount, feeAmount: feeFor(amount, provider) };
    const model: Model = { amount, status: 'pending', expired: false, collected: false, refunds: new Map() };
    const t: Tracked = {
      state: initialPaymentState(payment),
      unknownRefunds: new Set(),
      acceptedPosts: new Map(),
      windowPassed: false,
      model,
    };
    this.tracked.push(t);
    const at = this.now();
    const initiated = await this.call(() => this.activities.initiatePayment({ payment, changedAt: at }));
    if (!('answer' in initiated)) throw new Error(`the simulator refused the payment: ${initiated.refused.message}`);
    // The rows initiation took for the provider's word, carried as they are (the create decides once); initiation
    // wrote them unless it left them to the run.
    for (const step of initiated.steps) {
      t.state = step.state;
      this.taken = true;
      this.declared.push(...writeOrdersOf(step.effects).post);
      if (!initiated.recorded) await this.perform(t, step);
    }
  }

  /** What the model says the merchant is owed, by currency (minor units). */
  owed(): Map<string, number> {
    const owed = new Map<string, number>();
    for (const { state, model } of this.tracked) {
      const { currency, amount, feeAmount } = state.payment;
      const collected = model.collected ? amount - feeAmount : 0;
      const refunded = sumRefunds(model, 'completed') + sumRefunds(model, 'pending');
      owed.set(currency, (owed.get(currency) ?? 0) + collected - refunded);
    }
    return owed;
  }
}

/** The model after the provider's first decision about a payment in a success or decline step. */
function modelDecision(t: Tracked, step: Extract<Action, { kind: 'success' | 'decline' }>): void {
  const { model } = t;
  if (step.kind === 'decline') {
    if (model.status === 'pending') model.status = 'failed';
  } else if (model.status === 'pending' || (model.status === 'failed' && model.expired)) {
    // A late success is booked, inside the reconciliation window or after it (docs/payments.md#late-successes).
    Object.assign(model, { status: 'completed', collected: true });
  } else if (model.status === 'cancelled') {
    // Collected after the cancel: refunded in full at once (docs/payments.md#states).
    model.collected = true;
    modelRefund(model, model.amount, lateSuccessRefundId(t.state.payment.id), refundStatusOf(step.answer));
  }
}

/** The payment as the run hands it to a write (`PaymentRun.snapshot`). */
function snapshot(t: Tracked): PaymentSnapshot {
  return { ...t.state.payment, amountRefundPending: reservedMinor(t.state) };
}

function reference(t: Tracked): string {
  return t.state.payment.providerReference as string;
}

function providerCall(t: Tracked) {
  const { environment, provider } = t.state.payment;
  return { environment, provider, providerReference: reference(t) };
}

/** What a fingerprint reads of a merchant, by name: its rows of the read model and the ledger, and the simulators'. */
const FINGERPRINTED = {
  payments: `select json_agg(p order by p.id) from payments p where p.merchant_id = :m`,
  refunds: `select json_agg(r order by r.id) from refunds r where r.merchant_id = :m`,
  events: `select json_agg(e.id order by e.id) from events e where e.merchant_id = :m`,
  balance_transactions: `select json_agg(b.id order by b.id) from ledger_balance_transactions b where b.merchant_id = :m`,
  sandbox_provider_transactions: `select json_agg(t order by t.provider_reference) from sandbox_provider_transactions t
    join payments p on p.id = t.payment_id where p.merchant_id = :m`,
  sandbox_provider_refunds: `select json_agg(r order by r.idempotency_key) from sandbox_provider_refunds r
    join sandbox_provider_transactions t on t.provider_reference = r.provider_reference
    join payments p on p.id = t.payment_id where p.merchant_id = :m`,
};

/**
 * The merchant's rows of the read model and the ledger, one text per table; with `simulators`, its records in the
 * simulators' ledger too (a customer's decision there is no change of ours).
 */
async function fingerprint(db: Db, merchantId: string, simulators: boolean): Promise<Map<string, string>> {
  const names = Object.keys(FINGERPRINTED).filter((name) => simulators || !name.startsWith('sandbox_'));
  const columns = names.map((name) => `(${FINGERPRINTED[name as keyof typeof FINGERPRINTED]})::text as ${name}`);
  const { rows } = await db.raw<{ rows: Record<string, string | null>[] }>(`select ${columns.join(', ')}`, {
    m: merchantId,
  });
  return new Map(names.map((name) => [name, rows[0][name] ?? '']));
}

/** The names of the tables whose rows differ between two fingerprints. */
function changedTables(before: Map<string, string>, after: Map<string, string>): string {
  return [...before.keys()].filter((name) => before.get(name) !== after.get(name)).join(', ');
}

/** The causes of the journals of the merchant's payments and refunds. */
async function journalCauses(db: Db, merchantId: string): Promise<Set<string>> {
  const { rows } = await db.raw<{ rows: { cause: string }[] }>(
    `select cause from ledger_journals where split_part(cause, ':', 2) in
       (select id from payments where merchant_id = :m union all select id from refunds where merchant_id = :m)`,
    { m: merchantId },
  );
  const causes = rows.map((r) => r.cause);
  return new Set(causes);
}

/** Checks the invariants, the balance, and the table against the model and the read model, after `step`. */
async function checkAfter(history: History, step: Action): Promise<void> {
  const { db, merchantId, tracked } = history;
  const after = `after ${JSON.stringify(step)}`;
  const problems = await ledgerProblems(db, { merchantIds: [merchantId], againstSimulators: true });
  expect(problems.join('\n'), `ledger problems ${after}`).to.equal('');
  const balance = await readBalance(db, { merchantId, environment: 'sandbox' }, new Date());
  for (const [currency, owed] of history.owed()) {
    const available = balance.available.find((b) => b.currency === currency)?.amount ?? 0;
    const pending = balance.pending.find((b) => b.currency === currency)?.amount ?? 0;
    expect(available + pending, `${currency} owed ${after}`).to.equal(owed);
  }
  const rows = new Map(
    (
      (await db('payments')
        .where({ merchant_id: merchantId })
        .select('id', 'status', 'amount_refunded', 'version')) as {
        id: string;
        status: string;
        amount_refunded: string;
        version: number;
      }[]
    ).map((r) => [r.id, { status: r.status, amountRefunded: Number(r.amount_refunded), version: r.version }]),
  );
  const refunds = new Map(
    (
      (await db('refunds').where({ merchant_id: merchantId }).select('id', 'status')) as {
        id: string;
        status: string;
      }[]
    ).map((r) => [r.id, r.status]),
  );
  for (const { state, model } of tracked) {
    const { id, status, amountRefunded, version } = state.payment;
    const table = { status, amountRefunded, version: version ?? 0 };
    expect(JSON.stringify(rows.get(id)), `read model of ${id} ${after}`).to.equal(JSON.stringify(table));
    const modelled = {
      status: model.status,
      amountRefunded: sumRefunds(model, 'completed'),
      reserved: sumRefunds(model, 'pending'),
    };
    expect(
      JSON.stringify({ status, amountRefunded, reserved: reservedMinor(state) }),
      `table against the model for ${id} ${after}`,
    ).to.equal(JSON.stringify(modelled));
    for (const [refundId, refund] of model.refunds)
      expect(refunds.get(refundId), `refund ${refundId} ${after}`).to.equal(refund.status);
  }
}

/** Runs one history for a fresh merchant, checking everything after each step. */
async function runHistory(db: Db, temporal: Client, actions: Action[]): Promise<void> {
  const history = new History(db, await insertMerchant(db), temporal);
  for (const step of actions) {
    // A retried call changes nothing anywhere; a step whose events the table all refused changes nothing of ours.
    const retry = step.kind === 'retry';
    const before = await fingerprint(db, history.merchantId, retry);
    const journalsBefore = await journalCauses(db, history.merchantId);
    history.taken = false;
    history.declared = [];
    await history.step(step);
    // The journals of the step are the ones its rows declared (docs/ledger.md#postings): none unasked, none missing.
    const journals = await journalCauses(db, history.merchantId);
    const added = [...journals].filter((cause) => !journalsBefore.has(cause));
    const undeclared = added.filter((cause) => !history.declared.includes(cause));
    expect(undeclared.join(', '), `undeclared journals after ${JSON.stringify(step)}`).to.equal('');
    const missing = history.declared.filter((cause) => !journals.has(cause));
    expect(missing.join(', '), `declared journals missing after ${JSON.stringify(step)}`).to.equal('');
    if (retry || (!history.taken && step.kind !== 'create' && step.kind !== 'roll_up')) {
      const changed = changedTables(before, await fingerprint(db, history.merchantId, retry));
      expect(changed, `tables changed by ${JSON.stringify(step)}`).to.equal('');
    }
    await checkAfter(history, step);
  }
}

describe('ledger invariants under random histories through the payment table (docs/ledger.md#invariants)', function () {
  this.timeout(600_000);

  it('hold after every step of 40 random histories of payments, refunds, refusals, unknown answers and late successes', async () => {
    const { db, client } = await getStack();
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 40, size: 'max' }), (actions) =>
        runHistory(db, client, actions),
      ),
      { numRuns: 40 },
    );
  });
});
