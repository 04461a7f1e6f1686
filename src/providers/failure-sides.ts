/**
 * Every failure reason our adapters read from a provider, and whose it is (docs/availability.md#classification): the
 * one place that says which provider answers count against the operator's health. Each provider's own reason table
 * (its `statuses.ts` and `payout-statuses.ts`) maps a reason onto our failure code; this file says whose the reason is,
 * and a test fails when a reason in those tables is missing here or a reason here is not in them.
 *
 * Sources: the reasons' own documentation, cited in each provider's table. The judgement is ours: a reason is the
 * `payer`'s when the payer or payee caused it (declined, funds, PIN, limits, unknown or closed account); the
 * `platform`'s when our set-up at the operator caused it (credentials, API user rights, target environment, callback
 * host, currency of our account, our float, a repeated reference of ours); else the `provider`'s.
 */
import type { HealthOperation, OutcomeSide } from '../domain/provider-health';
import type { ProviderCode } from '../domain/catalogue';

/** Whose each reason is, per provider and operation; a reason is the provider's key as its API sends it. */
export const FAILURE_REASON_SIDES: Readonly<
  Partial<Record<ProviderCode, Partial<Record<HealthOperation, Readonly<Record<string, OutcomeSide>>>>>>
> = {
  momo: {
    collection: {
      NOT_ENOUGH_FUNDS: 'payer',
      PAYER_LIMIT_REACHED: 'payer',
      PAYER_NOT_FOUND: 'payer',
      SENDER_ACCOUNT_NOT_ACTIVE: 'payer',
      APPROVAL_REJECTED: 'payer',
      REJECTED: 'payer',
      PAYMENT_NOT_APPROVED: 'payer',
      TRANSACTION_CANCELED: 'payer',
      EXPIRED: 'payer',
      COULD_NOT_PERFORM_TRANSACTION: 'payer',
      INTERNAL_PROCESSING_ERROR: 'provider',
      SERVICE_UNAVAILABLE: 'provider',
      PAYEE_NOT_FOUND: 'platform',
      PAYEE_NOT_ALLOWED_TO_RECEIVE: 'platform',
      NOT_ALLOWED: 'platform',
      NOT_ALLOWED_TARGET_ENVIRONMENT: 'platform',
      INVALID_CALLBACK_URL_HOST: 'platform',
      INVALID_CURRENCY: 'platform',
      RESOURCE_NOT_FOUND: 'provider',
      TRANSACTION_NOT_FOUND: 'provider',
      RESOURCE_ALREADY_EXIST: 'platform',
    },
    payout: {
      PAYEE_NOT_FOUND: 'payer',
      PAYEE_NOT_ALLOWED_TO_RECEIVE: 'payer',
      NOT_ENOUGH_FUNDS: 'platform',
      PAYER_LIMIT_REACHED: 'platform',
      SENDER_ACCOUNT_NOT_ACTIVE: 'platform',
      PAYER_NOT_FOUND: 'platform',
      NOT_ALLOWED: 'platform',
      NOT_ALLOWED_TARGET_ENVIRONMENT: 'platform',
      INVALID_CALLBACK_URL_HOST: 'platform',
      INVALID_CURRENCY: 'platform',
      INTERNAL_PROCESSING_ERROR: 'provider',
      SERVICE_UNAVAILABLE: 'provider',
      RESOURCE_NOT_FOUND: 'provider',
      TRANSACTION_NOT_FOUND: 'provider',
    },
  },
  mobile_money_b: {
    collection: {
      DP00800001002: 'payer',
      DP00800001003: 'payer',
      DP00800001004: 'payer',
      DP00800001005: 'payer',
      DP00800001007: 'payer',
      DP00800001008: 'payer',
      DP00800001009: 'payer',
      DP00800001010: 'payer',
      DP00800001024: 'payer',
      DP00800001026: 'provider',
      DP00800001029: 'payer',
    },
    payout: {
      DP00900001003: 'payer',
      DP00900001004: 'payer',
      DP00900001005: 'payer',
      DP00900001007: 'platform',
      DP00900001009: 'provider',
      DP00900001010: 'provider',
      DP00900001012: 'payer',
      DP00900001013: 'payer',
      DP00900001016: 'provider',
      ROUTER114: 'provider',
      ROUTER115: 'provider',
      ROUTER116: 'provider',
    },
  },
  mpesa: {
    collection: {
      '1': 'payer',
      '1032': 'payer',
      '2001': 'payer',
      '1037': 'payer',
      '1019': 'payer',
      '1001': 'provider',
      '1025': 'provider',
      '9999': 'provider',
    },
    payout: {
      '1': 'platform',
      '5': 'platform',
      '2': 'payer',
      '3': 'payer',
      '4': 'payer',
      '8': 'payer',
      '7': 'payer',
      '12': 'payer',
      '14': 'payer',
      '2040': 'payer',
      '6': 'platform',
      '11': 'platform',
      '13': 'platform',
      '20': 'platform',
      '2001': 'platform',
      '8006': 'platform',
      '2028': 'platform',
      '26': 'provider',
    },
  },
  orange: {
    // Orange's Web Payment names no reason beyond these: a failure on its page is the payer's (code, funds, limits).
    collection: { FAILED: 'payer', EXPIRED: 'payer' },
  },
  vodacom: {
    collection: {
      'INS-5': 'payer',
      'INS-2001': 'payer',
      'INS-995': 'payer',
      'INS-996': 'payer',
      'INS-2051': 'payer',
      'INS-2006': 'payer',
      'INS-9': 'payer',
      'INS-6': 'provider',
      'INS-13': 'platform',
      'INS-15': 'platform',
      'INS-16': 'provider',
    },
    payout: {
      'INS-2006': 'platform',
      'INS-2051': 'payer',
      'INS-2002': 'payer',
      'INS-996': 'payer',
      'INS-995': 'payer',
      'INS-15': 'platform',
      'INS-13': 'platform',
      'INS-6': 'provider',
      'INS-16': 'provider',
    },
  },
  wave: {
    collection: {
      'insufficient-funds': 'payer',
      'blocked-account': 'payer',
      'payer-mobile-mismatch': 'payer',
    },
    payout: {
      'insufficient-funds': 'platform',
      'payout-limit-exceeded': 'platform',
      'recipient-account-blocked': 'payer',
      'receive-limit-exceeded': 'payer',
      'amount-too-small': 'payer',
      'invalid-mobile': 'payer',
      'mobile-not-registered': 'payer',
    },
  },
};

/**
 * Whose `reason` of `provider` for `operation` is; undefined when the reason is not in the table (then the failure
 * code's own side decides, docs/availability.md#classification).
 */
export function failureReasonSide(
  provider: ProviderCode,
  operation: HealthOperation,
  reason: string,
): OutcomeSide | undefined {
  return FAILURE_REASON_SIDES[provider]?.[operation]?.[reason];
}
