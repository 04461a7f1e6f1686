/**
 * Payouts as the domain knows them (docs/payouts.md): the states, which change may follow which, the payout fee
 * schedule and the status timeline. Pure, so the payout workflow may import it.
 */
import { byProvider, type ProviderCode } from './catalogue';
import type { Environment } from './environment';
import type { Currency } from './money';
import { percentageOfMinor } from './money';
import type { PayoutDestinationType, PayoutFailureCode } from './payout-rail';
import type { PayoutCapability } from './provider-descriptor';

/**
 * A payout's states (docs/payouts.md#states): `pending` (accepted, amount and fee reserved; also while the rail is
 * down), `in_transit` (the provider has it, or may have it and is being asked), `paid`, `failed` (definite
 * refusal), `returned` (paid, then reversed by the provider), `cancelled` (by the merchant while pending).
 */
export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'returned', 'cancelled'] as const;
/** One payout state. */
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** States a payout never leaves. */
export const FINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['failed', 'returned', 'cancelled'];

/** A payout as stored; amounts in minor units, times ISO 8601 UTC. */
export interface PayoutSnapshot {
  id: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  fee: number;
  currency: Currency;
  destinationId: string;
  provider: string;
  description: string | null;
  status: PayoutStatus;
  failureCode: PayoutFailureCode | null;
  failureMessage: string | null;
  pendingReason: string | null;
  providerReference: string | null;
  /**
   * When our first request that the rail answered was made: the start of the seconds to final its health outcome is
   * measured by (docs/availability.md#payouts); null until the rail first answers.
   */
  firstRequestAt: string | null;
  automatic: boolean;
  createdAt: string;
  updatedAt: string;
  inTransitAt: string | null;
  paidAt: string | null;
  failedAt: string | null;
  returnedAt: string | null;
  cancelledAt: string | null;
}

/** The state of a payout just accepted at `at` (ISO 8601 UTC): `pending`, nothing sent, no outcome yet. */
export function acceptedPayoutState(at: string) {
  return {
    status: 'pending' as const,
    failureCode: null,
    failureMessage: null,
    pendingReason: null,
    providerReference: null,
    firstRequestAt: null,
    createdAt: at,
    updatedAt: at,
    inTransitAt: null,
    paidAt: null,
    failedAt: null,
    returnedAt: null,
    cancelledAt: null,
  };
}

/** Basis points the mobile-money rails charge per payout (docs/payouts.md#fees): 1 %. */
export const MOBILE_MONEY_PAYOUT_FEE_BASIS_POINTS = 100;

/**
 * The bank rail's flat fee per currency in minor units (docs/payouts.md#fees): 500 RWF and about the same value in
 * the other currencies it pays.
 */
export const BANK_PAYOUT_FLAT_FEE: Readonly<Partial<Record<Currency, number>>> = { RWF: 500, UGX: 1_300, KES: 4_500 };

/**
 * The fee of a payout of `amount` minor units of `currency` to a destination of `type` (docs/payouts.md#fees), in
 * minor units: 1 % for mobile money (half up), the bank rail's flat fee of the currency (0 where it names none).
 */
export function payoutFee(type: PayoutDestinationType, amount: number, currency: Currency): number {
  if (type === 'mobile_money') return percentageOfMinor(amount, MOBILE_MONEY_PAYOUT_FEE_BASIS_POINTS);
  return BANK_PAYOUT_FLAT_FEE[currency] ?? 0;
}

/** One step of a payout's timeline: a status and when it was reached. */
export interface PayoutTimelineStep {
  status: PayoutStatus;
  at: string;
}

/** The states a payout went through, oldest first, from its recorded times (docs/payouts.md#states). */
export function payoutTimeline(payout: PayoutSnapshot): PayoutTimelineStep[] {
  const steps: [PayoutStatus, string | null][] = [
    ['pending', payout.createdAt],
    ['in_transit', payout.inTransitAt],
    ['paid', payout.paidAt],
    ['failed', payout.failedAt],
    ['returned', payout.returnedAt],
    ['cancelled', payout.cancelledAt],
  ];
  return steps.filter((s): s is [PayoutStatus, string] => s[1] !== null).map(([status, at]) => ({ status, at }));
}

/** The message of a cancel refused because the payout left `pending` (409 `payout_not_cancellable`). */
export function notCancellablePayoutMessage(status: PayoutStatus): string {
  return `a payout that is ${status} cannot be cancelled; only pending payouts can`;
}

/** What each provider pays out, from its descriptor (null: nothing; docs/payouts.md#rails). */
export const PAYOUT_CAPABILITIES: Readonly<Record<ProviderCode, PayoutCapability | null>> = byProvider(
  (d) => d.payouts,
);

/**
 * Why a rail of `provider` cannot pay `currency`, as a sentence naming what it does pay; undefined when it can.
 */
export function payoutCurrencyProblem(provider: string, currency: string): string | undefined {
  const capability = PAYOUT_CAPABILITIES[provider as ProviderCode];
  if (capability?.currencies.includes(currency as Currency)) return undefined;
  return `the ${provider} payout rail cannot pay ${currency}; it pays ${capability?.currencies.join(', ') ?? 'nothing'}`;
}

/** Automatic payout schedules (docs/payouts.md#automatic-payouts). */
export const PAYOUT_SCHEDULES = ['manual', 'daily', 'weekly'] as const;
/** One automatic payout schedule. */
export type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];
