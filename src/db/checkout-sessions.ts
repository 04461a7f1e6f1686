/**
 * The checkout sessions' rows (docs/checkout.md): the one writer of a session is its workflow's activities
 * (src/activities/checkout-activities.ts), through {@link insertCheckoutSession} and {@link writeCheckoutSession};
 * the API only reads. Amounts are minor units (bigint), times ISO 8601 UTC.
 */
import type { CheckoutAttempt, CheckoutSessionSnapshot, CheckoutStatus } from '../domain/checkout-table';
import type { Environment } from '../domain/environment';
import type { CollectField } from '../domain/payment-link';
import type { ExceptionDraft } from '../domain/reconciliation';
import { insertEventOnce, type EventInput } from './payments';
import { exceptionIdOf } from './reconciliation';
import { amountRangeColumns, amountRangeOf } from './amount-range';
import { newestFirstPage } from './cursor-pages';
import { iso, type Db } from './knex';
import { findById, findInScope } from './scoped-rows';

interface CheckoutSessionRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  amount: number | string | null;
  currency: string;
  description: string;
  customer_phone: string | null;
  success_url: string | null;
  cancel_url: string | null;
  payment_link: string | null;
  amount_min: number | string | null;
  amount_max: number | string | null;
  collect: CollectField[];
  completion_message: string | null;
  locale: CheckoutSessionSnapshot['locale'];
  metadata: Record<string, string>;
  status: CheckoutStatus;
  payment: string | null;
  attempts: CheckoutAttempt[];
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  expired_at: Date | null;
}

const date = (value: string | null) => (value === null ? null : new Date(value));

function toRow(s: CheckoutSessionSnapshot): CheckoutSessionRow {
  return {
    id: s.id,
    merchant_id: s.merchantId,
    environment: s.environment,
    amount: s.amount,
    currency: s.currency,
    description: s.description,
    customer_phone: s.customerPhone,
    success_url: s.successUrl,
    cancel_url: s.cancelUrl,
    payment_link: s.paymentLink,
    ...amountRangeColumns(s.amountRange),
    collect: s.collect,
    completion_message: s.completionMessage,
    locale: s.locale,
    metadata: s.metadata,
    status: s.status,
    payment: s.payment,
    attempts: s.attempts,
    expires_at: new Date(s.expiresAt),
    created_at: new Date(s.createdAt),
    updated_at: new Date(s.updatedAt),
    completed_at: date(s.completedAt),
    expired_at: date(s.expiredAt),
  };
}

function fromRow(row: CheckoutSessionRow): CheckoutSessionSnapshot {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    amount: row.amount === null ? null : Number(row.amount),
    currency: row.currency as CheckoutSessionSnapshot['currency'],
    description: row.description,
    customerPhone: row.customer_phone,
    successUrl: row.success_url,
    cancelUrl: row.cancel_url,
    paymentLink: row.payment_link,
    amountRange: amountRangeOf(row),
    collect: row.collect,
    completionMessage: row.completion_message,
    locale: row.locale,
    metadata: row.metadata,
    status: row.status,
    payment: row.payment,
    attempts: row.attempts,
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    completedAt: row.completed_at ? iso(row.completed_at) : null,
    expiredAt: row.expired_at ? iso(row.expired_at) : null,
  };
}

/** Stores a new session once per id. @returns the session as stored (the earlier one on a repeat) */
export async function insertCheckoutSession(
  db: Db,
  session: CheckoutSessionSnapshot,
): Promise<CheckoutSessionSnapshot> {
  const row = toRow(session);
  await db('checkout_sessions')
    .insert({
      ...row,
      metadata: JSON.stringify(row.metadata),
      attempts: JSON.stringify(row.attempts),
      collect: JSON.stringify(row.collect),
    })
    .onConflict('id')
    .ignore();
  const stored = await findCheckoutSessionById(db, session.id);
  if (!stored) throw new Error(`checkout session ${session.id} was not stored`);
  return stored;
}

/**
 * Writes the session as a row of its table left it, with the row's event in the same transaction (once: the event id
 * derives from the session and the event). The session's run takes rows one at a time and writes them in that order,
 * so a write never goes back: one whose `updated_at` is older than the stored one changes nothing.
 * @returns whether it wrote
 */
