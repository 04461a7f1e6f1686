/**
 * Sandbox test inputs (docs/payments.md#sandbox-scenarios): what the provider simulators do with a phone number, wallet
 * id or card.
 * Pure, so the rules can be unit-tested and documented in one place.
 */
import { z } from 'zod';
import type { FailureCode } from './payment';

/** What a simulator does with a customer's number. */
export type SandboxBehaviour =
  | { kind: 'instant_success' }
  | { kind: 'decline'; failureCode: FailureCode; failureMessage: string }
  | { kind: 'no_answer' }
  | { kind: 'approve_after_delay' }
  /** `0004`: nothing before expiry, success {@link LATE_SUCCESS_AFTER_EXPIRY_MS} after it. */
  | { kind: 'late_success' }
  /** `0005`: approves after the delay, then sends `succeeded` twice and `pending` after them. */
  | { kind: 'duplicate_callbacks' }
  /** `0006`: approves after the delay; refuses every refund. */
  | { kind: 'refunds_refused' }
  /** `0007`: approves after the delay; a refund's answer is unknown for a while, then it succeeded. */
  | { kind: 'refund_answer_unknown' }
  /**
   * `0008`: the first initiation call times out, yet the request was taken; succeeds {@link DOOR_TIMEOUT_SUCCESS_MS}
   * later.
   */
  | { kind: 'initiation_timeout' }
  /** `0010`: the provider refuses the request at once with an error of its own (a provider failure). */
  | { kind: 'provider_error' }
  /**
   * `0011`: the provider takes the request, then neither calls back nor answers a status question until the payment's
   * expiry (its last word unknown: a provider failure).
   */
  | { kind: 'silent_until_expiry' };

/**
 * `0004`: how long after `expires_at` the late success comes (docs/payments.md#sandbox-scenarios: 5 s), in
 * milliseconds.
 */
export const LATE_SUCCESS_AFTER_EXPIRY_MS = 5_000;
/**
 * `0008`: how long after the timed-out initiation the payment succeeds (docs/payments.md#sandbox-scenarios: 5 s), in
 * milliseconds.
 */
export const DOOR_TIMEOUT_SUCCESS_MS = 5_000;

/**
 * Sandbox scenarios (docs/payments.md#sandbox-scenarios) for phone numbers and wallet ids, by their last four digits:
 * `0001` completes at once, `0002` is declined, `0003` never answers (and so expires), `0004`–`0008`, `0010` and
 * `0011` are the scenarios of {@link SandboxBehaviour}. Any other number completes after the simulated customer
 * approval delay.
 */
export const NUMBER_SCENARIOS: Readonly<Record<string, Readonly<SandboxBehaviour>>> = {
  '0001': { kind: 'instant_success' },
  '0002': { kind: 'decline', failureCode: 'declined', failureMessage: 'The customer declined the payment request' },
  '0003': { kind: 'no_answer' },
  '0004': { kind: 'late_success' },
  '0005': { kind: 'duplicate_callbacks' },
  '0006': { kind: 'refunds_refused' },
  '0007': { kind: 'refund_answer_unknown' },
  '0008': { kind: 'initiation_timeout' },
  '0010': { kind: 'provider_error' },
  '0011': { kind: 'silent_until_expiry' },
};

/**
 * What the simulators do with the number or wallet id `digits` (non-digits are ignored): its last four digits'
 * scenario of {@link NUMBER_SCENARIOS}, else approval after the simulated customer delay.
 */
export function behaviourForNumber(digits: string): SandboxBehaviour {
  const last4 = digits.replace(/[^0-9]/g, '').slice(-4);
  return Object.hasOwn(NUMBER_SCENARIOS, last4) ? { ...NUMBER_SCENARIOS[last4]! } : { kind: 'approve_after_delay' };
}

/**
 * docs/payments.md#sandbox-scenarios test cards, entered on the sandbox card gateway (docs/payments.md#card-payments).
 * Unknown numbers are declined.
 */
export function behaviourForCard(cardNumber: string): SandboxBehaviour {
  switch (cardNumber) {
    case '4242424242424242':
      return { kind: 'instant_success' };
    case '4000000000009995':
      return { kind: 'decline', failureCode: 'insufficient_funds', failureMessage: 'The card has insufficient funds' };
    default:
      return { kind: 'decline', failureCode: 'card_declined', failureMessage: 'The card was declined' };
  }
}

/** Length of the random part of a simulated card gateway's client secret (docs/payments.md#card-payments). */
export const CLIENT_SECRET_RANDOM_LENGTH = 24;

/**
 * The simulated card gateway's client secret for its transaction `providerReference` (docs/payments.md#card-payments,
 * as
 * Stripe's `pi_…_secret_…`): `{providerReference}_secret_{random}`, `random` being
 * {@link CLIENT_SECRET_RANDOM_LENGTH} base62 characters the caller draws.
 */
export function clientSecretFor(providerReference: string, random: string): string {
  return `${providerReference}_secret_${random}`;
}

/**
 * The transaction reference a client secret names, read from its form only (the secret itself
 * must still be compared with the stored one); undefined when it is not of the form of {@link clientSecretFor}.
 */
export function providerReferenceOfClientSecret(clientSecret: string): string | undefined {
  const match = new RegExp(`^([0-9A-Za-z_]+)_secret_[0-9A-Za-z]{${CLIENT_SECRET_RANDOM_LENGTH}}$`).exec(clientSecret);
  return match?.[1];
}

/** The simulated bank account customers pay bank transfers into (docs/payments.md#sandbox-scenarios, sandbox only). */
export const SANDBOX_BANK_ACCOUNT = {
  bank_name: 'Sandbox Bank of Kigali',
  account_name: 'PayCollect Sandbox Collections',
  account_number: '000400012345',
} as const;

/**
 * The transfer reference a customer quotes so the bank transfer is matched to its payment: `PC`
 * and the payment id's random part, upper-cased (unique per payment).
 */
export function bankTransferReference(paymentId: string): string {
  return `PC${paymentId.replace(/^pay_/, '').toUpperCase()}`;
}

/**
 * The JSON body of a simulated provider callback (docs/payments.md#provider-callbacks):
 * `{provider_reference, status, failure_code?, failure_message?}`, `status` in the simulators' own
 * vocabulary. The simulators send it, the sandbox adapter parses it, and the API reference shows it.
 */
export const sandboxCallbackBody = z.object({
  provider_reference: z
    .string()
    .min(1)
    .max(100)
    .describe("The provider's reference of the payment, as it answered the payment's initiation"),
  status: z
    .enum(['pending', 'succeeded', 'failed', 'cancelled'])
    .describe('The status the provider claims; the service confirms it with the provider before it counts'),
  failure_code: z
    .enum(['declined', 'card_declined', 'insufficient_funds', 'provider_error'])
    .optional()
    .describe('Why it failed, for `failed`'),
  failure_message: z.string().max(500).optional().describe("The provider's own words about the failure"),
});
