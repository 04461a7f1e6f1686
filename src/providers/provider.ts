/**
 * The provider interface (D16): one adapter per operator or gateway, each mapping the provider's own
 * statuses onto {@link ProviderOutcome}. Only activities (and the callback route, which only parses)
 * call providers.
 */
import type { ProviderCode } from '../domain/catalogue';
import type { InitiationRequest, ProviderOutcome } from '../domain/payment';

/**
 * A request to collect `amount` minor units of `currency` from `customer` (MSISDN, wallet id …);
 * built from a payment by the domain's `initiationRequest`.
 */
export type InitiateRequest = InitiationRequest;

/** The provider's reference for the payment and what it says about it now. */
export interface ProviderAnswer {
  providerReference: string;
  outcome: ProviderOutcome;
}

/** A refund of `amount` minor units of the payment `providerReference`. */
export interface RefundRequest {
  providerReference: string;
  idempotencyKey: string;
  amount: number;
}

/** The provider's answer to a refund. */
export type RefundAnswer = { status: 'succeeded'; refundReference: string } | { status: 'failed'; failureMessage: string };

/** A provider callback after its authentication (D16). */
export interface ParsedCallback {
  providerReference: string;
  outcome: ProviderOutcome;
}

/**
 * One payment provider. Every call is idempotent on its idempotency key or reference; `fetchStatus`
 * is the polling fallback for lost callbacks (D16, D20).
 */
export interface PaymentProvider {
  readonly code: ProviderCode;
  /** Asks the provider to collect the payment. @throws ProviderError on a permanent refusal */
  initiate(request: InitiateRequest): Promise<ProviderAnswer>;
  /** The provider's current answer for `providerReference`. @throws ProviderError for an unknown reference */
  fetchStatus(providerReference: string): Promise<ProviderAnswer>;
  /**
   * Asks the provider to stop collecting. The answer is the provider's final word: `cancelled`, or
   * `completed`/`failed` when it had already decided (a cancel that races a success loses, D11).
   */
  cancel(providerReference: string): Promise<ProviderAnswer>;
  /** Refunds part or all of a collected payment. */
  refund(request: RefundRequest): Promise<RefundAnswer>;
  /**
   * Authenticates and parses a callback.
   * @param rawBody the request body exactly as received
   * @param signature the provider's signature header
   * @throws ProviderError when the signature or body is not valid
   */
  parseCallback(rawBody: string, signature: string | undefined): ParsedCallback;
}

/** A permanent provider fault (bad credentials, unknown reference): retrying will not help. */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderError';
  }
}
