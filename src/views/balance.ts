/**
 * The API's forms of a merchant's balance and balance transactions (docs/ledger.md#balance-transactions), and the
 * balance transaction a payment or refund view names. Amounts in minor units.
 */
import { z } from '../lib/zod';
import { deriveId } from '../lib/ids';
import { COLLECTED_STATUSES } from '../domain/fees';
import { BALANCE_TRANSACTION_TYPES, paymentCollectedCause, refundCause } from '../domain/ledger';
import type { PaymentSnapshot } from '../domain/payment';
import type { RefundRecord } from '../domain/refund';
import { timestamp } from './timestamp';
import { currencyCode, objectId, objectName } from './fields';

const amounts = z.array(
  z.object({
    amount: z.number().int().openapi({ description: 'Minor units; may be below zero (refunds keep no fee back)' }),
    currency: currencyCode,
  }),
);

/** `GET /v1/balance` (docs/ledger.md#balance). */
export const balance = z
  .object({
    object: objectName('balance'),
    available: amounts.openapi({
      description:
        'Owed to you and available now: what you are owed less the pending credits; exactly what a payout may take (amount + fee)',
    }),
    pending: amounts.openapi({
      description: 'Credits owed to you, available once their `available_on` comes (a debit is never pending)',
    }),
    refund_reserved: amounts.openapi({
      description: 'Held by refunds whose provider answer is not final yet (already taken from available or pending)',
    }),
    environment: z.enum(['sandbox', 'live']).openapi({ description: 'The environment whose money this is' }),
  })
  .openapi('Balance');

/** A balance as answered. */
export type BalanceView = z.output<typeof balance>;

/** A merchant's balance per currency, as src/db/ledger.ts reads it. */
export interface BalanceAmounts {
  available: { amount: number; currency: string }[];
  pending: { amount: number; currency: string }[];
  refundReserved: { amount: number; currency: string }[];
}

/** The API form of a balance in `environment`. */
export function toBalanceView(amountsOf: BalanceAmounts, environment: 'sandbox' | 'live'): BalanceView {
  return {
    object: 'balance',
    available: amountsOf.available,
    pending: amountsOf.pending,
    refund_reserved: amountsOf.refundReserved,
    environment,
  };
}

/** A balance transaction (docs/ledger.md#balance-transactions): the merchant's side of one journal. */
export const balanceTransaction = z
  .object({
    id: objectId('Balance transaction', 'txn_'),
    object: objectName('balance_transaction'),
    type: z.enum(BALANCE_TRANSACTION_TYPES).openapi({
      description: 'What moved your balance: a payment, a refund, a refused refund, a payout, an adjustment …',
    }),
    amount: z.number().int().openapi({ description: 'Gross, minor units: negative for a refund or payout' }),
    fee: z.number().int().openapi({ description: 'What we kept, minor units (0 for refunds)' }),
    net: z.number().int().openapi({ description: 'What your balance moved by: `amount − fee`, minor units' }),
    currency: currencyCode,
    source: z.string().openapi({ description: 'The payment, refund, payout or adjustment id' }),
    status: z
      .enum(['pending', 'available'])
      .openapi({ description: '`pending` until `available_on`, then `available`' }),
    available_on: timestamp.openapi({ description: 'When the funds are (or became) available' }),
    created_at: timestamp.openapi({ description: 'When it was recorded (ISO 8601, UTC)' }),
    description: z.string().openapi({ description: 'What it is, in words' }),
  })
  .openapi('BalanceTransaction');

/** A balance transaction as answered. */
export type BalanceTransactionView = z.output<typeof balanceTransaction>;

/** A balance transaction as src/db/ledger.ts reads it. */
export interface BalanceTransactionSource {
  id: string;
  type: BalanceTransactionView['type'];
  amount: number;
  fee: number;
  net: number;
  currency: string;
  source: string;
  availableOn: string;
  createdAt: string;
  description: string;
}

/** The API form of a balance transaction; `status` is `available` once `available_on` is at or before `now`. */
export function toBalanceTransactionView(record: BalanceTransactionSource, now: Date): BalanceTransactionView {
  return {
    id: record.id,
    object: 'balance_transaction',
    type: record.type,
    amount: record.amount,
    fee: record.fee,
    net: record.net,
    currency: record.currency,
    source: record.source,
    status: Date.parse(record.availableOn) <= now.getTime() ? 'available' : 'pending',
    available_on: record.availableOn,
    created_at: record.createdAt,
    description: record.description,
  };
}

/**
 * The balance transaction id of a journal's cause: derived from it as src/db/ledger.ts derives it when it writes the
 * journal, so a view names it without reading the ledger.
 */
function balanceTransactionIdOf(cause: string): string {
  return deriveId('txn_', cause);
}

/**
 * The balance transaction a payment view names (docs/ledger.md#balance-transactions): its collection's once the
 * provider collected its money (also a cancelled payment whose late success was refunded), else null.
 */
export function paymentBalanceTransaction(payment: PaymentSnapshot): string | null {
  const collected =
    COLLECTED_STATUSES.includes(payment.status) ||
    (payment.status === 'cancelled' && payment.amountRefunded + (payment.amountRefundPending ?? 0) > 0);
  return collected ? balanceTransactionIdOf(paymentCollectedCause(payment.id)) : null;
}

/**
 * The balance transaction a refund view names: its reservation, which took the amount from the balance; null for a
 * refund the provider refused (its reservation was reversed, docs/ledger.md#balance-transactions).
 */
export function refundBalanceTransaction(refund: Pick<RefundRecord, 'id' | 'status'>): string | null {
  return refund.status === 'failed' ? null : balanceTransactionIdOf(refundCause(refund.id, 'reserved'));
}