export async function writeCheckoutSession(
  db: Db,
  session: CheckoutSessionSnapshot,
  event?: EventInput,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const row = toRow(session);
    const written = await trx('checkout_sessions')
      .where({ id: session.id })
      .andWhere('updated_at', '<=', row.updated_at)
      .update({
        status: row.status,
        amount: row.amount,
        payment: row.payment,
        attempts: JSON.stringify(row.attempts),
        updated_at: row.updated_at,
        completed_at: row.completed_at,
        expired_at: row.expired_at,
      });
    if (event) await insertEventOnce(trx, event);
    return written > 0;
  });
}

/** The session `id` of any merchant (the workflow's read, and the page's, whose capability is the id). */
export async function findCheckoutSessionById(db: Db, id: string): Promise<CheckoutSessionSnapshot | undefined> {
  return findById(db, 'checkout_sessions', id, fromRow);
}

/** The session `id` of the scope's merchant and environment; undefined for unknown and foreign ids alike. */
export async function findCheckoutSession(
  db: Db,
  scope: { merchantId: string; environment: Environment },
  id: string,
): Promise<CheckoutSessionSnapshot | undefined> {
  return findInScope(db, 'checkout_sessions', scope, id, fromRow);
}

/**
 * One page of the scope's sessions, newest first (ties by id, descending), optionally of one status.
 * @param limit the most rows to answer (1–100)
 * @throws DomainError `validation_error` naming `starting_after` when it is not one of the scope's sessions
 */
export async function listCheckoutSessionsPage(
  db: Db,
  scope: { merchantId: string; environment: Environment },
  filter: { status?: CheckoutStatus; startingAfter?: string },
  limit: number,
): Promise<{ sessions: CheckoutSessionSnapshot[]; hasMore: boolean }> {
  const page = await newestFirstPage(db, 'checkout_sessions', scope, { ...filter, limit }, fromRow, (query) => {
    if (filter.status) query.where({ status: filter.status });
  });
  return { sessions: page.rows, hasMore: page.hasMore };
}

/**
 * Records the exception `duplicate_checkout_payment` of a session's duplicate payment at `provider` (found by no
 * reconciliation run), once per key (docs/reconciliation.md#exceptions).
 */
export async function recordDuplicateCheckoutPayment(
  db: Db,
  account: { provider: string; environment: Environment },
  draft: ExceptionDraft,
): Promise<void> {
  await db('reconciliation_exceptions')
    .insert({
      id: exceptionIdOf(account, draft.key),
      run_id: null,
      provider: account.provider,
      environment: account.environment,
      kind: draft.kind,
      key: draft.key,
      object_id: draft.objectId,
      provider_reference: draft.providerReference,
      expected_amount: draft.expectedAmount,
      found_amount: draft.foundAmount,
      currency: draft.currency,
      evidence: JSON.stringify(draft.evidence),
      created_at: new Date(),
    })
    .onConflict(['provider', 'environment', 'key'])
    .ignore();
}

/** What a session's page follows live (docs/checkout.md#live-status). */
export interface CheckoutLiveState {
  status: CheckoutStatus;
  /**
   * The latest attempt's payment as stored (its status, e.g. `pending`, `completed`, `failed`, and its
   * `failure_code`); `pending` while the session admitted it and its payment is not stored yet; null before one.
   */
  attempt: { status: string; failure_code: string | null } | null;
}

/**
 * The live state of session `id` in one statement: its status and its latest attempt's payment (a join on the
 * payments' primary key), so a change of the payment shows before the session's run hears of it.
 * @returns undefined for an unknown id
 */
export async function readCheckoutLiveState(db: Db, id: string): Promise<CheckoutLiveState | undefined> {
  const row = (await db('checkout_sessions as cs')
    .leftJoin('payments as p', 'p.id', db.raw("cs.attempts -> -1 ->> 'payment'"))
    .where('cs.id', id)
    .first(
      'cs.status',
      db.raw("cs.attempts -> -1 ->> 'payment' as attempt_payment"),
      'p.status as attempt_status',
      'p.failure_code',
    )) as
    | {
        status: CheckoutStatus;
        attempt_payment: string | null;
        attempt_status: string | null;
        failure_code: string | null;
      }
    | undefined;
  if (!row) return undefined;
  if (row.attempt_payment === null) return { status: row.status, attempt: null };
  // Admitted and written, its payment not stored yet: it is about to prompt.
  return {
    status: row.status,
    attempt: { status: row.attempt_status ?? 'pending', failure_code: row.failure_code },
  };
}
