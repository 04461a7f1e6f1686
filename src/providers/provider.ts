/**
 * The provider interface (D16): one adapter per operator or gateway, each mapping the provider's own
 * statuses onto {@link ProviderOutcome}. Only activities call providers.
 */
import type { ProviderCode } from '../domain/catalogue';
import type { Currency } from '../domain/money';
import type { ProviderOutcome } from '../domain/payment';

/** A request to collect `amount` minor units of `currency` from `customer` (MSISDN, wallet id …). */
export interface InitiateRequest {
  paymentId: string;
  /** Derived from the workflow id and step, so a retried activity never charges twice (style rule 2). */
  idempotencyKey: string;
  amount: number;
  currency: Currency;
  customer: string;
}

/** The provider's reference for the payment and what it says about it now. */
export interface ProviderAnswer {
  providerReference: string;
  outcome: ProviderOutcome;
}

/**
 * One payment provider. `initiate` must be idempotent on `idempotencyKey`; `fetchStatus` is the
 * polling fallback for lost callbacks (D16, D20).
 */
export interface PaymentProvider {
  readonly code: ProviderCode;
  /** Asks the provider to collect the payment. @throws ProviderError on a permanent refusal */
  initiate(request: InitiateRequest): Promise<ProviderAnswer>;
  /** The provider's current answer for `providerReference`. @throws ProviderError for an unknown reference */
  fetchStatus(providerReference: string): Promise<ProviderAnswer>;
}

/** A permanent provider fault (bad credentials, unknown reference): retrying will not help. */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderError';
  }
}
