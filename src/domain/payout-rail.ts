/**
 * What a payout rail answers (docs/payouts.md#rails), in our own words: the outcomes of sending a payout and
 * of asking about one, the reasons a rail refuses one, and the destinations a rail pays. Pure, so the payout
 * workflow may import it; the rails themselves (src/providers/payout-rail.ts) live with their providers.
 */

/**
 * The answer to sending a payout (docs/payouts.md#rails):
 * - `paid`: the money reached the destination;
 * - `in_transit`: the provider has the payout and has not finished it;
 * - `refused`: a definite refusal (nothing was or will be paid), with a {@link PayoutFailureCode};
 * - `unknown`: no readable answer (time-out, 5xx, an ambiguous code): the provider may have it. It is asked
 *   about with the status call, never sent again under another reference.
 */
export const PAYOUT_SEND_OUTCOMES = ['paid', 'in_transit', 'refused', 'unknown'] as const;
/** One outcome of sending a payout. */
export type PayoutSendOutcome = (typeof PAYOUT_SEND_OUTCOMES)[number];

/**
 * The answer to asking about a payout: the send outcomes, plus `returned` (the provider paid it, then
 * reversed it: the money came back) and `not_received` (the provider has no payout under this reference, so
 * nothing was paid; sending it again reuses the same reference, which the provider's own duplicate check guards).
 */
export const PAYOUT_STATUS_OUTCOMES = [...PAYOUT_SEND_OUTCOMES, 'returned', 'not_received'] as const;
/** One outcome of asking about a payout. */
export type PayoutStatusOutcome = (typeof PAYOUT_STATUS_OUTCOMES)[number];

/**
 * Why a rail refused a payout (docs/payouts.md#rails):
 * - `account_invalid`: no such wallet or account at the provider, or a number it does not accept;
 * - `account_restricted`: the wallet or account exists and may not receive this (blocked, barred, over its limit);
 * - `amount_invalid`: the amount is outside the rail's limits;
 * - `platform_funds`: our own disbursement account lacks the money (an operations matter, not the merchant's);
 * - `declined`: refused without a reason we know;
 * - `provider_error`: refused for our configuration or the provider's own fault.
 */
export const PAYOUT_FAILURE_CODES = [
  'account_invalid',
  'account_restricted',
  'amount_invalid',
  'platform_funds',
  'declined',
  'provider_error',
] as const;
/** One reason a rail refused a payout. */
export type PayoutFailureCode = (typeof PAYOUT_FAILURE_CODES)[number];

/** The kinds of destination a rail pays: a mobile-money wallet or a bank account. */
export const PAYOUT_DESTINATION_TYPES = ['mobile_money', 'bank_account'] as const;
/** One kind of payout destination. */
export type PayoutDestinationType = (typeof PAYOUT_DESTINATION_TYPES)[number];

/**
 * Where a payout goes: a wallet by its E.164 number (`+250788000001`), or a bank account by the bank's code,
 * the account number and the holder's name as the merchant gave them.
 */
export type PayoutDestination =
  | { type: 'mobile_money'; phoneNumber: string }
  | { type: 'bank_account'; bankCode: string; accountNumber: string; accountHolderName: string };

/**
 * The last four digits of a destination's national number or account number, which the sandbox rails decide by
 * (docs/payouts.md#sandbox-destinations); `''` when it has no digits.
 */
export function destinationEnding(destination: PayoutDestination): string {
  const digits = destination.type === 'mobile_money' ? destination.phoneNumber : destination.accountNumber;
  return digits.replace(/[^0-9]/g, '').slice(-4);
}
