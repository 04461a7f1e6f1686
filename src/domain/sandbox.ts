/**
 * Sandbox test inputs (D14): what the provider simulators do with a phone number, wallet id or card.
 * Pure, so the rules can be unit-tested and documented in one place.
 */
import type { FailureCode } from './payment';

/** What a simulator does with a customer's number. */
export type SandboxBehaviour =
  | { kind: 'instant_success' }
  | { kind: 'decline'; failureCode: FailureCode; failureMessage: string }
  | { kind: 'no_answer' }
  | { kind: 'approve_after_delay' };

/**
 * D14 for phone numbers and wallet ids: the last four digits decide. `0001` completes at once,
 * `0002` is declined, `0003` never answers (and so expires), any other completes after the
 * simulated customer approval delay.
 */
export function behaviourForNumber(digits: string): SandboxBehaviour {
  const last4 = digits.replace(/[^0-9]/g, '').slice(-4);
  switch (last4) {
    case '0001':
      return { kind: 'instant_success' };
    case '0002':
      return { kind: 'decline', failureCode: 'declined', failureMessage: 'The customer declined the payment request' };
    case '0003':
      return { kind: 'no_answer' };
    default:
      return { kind: 'approve_after_delay' };
  }
}

/** D14 test cards, entered on the sandbox card gateway (D15). Unknown numbers are declined. */
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

/** The simulated bank account customers pay bank transfers into (D14, sandbox only). */
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
