/**
 * The provider request log's shape (docs/providers.md#m-pesa): types only, implemented in PostgreSQL by
 * src/db/provider-requests.ts and used by the adapters of providers that cannot recognise a repeated request.
 */
import type { ProviderCode } from './catalogue';

/**
 * A durable record of the requests a provider cannot recognise as repeated (an M-Pesa STK push takes no idempotency
 * key, docs/providers.md#m-pesa), shared by every API and worker process: a request is claimed before it is sent, so
 * no retry in any process sends it again, and the provider's own reference is added once an answer or a callback
 * names it. Keys are the adapter's (a payment id).
 */
export interface ProviderRequestLog {
  /** Claims `key` of `provider`. @returns true when this call claimed it (send it), false when it was claimed before */
  claim(provider: ProviderCode, key: string): Promise<boolean>;
  /**
   * Adds the provider's `reference` to the claimed `key` unless it has one.
   * @returns the reference it now holds (the earlier one when it had one), or undefined when `key` was never claimed
   */
  recordReference(provider: ProviderCode, key: string, reference: string): Promise<string | undefined>;
  /** What is known of `key`: undefined when never claimed, else its reference (null while none is known). */
  find(provider: ProviderCode, key: string): Promise<{ reference: string | null } | undefined>;
}
