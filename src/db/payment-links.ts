/**
 * The payment links' rows (docs/payment-links.md): the one writer of `payment_links` and of the reservations that
 * admit a link's attempts against its completion limit (docs/payment-links.md#limits). The API creates and changes a
 * link and reserves (or gives back) an attempt's place; the checkout session's activities settle the reservations of
 * its attempts with the session's own write. Amounts are minor units (bigint), times ISO 8601 UTC.
 */
import type { Environment } from '../domain/environment';
import type { CheckoutSessionSnapshot } from '../domain/checkout-table';
import type { AfterCompletion, CollectField, PaymentLink } from '../domain/payment-link';
import { amountRangeColumns, amountRangeOf } from './amount-range';
import { newestFirstPage } from './cursor-pages';
import { findById, findInScope, scopeColumns } from './scoped-rows';
import { iso, storableJson, type Db } from './knex';

interface PaymentLinkRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  amount: number | string | null;
  amount_min: number | string | null;
  amount_max: number | string | null;
  currency: string;
  description: string;
  payment_methods: 'mobile_money'[];
  completed_limit: number | null;
  completed_count: number;
  after_completion: AfterCompletion | null;
  collect: CollectField[];
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

const num = (value: number | string | null) => (value === null ? null : Number(value));

function fromRow(row: PaymentLinkRow): PaymentLink {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    amount: num(row.amount),
    amountRange: amountRangeOf(row),
    currency: row.currency as PaymentLink['currency'],
    description: row.description,
    paymentMethods: row.payment_methods,
    completedLimit: row.completed_limit,
    completedCount: row.completed_count,
    afterCompletion: row.after_completion,
    collect: row.collect,
    active: row.active,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** A scope's merchant and environment. */
type Scope = { merchantId: string; environment: Environment };

/** Stores a new link once per id. @returns the link as stored (the earlier one on a repeat) */
export async function insertPaymentLink(db: Db, link: PaymentLink): Promise<PaymentLink> {
  await db('payment_links')
    .insert({
      id: link.id,
      merchant_id: link.merchantId,
      environment: link.environment,
      amount: link.amount,
      ...amountRangeColumns(link.amountRange),
      currency: link.currency,
      description: link.description,
      payment_methods: JSON.stringify(link.paymentMethods),
      completed_limit: link.completedLimit,
      completed_count: 0,
      after_completion: link.afterCompletion === null ? null : storableJson(link.afterCompletion),
      collect: JSON.stringify(link.collect),
      active: link.active,
      created_at: new Date(link.createdAt),
      updated_at: new Date(link.updatedAt),
    })
    .onConflict('id')
    .ignore();
  const stored = await findPaymentLinkById(db, link.id);
  if (!stored) throw new Error(`payment link ${link.id} was not stored`);
  return stored;
}

/** The link `id` of any merchant (the link's public address, `/l/{id}`). */
export async function findPaymentLinkById(db: Db, id: string): Promise<PaymentLink | undefined> {
  return findById(db, 'payment_links', id, fromRow);
}

/** The link `id` of the scope's merchant and environment; undefined for unknown and foreign ids alike. */
export async function findPaymentLink(db: Db, scope: Scope, id: string): Promise<PaymentLink | undefined> {
  return findInScope(db, 'payment_links', scope, id, fromRow);
}

/** What a merchant may change on a link (docs/payment-links.md#api); absent fields stay as they are. */
export interface PaymentLinkChanges {
  active?: boolean;
  /** null removes the limit. */
  completedLimit?: number | null;
  /** null goes back to the page's own thanks. */
  afterCompletion?: AfterCompletion | null;
  description?: string;
}

/**
 * Changes the scope's link `id`. @returns the link after the change, or undefined for unknown and foreign ids alike
 */
export async function updatePaymentLink(
  db: Db,
  scope: Scope,
  id: string,
  changes: PaymentLinkChanges,
): Promise<PaymentLink | undefined> {
  const set: Record<string, unknown> = { updated_at: new Date() };
  if (changes.active !== undefined) set.active = changes.active;
  if (changes.completedLimit !== undefined) set.completed_limit = changes.completedLimit;
  if (changes.afterCompletion !== undefined)
    set.after_completion = changes.afterCompletion === null ? null : storableJson(changes.afterCompletion);
  if (changes.description !== undefined) set.description = changes.description;
  const rows = (await db('payment_links')
    .where({ id, ...scopeColumns(scope) })
    .update(set)
    .returning('*')) as PaymentLinkRow[];
  return rows[0] ? fromRow(rows[0]) : undefined;
}

/**
 * One page of the scope's links, newest first (ties by id, descending), optionally only active or inactive ones.
 * @param limit the most rows to answer (1–100)
 * @throws DomainError `validation_error` naming `starting_after` when it is not one of the scope's links
 */
export async function listPaymentLinksPage(
  db: Db,
  scope: Scope,
  filter: { active?: boolean; startingAfter?: string },
  limit: number,
): Promise<{ links: PaymentLink[]; hasMore: boolean }> {
  const page = await newestFirstPage(db, 'payment_links', scope, { ...filter, limit }, fromRow, (query) => {
    if (filter.active !== undefined) query.where({ active: filter.active });
  });
  return { links: page.rows, hasMore: page.hasMore };
}

/**
 * How long a held reservation whose payment was never created still counts, in seconds: the API reserves before it
 * asks the session's workflow, and a process that stopped in between leaves the place held this long at most.
 */
export const STALE_RESERVATION_SECONDS = 120;

/** The outcome of {@link reserveLinkAttempt}. */
export type Reservation = 'reserved' | 'inactive' | 'exhausted';

/**
 * Reserves a place for the attempt `payment` of `session` on `link` (docs/payment-links.md#limits): under the link
 * row's lock, so concurrent attempts on any sessions of one link are counted one after another; the link must be
 * active and its completed sessions plus the attempts in flight below its limit. A repeat for the same payment
 * answers `reserved` and counts once.
 * @returns `reserved`, or why not (`inactive`, `exhausted`), in which case nothing is stored
 */
export async function reserveLinkAttempt(
  db: Db,
  input: { link: string; session: string; payment: string },
): Promise<Reservation> {
  return db.transaction(async (trx) => {
    const link = (await trx('payment_links').where({ id: input.link }).forUpdate().first()) as
      PaymentLinkRow | undefined;
    if (!link || !link.active) return 'inactive';
    const existing = await trx('payment_link_reservations').where({ payment: input.payment }).first('status');
    if (existing) return 'reserved';
    if (link.completed_limit !== null) {
      const held = (await trx('payment_link_reservations as r')
        .where({ 'r.payment_link': input.link, 'r.status': 'held' })
        .andWhere((q) =>
          q
            .whereRaw(`r.created_at > now() - make_interval(secs => ?)`, [STALE_RESERVATION_SECONDS])
            .orWhereExists((p) => p.select(trx.raw('1')).from('payments').whereRaw('payments.id = r.payment')),
        )
        .count<{ count: string }[]>('* as count')) as { count: string }[];
      if (link.completed_count + Number(held[0]?.count ?? 0) >= link.completed_limit) return 'exhausted';
    }
    const now = new Date();
    await trx('payment_link_reservations').insert({
      payment: input.payment,
      payment_link: input.link,
      checkout_session: input.session,
      status: 'held',
      created_at: now,
      updated_at: now,
    });
    return 'reserved';
  });
}

/** Gives back the place of `payment` still held (its attempt was refused before it began). */
export async function releaseLinkReservation(db: Db, payment: string): Promise<void> {
  await db('payment_link_reservations')
    .where({ payment, status: 'held' })
    .update({ status: 'released', updated_at: new Date() });
}

/**
 * Settles the reservations of a link's session as its table left it, inside the session's write `trx`
 * (docs/payment-links.md#limits): the payment that completed the session completes its reservation and counts once
 * in the link's `completed_count`; an attempt that ended otherwise gives its place back. Attempts in flight keep
 * theirs. Idempotent: a reservation only moves forward (held → released or completed, released → completed).
 */
export async function settleLinkReservations(trx: Db, session: CheckoutSessionSnapshot): Promise<void> {
  if (!session.paymentLink) return;
  const now = new Date();
  const ended = session.attempts
    .filter((a) => a.status !== 'pending' && a.payment !== session.payment)
    .map((a) => a.payment);
  if (ended.length > 0)
    await trx('payment_link_reservations')
      .whereIn('payment', ended)
      .andWhere({ status: 'held' })
      .update({ status: 'released', updated_at: now });
  if (session.status !== 'complete' || !session.payment) return;
  const completed = (await trx('payment_link_reservations')
    .insert({
      payment: session.payment,
      payment_link: session.paymentLink,
      checkout_session: session.id,
      status: 'completed',
      created_at: now,
      updated_at: now,
    })
    .onConflict('payment')
    .merge({ status: 'completed', updated_at: now })
    .where('payment_link_reservations.status', '<>', 'completed')
    .returning('payment')) as { payment: string }[];
  if (completed.length > 0)
    await trx('payment_links')
      .where({ id: session.paymentLink })
      .update({ completed_count: trx.raw('completed_count + 1'), updated_at: now });
}
