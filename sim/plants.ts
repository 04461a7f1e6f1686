/**
 * Bugs the simulator plants through its own hooks, one at a time, to show that its invariants find them
 * (docs/simulation.md#planted-bugs). Nothing here reaches the service: a plant wraps the simulated operator's adapter,
 * or the activities, of the simulator's worker only.
 */
import { activityInfo } from '@temporalio/activity';
import type { Activities } from '../src/activities';
import type { Db } from '../src/db/knex';
import { writeJournal } from '../src/db/ledger';
import { ID_PREFIXES } from '../src/domain/ids';
import { payoutReservedJournal } from '../src/domain/ledger';
import { deriveId } from '../src/lib/ids';
import { ProviderRefusal, type PaymentProvider } from '../src/providers/provider';

/** The bugs that can be planted. */
export const PLANTS = [
  'refund-sent-on-retry',
  'lost-answer-as-failure',
  'skipped-posting',
  'status-without-event',
  'duplicated-delivery',
  'payout-reserved-twice',
  'checkout-attempt-twice',
  'link-counted-twice',
] as const;

/** One of {@link PLANTS}. */
export type Plant = (typeof PLANTS)[number];

/**
 * `adapter` with `plant`: `refund-sent-on-retry` sends every repeated refund call (a retry after a lost answer) under
 * a new idempotency key, as an adapter that built its key from the attempt would, so the operator takes it as a
 * second refund. `lost-answer-as-failure` reads a status question the operator did not answer in time as the
 * payment's failure (`provider_error`), as an adapter that mapped its time-outs to a refusal would. Other plants leave
 * the adapter alone.
 */
export function plantBug(plant: Plant, adapter: PaymentProvider): PaymentProvider {
  if (plant === 'lost-answer-as-failure')
    return {
      ...adapter,
      code: adapter.code,
      supports: adapter.supports,
      async fetchStatus(providerReference) {
        try {
          return await adapter.fetchStatus(providerReference);
        } catch (error) {
          if (error instanceof ProviderRefusal) throw error;
          return {
            providerReference,
            outcome: { status: 'failed', failureCode: 'provider_error', failureMessage: 'the operator did not answer' },
          };
        }
      },
    };
  if (plant !== 'refund-sent-on-retry') return adapter;
  const sent = new Map<string, number>();
  return {
    ...adapter,
    code: adapter.code,
    supports: adapter.supports,
    async refund(request) {
      const n = (sent.get(request.idempotencyKey) ?? 0) + 1;
      sent.set(request.idempotencyKey, n);
      const key = n === 1 ? request.idempotencyKey : `${request.idempotencyKey}:retry${n}`;
      return adapter.refund({ ...request, idempotencyKey: key });
    },
  };
}

/**
 * The worker's `activities` with the plant `current()` names at each call: `skipped-posting` writes a payment's
 * status without the ledger postings its row orders (the collection journal of a completion, docs/ledger.md#postings),
 * as a write that forgot its postings would; `status-without-event` writes it without the event its row emits
 * (docs/payments.md#events), as a write that forgot its event would; `duplicated-delivery` makes every webhook
 * attempt twice (docs/webhooks.md#retries), as an activity retried after its request was answered would;
 * `payout-reserved-twice` loses the answer of a payout store's first attempt after it committed, and its retry
 * reserves the payout's amount and fee again under a cause keyed by the attempt (docs/payouts.md#money), as a store
 * that keyed its reservation by the attempt instead of the payout would; `checkout-attempt-twice` loses the answer of
 * a checkout attempt's payment start (`startCheckoutPayment`) after it started the payment, and its retry starts a
 * second payment under an id of its own, as an activity that drew the payment's id at each try instead of taking the
 * one the session admitted would (docs/checkout.md#states: one attempt at a time, each one the session admitted);
 * `link-counted-twice` loses the answer of a link's session write (`recordCheckoutSession`) that completed it, after it
 * committed, and its retry counts the completion on the link again, as a count not tied to the attempt's reservation
 * would (docs/payment-links.md#limits: counted once, with the session's write).
 * Other plants (and none) leave the activities alone. `db`: the worker's database (the planted reservation's journal).
 */
export function plantActivities(current: () => Plant | undefined, activities: Activities, db: Db): Activities {
  const {
    recordPaymentStatus: record,
    deliverAndRecordWebhook: deliver,
    storePayout: store,
    startCheckoutPayment: startAttempt,
    recordCheckoutSession: recordSession,
  } = activities;
  return {
    ...activities,
    async recordCheckoutSession(input) {
      await recordSession(input);
      const { session } = input;
      if (current() !== 'link-counted-twice' || session.status !== 'complete' || !session.paymentLink) return;
      if (activityInfo().attempt === 1) throw new Error("the session's write committed, and its answer was lost");
      await db('payment_links')
        .where({ id: session.paymentLink })
        .update({ completed_count: db.raw('completed_count + 1') });
    },
    async startCheckoutPayment(input) {
      const started = await startAttempt(input);
      if (current() !== 'checkout-attempt-twice') return started;
      const { attempt } = activityInfo();
      if (attempt === 1) throw new Error('the payment started, and its answer was lost');
      const paymentId = deriveId(ID_PREFIXES.payment, `${input.attempt.paymentId}:${attempt}`);
      return startAttempt({ ...input, attempt: { ...input.attempt, paymentId } });
    },
    async storePayout(input) {
      const stored = await store(input);
      if (current() !== 'payout-reserved-twice' || !('payout' in stored)) return stored;
      const { attempt } = activityInfo();
      if (attempt === 1) throw new Error('the store committed, and its answer was lost');
      const journal = payoutReservedJournal(stored.payout);
      await writeJournal(db, { ...journal, cause: `${journal.cause}:${attempt}` }, new Date(stored.payout.createdAt));
      return stored;
    },
    recordPaymentStatus(payment, orders) {
      const plant = current();
      if (plant === 'skipped-posting') return record(payment, { ...orders, post: [] });
      if (plant === 'status-without-event') return record(payment, { ...orders, emit: null });
      return record(payment, orders);
    },
    async deliverAndRecordWebhook(input) {
      const result = await deliver(input);
      if (current() !== 'duplicated-delivery' || result.kind !== 'attempted') return result;
      await deliver(input).catch(() => undefined);
      return result;
    },
  };
}
