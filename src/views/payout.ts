/**
 * The API forms of payouts and payout destinations (docs/payouts.md). Amounts in minor units, times ISO 8601 UTC.
 */
import { z } from '../lib/zod';
import { deriveId } from '../lib/ids';
import { payoutCause } from '../domain/ledger';
import { PAYOUT_SCHEDULES, PAYOUT_STATUSES, payoutTimeline, type PayoutSnapshot } from '../domain/payout';
import { PAYOUT_FAILURE_CODES } from '../domain/payout-rail';
import { timestamp } from './timestamp';
import { currencyCode, nullableText, objectId, objectName } from './fields';

/** A payout destination (docs/payouts.md#destinations). */
export const payoutDestination = z
  .object({
    id: objectId('Destination', 'dst_'),
    object: objectName('payout_destination'),
    type: z.enum(['mobile_money', 'bank_account']).openapi({ description: 'A mobile money wallet or a bank account' }),
    provider: z
      .string()
      .openapi({ description: 'The provider whose rail pays it (the wallet operator, or the bank rail)' }),
    last4: z.string().openapi({ description: 'Last four digits of the number or account number' }),
    bank_code: nullableText("The bank's code; null for a wallet"),
    account_holder_name: nullableText("The account holder's name as given; null for a wallet"),
    status: z.enum(['verified', 'pending_verification', 'unverified']).openapi({
      description:
        '`verified`: the provider confirmed the holder, or a payout reached it; `unverified`: the provider says no active wallet has this number; `pending_verification`: the provider cannot say (yet)',
    }),
    usable_from: timestamp.openapi({
      description: 'From when payouts may go to it (live: 24 hours after it was added)',
    }),
    created_at: timestamp.openapi({ description: 'When it was added (ISO 8601, UTC)' }),
  })
  .openapi('PayoutDestination');

/** A destination as answered. */
export type PayoutDestinationView = z.output<typeof payoutDestination>;

/** A destination as src/db/payouts.ts reads it. */
export interface PayoutDestinationSource {
  id: string;
  type: 'mobile_money' | 'bank_account';
  provider: string;
  last4: string;
  bankCode: string | null;
  accountHolderName: string | null;
  status: PayoutDestinationView['status'];
  usableFrom: string;
  createdAt: string;
}

/** The API form of a destination. */
export function toPayoutDestinationView(record: PayoutDestinationSource): PayoutDestinationView {
  return {
    id: record.id,
    object: 'payout_destination',
    type: record.type,
    provider: record.provider,
    last4: record.last4,
    bank_code: record.bankCode,
    account_holder_name: record.accountHolderName,
    status: record.status,
    usable_from: record.usableFrom,
    created_at: record.createdAt,
  };
}

/** A payout (docs/payouts.md#states). */
export const payout = z
  .object({
    id: objectId('Payout', 'po_'),
    object: objectName('payout'),
    amount: z.number().int().openapi({ description: 'Minor units sent to the destination' }),
    fee: z.number().int().openapi({ description: 'Payout fee, minor units, taken from the balance with the amount' }),
    currency: currencyCode,
    destination: z.string().openapi({ description: 'The destination id' }),
    status: z
      .enum(PAYOUT_STATUSES)
      .openapi({ description: '`pending`, `in_transit`, then `paid`, `failed` or `cancelled`; `returned` after paid' }),
    failure_code: z
      .enum(PAYOUT_FAILURE_CODES)
      .nullable()
      .openapi({ description: 'Why it failed or was returned; null otherwise' }),
    failure_message: nullableText("The provider's words, when it gave some"),
    pending_reason: nullableText('Why a pending payout has not reached its provider yet (its rail is down)'),
    automatic: z.boolean().openapi({ description: 'Created by the payout schedule rather than a request' }),
    description: nullableText('Yours, as sent; null when none'),
    arrival_date: timestamp.nullable().openapi({ description: 'When the provider paid it; null until then' }),
    balance_transaction: z.string().openapi({ description: 'The balance transaction that reserved amount and fee' }),
    created_at: timestamp.openapi({ description: 'When it was requested (ISO 8601, UTC)' }),
    updated_at: timestamp.openapi({ description: 'When its status last changed (ISO 8601, UTC)' }),
  })
  .openapi('Payout');

/** A payout as answered. */
export type PayoutView = z.output<typeof payout>;

/** The balance transaction a payout view names: its reservation of amount + fee (docs/ledger.md#postings). */
export function payoutBalanceTransaction(payoutId: string): string {
  return deriveId('txn_', payoutCause(payoutId, 'reserved'));
}

/** The API form of a payout. */
export function toPayoutView(record: PayoutSnapshot): PayoutView {
  return {
    id: record.id,
    object: 'payout',
    amount: record.amount,
    fee: record.fee,
    currency: record.currency,
    destination: record.destinationId,
    status: record.status,
    failure_code: record.failureCode,
    failure_message: record.failureMessage,
    pending_reason: record.pendingReason,
    automatic: record.automatic,
    description: record.description,
    arrival_date: record.paidAt,
    balance_transaction: payoutBalanceTransaction(record.id),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

/** A payout with its status timeline (`GET /v1/payouts/{id}`). */
export const payoutDetail = payout
  .extend({
    timeline: z
      .array(
        z.object({
          status: z.enum(PAYOUT_STATUSES).openapi({ description: 'The state it entered' }),
          at: timestamp.openapi({ description: 'When (ISO 8601, UTC)' }),
        }),
      )
      .openapi({ description: 'The states it went through, oldest first' }),
  })
  .openapi('PayoutDetail');

/** The API form of a payout with its timeline. */
export function toPayoutDetailView(record: PayoutSnapshot): z.output<typeof payoutDetail> {
  return { ...toPayoutView(record), timeline: payoutTimeline(record) };
}

/** A merchant's automatic payout setting (docs/payouts.md#automatic-payouts). */
export const payoutSchedule = z
  .object({
    object: objectName('payout_schedule'),
    schedule: z
      .enum(PAYOUT_SCHEDULES)
      .openapi({ description: '`manual`, or `daily` / `weekly` at 06:00 UTC (weekly: Mondays)' }),
    destination: nullableText('The destination automatic payouts go to; null for manual'),
    currency: nullableText('The currency paid out; null for manual'),
    minimum: z.number().int().openapi({ description: 'Minor units kept in the balance; what is above it is paid out' }),
    updated_at: timestamp.nullable().openapi({ description: 'When it was last set; null while never set' }),
  })
  .openapi('PayoutSchedule');

/** The API form of the setting. */
export function toPayoutScheduleView(record: {
  schedule: (typeof PAYOUT_SCHEDULES)[number];
  destinationId: string | null;
  currency: string | null;
  minimum: number;
  updatedAt: string | null;
}): z.output<typeof payoutSchedule> {
  return {
    object: 'payout_schedule',
    schedule: record.schedule,
    destination: record.destinationId,
    currency: record.currency,
    minimum: record.minimum,
    updated_at: record.updatedAt,
  };
}
